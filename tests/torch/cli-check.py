"""cli-check.py: `python3 -m rematsim_torch record` from the outside: a
recording that works (log, meta file, `rematsim check`, replay peaks), and
each documented exit status with its message and no file left behind.
On a machine whose torch has CUDA it also records on the GPU; elsewhere
that part says it is skipped."""

import json
import os
import subprocess
import sys

import torch

OUT = os.path.join(os.environ.get("TEST_DIR", "/tmp/rematsim-torch-test"), "cli")
REMATSIM = os.environ.get("REMATSIM")
failures = []


def run(*args):
    return subprocess.run([sys.executable, "-m", "rematsim_torch", "record"] + list(args),
                          capture_output=True, text=True)


def left(prefix):
    return sorted(f for f in os.listdir(OUT) if f.startswith(prefix))


def check(name, ok, detail=""):
    print("%s %s%s" % ("ok" if ok else "FAIL", name, "" if ok else ": " + detail))
    if not ok:
        failures.append(name)


def recorded(device):
    out = os.path.join(OUT, "mlp-%s.log.gz" % device)
    r = run("--model", "mlp", "--batch", "4", "--device", device, "--out", out)
    if r.returncode:
        return check("record mlp on %s" % device, False, r.stderr)
    meta = json.load(open(os.path.join(OUT, "mlp-%s.meta.json" % device)))
    need = ("device", "device_name", "torch_version", "argv", "seed", "sizes", "loss",
            "peak_live_bytes", "baseline_memory", "records", "calls", "time_unit", "clock")
    missing = [k for k in need if k not in meta]
    problems = ["meta lacks %s" % missing] if missing else []
    if meta.get("device") != device.split(":")[0]:
        problems.append("meta device %s" % meta.get("device"))
    if REMATSIM:
        c = subprocess.run([REMATSIM, "check", out], capture_output=True, text=True)
        if c.returncode:
            problems.append("rematsim check: " + c.stdout + c.stderr)
        else:
            j = json.loads(subprocess.run(
                [REMATSIM, "replay", out, "--heuristic", "DTR", "--budget",
                 "1000000000000000", "--json"], capture_output=True, text=True).stdout)
            if (j["peak_memory"], j["baseline_memory"]) != (meta["peak_live_bytes"],
                                                            meta["baseline_memory"]):
                problems.append("replay %d/%d, meta %d/%d" % (
                    j["peak_memory"], j["baseline_memory"], meta["peak_live_bytes"],
                    meta["baseline_memory"]))
    check("record mlp on %s (%s)" % (device, r.stdout.strip()), not problems, "; ".join(problems))


def status(name, want, args, message, prefix="bad"):
    r = run(*args)
    ok = r.returncode == want and message in r.stderr and not left(prefix)
    check("%s: exit %d" % (name, want), ok,
          "exit %d, stderr %r, left %s" % (r.returncode, r.stderr[-300:], left(prefix)))


os.makedirs(OUT, exist_ok=True)
bad = os.path.join(OUT, "bad.log.gz")
recorded("cpu")
if torch.cuda.is_available():
    recorded("cuda")
else:
    print("skipped: record mlp on cuda (this torch %s has no CUDA)" % torch.__version__)
    status("--device cuda without CUDA", 69, ["--model", "mlp", "--device", "cuda",
                                              "--out", bad], "has no CUDA device")
status("unknown model", 64, ["--model", "resnet", "--out", bad], "unknown model 'resnet'")
status("unknown torchvision model", 64, ["--model", "torchvision:resnet51", "--out", bad],
       "torchvision:resnet51 is not a torchvision model")
status("torchvision model that is no classifier", 64,
       ["--model", "torchvision:fcn_resnet50", "--out", bad], "is not a classification model")
status("bad batch", 64, ["--model", "mlp", "--batch", "0", "--out", bad], "must be at least 1")
status("no --out", 64, ["--model", "mlp"], "--out")
status("unwritable output", 73, ["--model", "mlp", "--out", os.path.join(OUT, "no", "x.log")],
       "cannot create the log", prefix="no")
# 16-pixel images leave 1x1 maps by ResNet's last stage: with a batch of
# one, batch norm in training has one value per channel and raises.
status("training step that raises", 70,
       ["--model", "torchvision:resnet18", "--batch", "1", "--image", "16", "--out", bad],
       "the training step of torchvision:resnet18 raised ValueError: Expected more than 1 value")
if failures:
    print("%d failed" % len(failures))
    sys.exit(1)
