"""cli-check.py: `python3 -m rematsim_torch record` from the outside: a
recording that works (log, meta file, `rematsim check`, replay peaks), and
each documented exit status with its message and no file left behind.
On a machine whose torch has CUDA it also records on the GPU; elsewhere
that part says it is skipped."""

import json
import os
import shutil
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
        # the summary's predicted reserved peak is info's (issue 42)
        info = json.loads(subprocess.run([REMATSIM, "info", "--json", out],
                                         capture_output=True, text=True).stdout)
        want = "predicted reserved peak %d bytes" % info["reserved_peak"]
        if want not in r.stdout:
            problems.append("summary lacks '%s': %s" % (want, r.stdout))
    check("record mlp on %s (%s)" % (device, r.stdout.strip()), not problems, "; ".join(problems))


def status(name, want, args, message, prefix="bad"):
    r = run(*args)
    ok = r.returncode == want and message in r.stderr and not left(prefix)
    check("%s: exit %d" % (name, want), ok,
          "exit %d, stderr %r, left %s" % (r.returncode, r.stderr[-300:], left(prefix)))


# A clean folder: the exit-status cases check that nothing is left in it.
shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)
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
status("unwritable output", 73, ["--model", "mlp", "--out", os.path.join(OUT, "missing", "x.log")],
       "cannot create the log", prefix="missing")
# 16-pixel images leave 1x1 maps by ResNet's last stage: with a batch of
# one, batch norm in training has one value per channel and raises.
status("training step that raises", 70,
       ["--model", "torchvision:resnet18", "--batch", "1", "--image", "16", "--out", bad],
       "the training step of torchvision:resnet18 raised ValueError: Expected more than 1 value")

# Outputs: the log and its meta file are written under temporary names and
# renamed into place, so neither may be a folder, a device, a FIFO,
# /dev/stdout or a symbolic link (renaming would replace it, or the link
# and not its target); checked before any work: the training step of this
# model raises (70) if it is reached.
SLOW = ["--model", "torchvision:resnet18", "--batch", "1", "--image", "16"]


def refused_output(name, out, message, still):
    r = run(*SLOW, "--out", out)
    ok = r.returncode == 73 and message in r.stderr and not r.stdout and still()
    check("%s: exit 73 before any work" % name, ok, "exit %d, stderr %r" % (r.returncode,
                                                                            r.stderr[-300:]))


os.makedirs(os.path.join(OUT, "adir"), exist_ok=True)
refused_output("--out a folder", os.path.join(OUT, "adir"), "is a folder",
               lambda: os.path.isdir(os.path.join(OUT, "adir")))
refused_output("--out /dev/null", "/dev/null", "not a regular file",
               lambda: os.path.exists("/dev/null") and not os.path.isfile("/dev/null"))
refused_output("--out /dev/stdout", "/dev/stdout", "/dev/stdout: is a symbolic link",
               lambda: True)
fifo = os.path.join(OUT, "fifo.log")
if not os.path.exists(fifo):
    os.mkfifo(fifo)
import stat  # noqa: E402
refused_output("--out a FIFO", fifo, "not a regular file",
               lambda: stat.S_ISFIFO(os.lstat(fifo).st_mode))
target = os.path.join(OUT, "target.log")
with open(target, "w") as f:
    f.write("keep\n")
link = os.path.join(OUT, "link.log")
if not os.path.lexists(link):
    os.symlink(target, link)
refused_output("--out a symbolic link to a file", link, "is a symbolic link",
               lambda: os.path.islink(link) and open(target).read() == "keep\n")
os.makedirs(os.path.join(OUT, "metadir.meta.json"), exist_ok=True)
refused_output("a meta file's name that is a folder", os.path.join(OUT, "metadir.log.gz"),
               "metadir.meta.json: cannot write: is a folder",
               lambda: not os.path.exists(os.path.join(OUT, "metadir.log.gz")))
status("--lr nan", 64, ["--model", "mlp", "--lr", "nan", "--out", bad], "'nan' is not a finite")
status("--lr -1", 64, ["--model", "mlp", "--lr", "-1", "--out", bad], "is not a finite number > 0")
status("--momentum 1.5", 64, ["--model", "mlp", "--momentum", "1.5", "--out", bad],
       "'1.5' is not a finite number >= 0 and < 1")
status("--seed -1", 64, ["--model", "mlp", "--seed", "-1", "--out", bad],
       "'-1' is outside 0 .. 2^63-1")

# A Python without torch (-S: no site-packages, where Debian's torch is):
# 69, naming the interpreter.
r = subprocess.run([sys.executable, "-S", "-m", "rematsim_torch", "record", "--model", "mlp",
                    "--out", bad], capture_output=True, text=True)
check("a Python without torch: exit 69 naming it", r.returncode == 69
      and "this Python (%s" % sys.executable in r.stderr and "has no torch" in r.stderr
      and "Traceback" not in r.stderr and not left("bad"), "exit %d, %r" % (r.returncode,
                                                                          r.stderr[-400:]))
r = subprocess.run([sys.executable, "-S", "-m", "rematsim_torch", "checkpoint", "--model", "mlp",
                    "-k", "1"], capture_output=True, text=True)
check("checkpoint with a Python without torch: exit 69", r.returncode == 69
      and "has no torch" in r.stderr, "exit %d, %r" % (r.returncode, r.stderr[-400:]))

# Issue 40, H13: sizes past what torch can take are refused before torch
# is imported (--threads 100000 made a process that ignored SIGTERM and
# SIGINT; a huge --layers crashed under a memory cap): 64, or 71 when the
# parameters cannot fit the memory this process may have.
def status_fast(name, want, args, message, limit=None):
    def cap():
        if limit:
            import resource
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        r = subprocess.run([sys.executable, "-m", "rematsim_torch", "record"] + args,
                           capture_output=True, text=True, timeout=60, preexec_fn=cap)
    except subprocess.TimeoutExpired:
        return check(name, False, "no answer in 60 s")
    check("%s: exit %d" % (name, want), r.returncode == want and message in r.stderr
          and "Traceback" not in r.stderr and not left("bad"),
          "exit %d, stderr %r" % (r.returncode, r.stderr[-300:]))


status_fast("H13: --threads 100000", 64, ["--model", "mlp", "--threads", "100000", "--out", bad],
            "'100000' is more than")
status_fast("H13: --layers 10^9", 64, ["--model", "gpt2", "--layers", "1000000000", "--out", bad],
            "the largest --layers taken")
status_fast("H13: --width 65537", 64, ["--model", "mlp", "--width", "65537", "--out", bad],
            "the largest --width taken")
status_fast("H13: gpt2 too large for a 2 GB cap", 71,
            ["--model", "gpt2", "--layers", "2000", "--width", "4096", "--out", bad],
            "more than the 2.15 GB this process may have", limit=2 ** 31)

# Issue 40, H16: a long --out. A 249-byte name (its meta file 255 bytes)
# is recorded: its temporary names are cut to fit; one whose meta file
# would pass NAME_MAX is refused before any work (73).
long_out = os.path.join(OUT, "l" * 245 + ".log")
r = run("--model", "mlp", "--batch", "2", "--out", long_out)
check("H16: --out a name of 249 bytes", r.returncode == 0 and os.path.isfile(long_out)
      and os.path.isfile(os.path.join(OUT, "l" * 245 + ".meta.json")),
      "exit %d, %r" % (r.returncode, r.stderr[-300:]))
refused_output("H16: --out a name whose meta file passes NAME_MAX",
               os.path.join(OUT, "m" * 248 + ".log"), "more than the 255 this file system takes",
               lambda: not [f for f in os.listdir(OUT) if f.startswith("mmmm")])

# --no-step: forward, loss and backward only; the floor is then the
# parameters, their gradients and the batch.
out = os.path.join(OUT, "nostep.log.gz")
r = run("--model", "mlp", "--batch", "4", "--no-step", "--out", out)
meta = json.load(open(os.path.join(OUT, "nostep.meta.json"))) if not r.returncode else {}
check("record --no-step", not r.returncode and "optimizer.step" not in meta.get("step", "x")
      and meta.get("floor_memory") == 2 * meta.get("parameter_bytes", -1) + 4 * 64 * 4 + 4 * 8,
      "exit %d %s %s" % (r.returncode, r.stderr[-300:], {k: meta.get(k) for k in (
          "step", "floor_memory", "parameter_bytes")}))
if failures:
    print("%d failed" % len(failures))
    sys.exit(1)
