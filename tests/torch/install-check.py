"""install-check.py: rematsim_torch as a package (issue 44): which torch
versions the recorder takes (1.13; older refused, newer warned), and
`pip install ./recorders/torch` into a fresh virtual environment (system
site packages, no build isolation: Debian's setuptools), importable and
runnable from outside the source tree, its Python API (rematsim_torch.api)
included. The install part is skipped (said
so) where venv or pip is missing."""

import os
import shutil
import subprocess
import sys
import tempfile

from rematsim_torch import recorder

fail = 0


def check(cond, what):
    global fail
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        fail = 1


v = recorder.torch_version_problem
check(v("1.13.1") == (None, None), "torch 1.13.1: recorded")
check(v("1.13.0a0+gitunknown") == (None, None), "Debian's 1.13.0a0+gitunknown: recorded")
k, m = v("1.12.1")
check(k == "refuse" and "1.13" in m and "1.12.1" in m, "torch 1.12.1 refused: %s" % m)
k, m = v("2.1.0+cu118")
check(k == "warn" and "2.1.0+cu118" in m, "torch 2.1.0 warned: %s" % m)
check(v("garbage")[0] == "warn", "an unreadable version: warned")

src = os.path.join(os.environ["REMATSIM_SOURCE"], "recorders", "torch")
tmp = tempfile.mkdtemp()
try:
    env_dir = os.path.join(tmp, "venv")
    r = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", env_dir],
                       capture_output=True, text=True)
    py = os.path.join(env_dir, "bin", "python")
    if r.returncode or subprocess.run([py, "-m", "pip", "--version"],
                                      capture_output=True).returncode:
        print("# skipped the install: no venv with pip here (%s)" % r.stderr.strip()[-200:])
    else:
        copy = os.path.join(tmp, "src")  # pip builds in place: not in the source tree
        shutil.copytree(src, copy, ignore=shutil.ignore_patterns("build", "*.egg-info",
                                                                  "__pycache__"))
        r = subprocess.run([py, "-m", "pip", "install", "--no-build-isolation", "--no-index",
                            "--no-deps", copy], capture_output=True, text=True)
        check(r.returncode == 0, "pip install ./recorders/torch: exit %d %s"
              % (r.returncode, r.stderr.strip()[-300:]))
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)  # the installed copy, not the source tree
        r = subprocess.run([py, "-c", "import rematsim_torch, sys; "
                            "print(rematsim_torch.__file__, rematsim_torch.__version__)"],
                           capture_output=True, text=True, cwd=tmp, env=env)
        check(r.returncode == 0 and env_dir in r.stdout,
              "imported from the environment: %s%s" % (r.stdout.strip(), r.stderr.strip()[-300:]))
        r = subprocess.run([py, "-c", "import rematsim_torch, sys; print(rematsim_torch.replay("
                            "sys.argv[1], ratio=0.8, rematsim=sys.argv[2])[0]['outcome'], "
                            "rematsim_torch.api.__file__)",
                            os.path.join(os.environ["REMATSIM_SOURCE"], "logs", "mlp-cpu.log.gz"),
                            os.environ["REMATSIM"]], capture_output=True, text=True, cwd=tmp, env=env)
        check(r.returncode == 0 and r.stdout.startswith("pass ") and env_dir in r.stdout,
              "the installed API (rematsim_torch.replay): %s%s" % (r.stdout.strip(),
                                                                 r.stderr.strip()[-300:]))
        exe = os.path.join(env_dir, "bin", "rematsim-torch")
        r = subprocess.run([exe, "record", "--help"], capture_output=True, text=True, cwd=tmp,
                           env=env)
        check(r.returncode == 0 and "--model" in r.stdout,
              "the rematsim-torch command: record --help exit %d" % r.returncode)
finally:
    shutil.rmtree(tmp)
sys.exit(fail)
