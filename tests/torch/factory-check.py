"""factory-check.py: a user's own model measured plan by plan, each in a
fresh process (issue 44: `measure` refused 2 of 4 plans in one process,
torch 1.13's CPU accounting being right only in a process's first profiled
run).

- `checkpoint --factory tests/torch/factory_mlp.py:make -k 1,2`: the plan
  without checkpoints and two dp plans, every one measured (none refused),
  each predicted peak within 3 % of torch's measured one, the plans wrap
  modules.
- The model measured in this process (no plan), and a plan by
  `measure_fresh` from Python in a process of its own: the command's
  numbers.
- A factory of (model, inputs) alone (no optimizer, the output's sum):
  recorded here, measured by measure_fresh.
- Refusals: not MODULE:FUNCTION, no such module or function (64), a
  factory returning something else (65) or raising (70), both --model and
  --factory or neither (64).
"""

import json
import os
import subprocess
import sys

import torch

import rematsim_torch
from rematsim_torch import checkpoint as ck
from rematsim_torch.__main__ import main

TOLERANCE = 0.03
HERE = os.path.dirname(os.path.abspath(__file__))
FACTORY = os.path.join(HERE, "factory_mlp.py")
fail = 0


def check(cond, what):
    global fail
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        fail = 1


r = subprocess.run([sys.executable, "-m", "rematsim_torch", "checkpoint", "--factory",
                    FACTORY + ":make", "-k", "1,2", "--repeat", "1", "--json"],
                   capture_output=True, text=True)
check(r.returncode == 0, "checkpoint --factory: exit %d %s" % (r.returncode, r.stderr[-1500:]))
rows = [json.loads(ln) for ln in r.stdout.splitlines() if ln.startswith("{")]
check([x["plan"] for x in rows] == ["none", "k=1", "k=2"],
      "three plans, every one measured: %s" % [x["plan"] for x in rows])
for x in rows:
    d = x["difference"]
    check(abs(d) <= TOLERANCE and x["measured_peak"] > 0,
          "%s: wraps %s, predicted %d, measured %d (%+.2f%%)" % (
              x["plan"], x["wraps"], x["predicted_peak"], x["measured_peak"], 100 * d))
if len(rows) == 3:
    check(all(x["wraps"] for x in rows[1:]), "the plans wrap modules")
    check(rows[0]["model"] == "factory %s:make" % FACTORY and rows[0]["device"] == "cpu",
          "the rows name the factory and its device")

# this process's first measurement (of no plan) is the command's; a
# plan's in a fresh process by measure_fresh too (a second measurement in
# one process may be refused, or not, as torch 1.13's allocator reuses
# addresses: not checked)
torch.set_num_threads(1)
torch.manual_seed(1)
fm = ck.FactoryModel(ck.load_factory(FACTORY + ":make"))
fm.step()
first = ck.measure(fm.step, model=fm.model, optimizer=fm.opt, inputs=fm.inputs)[0]
wraps = rows[1]["wraps"] if len(rows) == 3 else [["2"]]
peak, sec = rematsim_torch.measure_fresh(FACTORY + ":make", wraps, repeat=1)
check(len(rows) == 3 and peak == rows[1]["measured_peak"] and sec > 0,
      "measure_fresh: %d bytes in a process of its own, as the command measured" % peak)
check(len(rows) == 3 and first == rows[0]["measured_peak"],
      "this process's first measurement is the command's for no plan (%d)" % first)

# (model, inputs) alone: recorded here (no profiler), measured in a process of its own
torch.manual_seed(1)
plain = ck.FactoryModel(ck.load_factory(FACTORY + ":make_plain"))
none = rematsim_torch.suggest(plain.model, plain.step, inputs=plain.inputs, k=[])[0]
peak = rematsim_torch.measure_fresh(FACTORY + ":make_plain", [], repeat=1)[0]
check(abs(none.predicted_peak - peak) <= TOLERANCE * peak,
      "(model, inputs) alone, no optimizer, the output's sum: predicted %d, measured %d"
      % (none.predicted_peak, peak))


def status(*args):
    try:
        return main(["checkpoint", "-k", "1"] + list(args))
    except SystemExit as e:
        return e.code


for args, want, what in (
        (["--factory", FACTORY], 64, "not MODULE:FUNCTION"),
        (["--factory", "no_such_module_here:make"], 64, "a module that does not import"),
        (["--factory", FACTORY + ":nothing"], 64, "no such function"),
        (["--factory", os.path.join(HERE, "nope.py") + ":make"], 64, "no such file"),
        (["--factory", FACTORY + ":make_wrong"], 65, "a factory returning a string"),
        (["--factory", FACTORY + ":make_raises"], 70, "a factory that raises"),
        (["--factory", FACTORY + ":make", "--model", "mlp"], 64, "--model and --factory"),
        ([], 64, "neither --model nor --factory")):
    got = status(*args)
    check(got == want, "%s: exit %s (want %d)" % (what, got, want))
sys.exit(fail)
