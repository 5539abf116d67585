"""api-check.py: rematsim_torch.api (issue 44): replay, fit and peak from
Python give the rows of `rematsim COMMAND --json` run by hand on a shipped
log, value for value (wall_ms aside); the binary found by argument,
REMATSIM or PATH, and a clear error where none is; failures raised with
rematsim's status and message; paths passed as one argument each, never
through a shell; pandas DataFrames with as_frame=True where pandas is
importable (else an ImportError naming pandas); torch never imported."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

from rematsim_torch import api

fail = 0
R = os.environ["REMATSIM"]
LOG = os.path.join(os.environ["REMATSIM_SOURCE"], "logs", "mlp-cpu.log.gz")


def check(cond, what):
    global fail
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        fail = 1


def cli(*args):
    r = subprocess.run([R] + list(args) + ["--json"], capture_output=True, text=True)
    assert r.returncode == 0, (args, r.stderr)
    return [json.loads(line) for line in r.stdout.splitlines() if line.strip()]


def same(a, b, drop=("wall_ms",)):
    strip = lambda rows: [{k: v for k, v in r.items() if k not in drop} for r in rows]
    return strip(a) == strip(b)


def raises(exc, f, *a, **k):
    try:
        f(*a, **k)
    except exc as e:
        return e
    return None


# replay: heuristics x budgets, in the CLI's order; a failed run's overhead None
got = api.replay(LOG, heuristic=["DTR", "LRU"], ratio=[0.5, 0.8])
want = cli("replay", LOG, "--heuristic", "DTR,LRU", "--ratio", "0.5,0.8")
check(len(got) == 4 and same(got, want), "replay: 4 rows equal to the CLI's JSON")
check(got[0]["outcome"] == "oom" and got[0]["overhead"] is None and got[1]["outcome"] == "pass"
      and got[1]["overhead"] > 1, "replay: an oom run's overhead is None, a pass's %s" % got[1]["overhead"])
got = api.replay(LOG, heuristic="DTREqClass", budget=[5e7, "60MB"], seed=3, overhead_limit=3)
want = cli("replay", LOG, "--heuristic", "DTREqClass", "--budget", "50000000.0,60MB", "--seed", "3",
           "--overhead-limit", "3")
check(len(got) == 2 and same(got, want) and got[1]["budget"] == 60000000,
      "replay: budgets in bytes and as text, seed and overhead limit passed")

# fit: one row per heuristic, probes dropped unless asked for
got = api.fit(LOG, heuristic=["DTR", "LRU"])
want = cli("fit", LOG, "--heuristic", "DTR") + cli("fit", LOG, "--heuristic", "LRU")
check(len(got) == 2 and same(got, want, ("wall_ms", "probes")) and "probes" not in got[0],
      "fit: DTR %s, LRU %s bytes, as the CLI" % (got[0]["smallest_pass"], got[1]["smallest_pass"]))
got = api.fit(LOG, heuristic="DTR", resolution=0.05, probes=True)
want = cli("fit", LOG, "--heuristic", "DTR", "--resolution", "0.05")
check(same(got, want) and len(got[0]["probes"]) == len(want[0]["probes"]) > 0,
      "fit: resolution passed, probes kept (%d)" % len(got[0]["probes"]))

# peak: the unbounded baseline, and a budgeted replay
got = api.peak(LOG, top=3)
want = cli("peak", LOG, "--top", "3")
check(len(got) == 1 and same(got, want) and got[0]["peak_memory"] == 72500304
      and len(got[0]["live"]) == 3, "peak: the baseline's 72500304 bytes and 3 live storages")
got = api.peak(LOG, heuristic="DTR", ratio=0.8)
want = cli("peak", LOG, "--heuristic", "DTR", "--ratio", "0.8")
check(same(got, want) and got[0]["heuristic"] == "DTR", "peak: under DTR at 0.8, as the CLI")

# wrong calls
e = raises(api.RematsimError, api.replay, LOG, heuristic="DTRX", ratio=0.5)
check(e is not None and e.status == 64 and "unknown heuristic 'DTRX'" in str(e),
      "an unknown heuristic: RematsimError 64, %s" % e)
e = raises(api.RematsimError, api.fit, "/nonexistent/x.log")
check(e is not None and e.status == 66 and "x.log" in str(e), "a missing log: RematsimError 66")
check(raises(ValueError, api.replay, LOG, ratio=0.5, budget=1e6) is not None,
      "replay with ratio and budget: ValueError")
check(raises(ValueError, api.replay, LOG) is not None, "replay with no budget: ValueError")
check(raises(ValueError, api.peak, LOG, ratio=0.5) is not None, "peak: a budget with no heuristic")

tmp = tempfile.mkdtemp()
try:
    # one argument each, no shell: a log named with a shell's metacharacters,
    # and one beginning with '-'
    odd = os.path.join(tmp, "a b;$(touch pwned)'.log.gz")
    shutil.copy(LOG, odd)
    got = api.replay(odd, ratio=0.8)
    check(len(got) == 1 and got[0]["log"] == os.path.basename(odd)
          and not os.path.exists(os.path.join(tmp, "pwned"))
          and not os.path.exists("pwned"), "a path with ; $( ) ' and a space: one argument")
    shutil.copy(LOG, os.path.join(tmp, "-mlp.log.gz"))
    cwd = os.getcwd()
    os.chdir(tmp)
    try:
        got = api.peak("-mlp.log.gz")
    finally:
        os.chdir(cwd)
    check(got[0]["peak_memory"] == 72500304, "a log named -mlp.log.gz is not an option")

    # the binary: argument, REMATSIM, PATH; none
    env_r = os.environ.pop("REMATSIM")
    path = os.environ.get("PATH", "")
    try:
        os.environ["PATH"] = tmp
        e = raises(api.RematsimNotFound, api.replay, LOG, ratio=0.5)
        check(e is not None and "REMATSIM" in str(e) and "PATH" in str(e),
              "no binary anywhere: RematsimNotFound saying how to give one: %s" % e)
        check(len(api.replay(LOG, ratio=0.5, rematsim=env_r)) == 1, "the binary by argument")
        e = raises(api.RematsimNotFound, api.replay, LOG, ratio=0.5, rematsim=tmp + "/nothing")
        check(e is not None and "nothing" in str(e), "a wrong binary by argument: %s" % e)
        os.symlink(env_r, os.path.join(tmp, "rematsim"))
        check(api.find_rematsim() == os.path.join(tmp, "rematsim")
              and len(api.replay(LOG, ratio=0.5)) == 1, "the binary on PATH")
        os.environ["REMATSIM"] = env_r
        check(api.find_rematsim() == env_r, "REMATSIM before PATH")
    finally:
        os.environ["REMATSIM"] = env_r
        os.environ["PATH"] = path
finally:
    shutil.rmtree(tmp)

# pandas
try:
    import pandas
except ImportError:
    pandas = None
if pandas is not None:
    df = api.replay(LOG, heuristic="DTR", ratio=[0.5, 0.8], as_frame=True)
    rows = api.replay(LOG, heuristic="DTR", ratio=[0.5, 0.8])
    check(list(df["budget"]) == [r["budget"] for r in rows] and pandas.isna(df["overhead"][0])
          and df["overhead"][1] == rows[1]["overhead"], "as_frame: a DataFrame, the oom run's overhead NaN")
else:
    e = raises(ImportError, api.replay, LOG, ratio=0.5, as_frame=True)
    check(e is not None and "pandas" in str(e), "as_frame without pandas: ImportError naming pandas")

# the API imports no torch
r = subprocess.run([sys.executable, "-c", "import sys, rematsim_torch; rematsim_torch.replay; "
                    "print('torch' in sys.modules)"], capture_output=True, text=True)
check(r.stdout.strip() == "False", "rematsim_torch.replay imports no torch: %s%s"
      % (r.stdout.strip(), r.stderr.strip()[-200:]))
sys.exit(fail)
