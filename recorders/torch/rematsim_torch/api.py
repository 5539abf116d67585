"""rematsim from Python: replay, fit and peak as rows (issue 44).

    from rematsim_torch import api
    rows = api.replay("logs/mlp-cpu.log.gz", heuristic="DTR", ratio=[0.5, 0.8])
    rows[1]["overhead"]                      # None where the run did not pass
    best = api.fit("logs/mlp-cpu.log.gz", heuristic=["DTR", "LRU"])
    top = api.peak("logs/mlp-cpu.log.gz")[0]["live"]
    df = api.replay(LOG, heuristic="DTR", ratio=0.5, as_frame=True)   # pandas

Each call runs the built `rematsim` binary with `--json` (a list of
arguments, never a shell) and gives its JSON objects as they are, one dict
per line: the fields are those of `rematsim replay|fit|peak --json`
(`rematsim COMMAND --help`), `null` read as None. With
as_frame=True the rows are a pandas DataFrame (pandas must be importable;
None becomes NaN in numeric columns). Nothing here imports torch.

The binary: the `rematsim` argument, else the environment variable
REMATSIM, else `rematsim` on PATH; RematsimNotFound says which were tried.
A command that fails raises RematsimError with its exit status (64 usage,
65 data, 66 missing input, ...) and what it printed on stderr.
"""

import json
import os
import shutil
import subprocess

__all__ = ["replay", "fit", "peak", "find_rematsim", "RematsimError", "RematsimNotFound"]


class RematsimNotFound(FileNotFoundError):
    """No rematsim binary where the argument, REMATSIM or PATH point."""


class RematsimError(RuntimeError):
    """rematsim exited non-zero: .status, .stderr, .args_run (the argument list)."""

    def __init__(self, status, stderr, args_run):
        self.status = status
        self.stderr = stderr
        self.args_run = args_run
        msg = stderr.strip() or "no message"
        super().__init__("rematsim %s exited %d: %s" % (args_run[1] if len(args_run) > 1 else "",
                                                        status, msg))


def find_rematsim(rematsim=None, source_tree=False):
    """The rematsim executable to run: rematsim (a path), else $REMATSIM,
    else (source_tree: the recorder is run from a rematsim checkout) the
    checkout's build/rematsim, else `rematsim` on PATH. Raises
    RematsimNotFound."""
    tried = []
    for how, path in (("the rematsim argument", rematsim),
                      ("REMATSIM", os.environ.get("REMATSIM"))):
        if path is None or path == "":
            continue
        path = os.fspath(path)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
        tried.append("%s (%s): %s" % (how, path, "not executable" if os.path.exists(path)
                                      else "no such file"))
        if how == "the rematsim argument":
            # an explicit path that is wrong is an error, not a cue to look elsewhere
            raise RematsimNotFound("no rematsim binary at %s: %s" % (path, tried[-1]))
    if source_tree:
        here = os.path.dirname(os.path.abspath(__file__))
        built = os.path.normpath(os.path.join(here, "..", "..", "..", "build", "rematsim"))
        if os.path.isfile(built) and os.access(built, os.X_OK):
            return built
        tried.append("this checkout's build/rematsim")
    found = shutil.which("rematsim")
    if found:
        return found
    tried.append("PATH: no rematsim")
    raise RematsimNotFound("no rematsim binary (tried %s): build it (meson setup build && "
                           "meson compile -C build gives build/rematsim) and pass rematsim=PATH, "
                           "set REMATSIM=PATH, or put its folder on PATH" % "; ".join(tried))


def _list(x):
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def _csv(values):
    out = []
    for v in _list(values):
        if isinstance(v, bool) or not isinstance(v, (int, float, str)):
            raise TypeError("a budget or ratio is a number or a string like '6GiB', not %r" % (v,))
        out.append(repr(v) if isinstance(v, float) else str(v))
    return ",".join(out)


def _log_arg(log):
    log = os.fspath(log)
    if not log:
        raise ValueError("log: an empty path")
    return log


def _budget_args(ratio, budget, required):
    if ratio is not None and budget is not None:
        raise ValueError("give ratio= or budget=, not both")
    if ratio is not None:
        return ["--ratio", _csv(ratio)]
    if budget is not None:
        return ["--budget", _csv(budget)]
    if required:
        raise ValueError("give ratio= (fractions of the baseline peak) or budget= (bytes)")
    return []


def _common(runtime, overhead_limit, seed, extra_args):
    args = []
    if runtime is not None:
        args += ["--runtime", str(runtime)]
    if overhead_limit is not None:
        args += ["--overhead-limit", str(overhead_limit)]
    if seed is not None:
        args += ["--seed", str(int(seed))]
    for a in extra_args or ():
        if not isinstance(a, str):
            raise TypeError("extra_args: strings, not %r" % (a,))
        args.append(a)
    return args


def _run(rematsim, command, options, log):
    exe = find_rematsim(rematsim)
    argv = [exe, command] + options + ["--json", "--", _log_arg(log)]
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       shell=False)
    if r.returncode:
        raise RematsimError(r.returncode, r.stderr, argv)
    rows = []
    for n, line in enumerate(r.stdout.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except ValueError as e:
            raise RematsimError(70, "line %d of its output is not JSON (%s): %.200s"
                                % (n, e, line), argv)
    return rows


def _frame(rows, as_frame):
    if not as_frame:
        return rows
    try:
        import pandas
    except ImportError as e:
        raise ImportError("as_frame=True needs pandas (Debian: python3-pandas; pip install "
                          "pandas); without it the rows are a list of dicts") from e
    return pandas.DataFrame(rows)


def replay(log, heuristic="DTR", ratio=None, budget=None, *, runtime=None, overhead_limit=None,
           seed=None, extra_args=(), rematsim=None, as_frame=False):
    """`rematsim replay LOG --heuristic H --ratio X|--budget B --json`: one
    row per (heuristic, budget), in that order. heuristic: a name or a list;
    ratio (fractions of the baseline peak) or budget (bytes, or text such
    as '6GiB'): one or a list. extra_args: more of replay's options, each
    its own string (['--offload-bandwidth', '25GB/s'])."""
    opts = ["--heuristic", ",".join(str(h) for h in _list(heuristic))]
    opts += _budget_args(ratio, budget, True)
    opts += _common(runtime, overhead_limit, seed, extra_args)
    return _frame(_run(rematsim, "replay", opts, log), as_frame)


def fit(log, heuristic="DTR", *, resolution=None, runtime=None, overhead_limit=None, seed=None,
        probes=False, extra_args=(), rematsim=None, as_frame=False):
    """`rematsim fit LOG --heuristic H --json`: the smallest passing budget,
    one row per heuristic (a name or a list: fit runs once for each).
    probes=True keeps each row's list of probes ("probes")."""
    rows = []
    for h in _list(heuristic):
        opts = ["--heuristic", str(h)]
        if resolution is not None:
            opts += ["--resolution", str(resolution)]
        opts += _common(runtime, overhead_limit, seed, extra_args)
        got = _run(rematsim, "fit", opts, log)
        if not probes:
            for row in got:
                row.pop("probes", None)
        rows += got
    return _frame(rows, as_frame)


def peak(log, heuristic=None, ratio=None, budget=None, *, top=None, runtime=None,
         overhead_limit=None, seed=None, extra_args=(), rematsim=None, as_frame=False):
    """`rematsim peak LOG [--heuristic H --ratio X|--budget B] --json`: the
    moment memory peaks, as one row (peak_memory, the op, by_kind, by_op and
    the storages live then, "live"); with no heuristic, the unbounded
    baseline. top: how many live storages (rematsim's default otherwise)."""
    opts = []
    if heuristic is not None:
        opts += ["--heuristic", str(heuristic)]
        b = _budget_args(ratio, budget, True)
        if len(b[1].split(",")) != 1:
            raise ValueError("peak takes one budget")
        opts += b
    elif ratio is not None or budget is not None:
        raise ValueError("a budget needs heuristic= (with none, the unbounded baseline)")
    if top is not None:
        opts += ["--top", str(int(top))]
    opts += _common(runtime, overhead_limit, seed, extra_args)
    return _frame(_run(rematsim, "peak", opts, log), as_frame)
