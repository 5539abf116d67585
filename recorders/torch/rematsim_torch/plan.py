"""plan.py: `python3 -m rematsim_torch plan`: will a training step fit on a
named GPU, and if not, what is the cheapest way to make it fit?

It records one step of the model under fake tensors with the device's time
model (record --fake --time-model), then asks rematsim:

- the peak without checkpointing and the floor (weights, gradients,
  optimizer state: what any schedule holds at the end), from the log;
- module checkpointing: `rematsim solve LOG --planner dp --budget MEMORY
  --modules`: the fewest checkpoints on module boundaries whose replayed
  peak fits, the modules to wrap, and the recomputation's overhead;
- DTR: `rematsim replay LOG --heuristic DTR --budget MEMORY` (evict and
  recompute at run time);
- offload: the same replay with the device's host link
  (--offload-bandwidth, --offload-policy swap: every victim goes to the
  host and comes back, never recomputed), and with the cost policy
  (offload or recompute, whichever is cheaper);
- a figure (SVG): DTR's overhead against the memory budget, from the
  floor to the peak, with the device's memory marked.

Overheads are step-time ratios under the time model: (model compute +
recomputation + copy stalls) / model compute. docs/llm.md.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

PLAN_EPILOG = """
The model and step are record's (--model llama-7b, --config FILE, --dtype,
--optimizer, --batch, --seq, --checkpoint-blocks ...): see `record --help`.
The recording is fake (no memory, no kernel: any size on this CPU) and
timed by --device's roofline (timemodel.py; --calibration FILE).

Output: the step time, the peak without checkpointing, the floor
(weights + gradients + optimizer state + batch, what any schedule holds
at the end), whether the step fits in --memory and by how much, and the
ways to fit with their predicted step-time overhead: module checkpointing
(the modules to wrap with torch.utils.checkpoint), DTR, offload over the
device's host link. --json: one JSON object. --figure FILE.svg: DTR's
overhead against memory with the device's memory marked.

exit statuses:
  0   success (whether or not it fits: the answer says)
  64  bad command line, unknown device (the nearest is named), unknown model
  65  the floor alone exceeds --memory (the message says by how much): no
      schedule fits; or a config.json that cannot shape a decoder
  66  --config FILE missing
  69  rematsim is not built (./scripts/setup), or this Python has no torch
  70  the model or its step raised under fake tensors (the op and module named)
  73  --log or --figure cannot be created
"""


def add_parser(sub, parser_class):
    import argparse
    from .__main__ import _byte_list, _model_args
    p = sub.add_parser("plan", help="will a training step fit on a GPU, and how to make it",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog=PLAN_EPILOG,
                       description="Record a step under fake tensors, timed for --device, "
                                   "and answer: does it fit in --memory, and what is the "
                                   "cheapest checkpointing, DTR or offload that makes it fit.",
                       conflict_handler="resolve")
    _model_args(p)
    p.set_defaults(batch=1, optimizer="adamw", dtype="bfloat16", fake=True)
    p.add_argument("--device", required=True,
                   help="the GPU: h100-sxm, h100-pcie, h200, a100-40gb, a100-80gb, l4")
    p.add_argument("--memory", type=_byte_list, metavar="BYTES",
                   help="the device memory the step may use (80GB, 75GiB; default the "
                        "device's)")
    p.add_argument("--log", metavar="FILE", help="keep the recorded log there")
    p.add_argument("--figure", metavar="FILE.svg", help="write the overhead figure there")
    p.add_argument("--json", action="store_true", help="the answer as one JSON object")
    p.add_argument("--rematsim", metavar="PATH", help="the rematsim executable")
    p.add_argument("--points", type=int, default=10,
                   help="budgets in the figure's DTR curve (10)")


def _gb(b):
    return "%.1f GB" % (b / 1e9)


def _run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr.strip()


def _replay(rematsim, log, budgets, extra=()):
    cmd = [rematsim, "replay", log, "--heuristic", "DTR", "--budget",
           ",".join(str(int(b)) for b in budgets), "--json", "--overhead-limit", "inf"]
    rc, out, err = _run(cmd + list(extra))
    if rc:
        return None, err
    return [json.loads(l) for l in out.splitlines() if l.strip()], None


def _overhead(r):
    if r is None or r.get("outcome") != "pass":
        return None
    return r.get("overhead")


def run(a, argv):
    from .__main__ import (UNAVAILABLE_EXIT, CANTCREAT_EXIT, _fail,
                           _import_torch, _record_llm, _check_model_name)
    from . import timemodel, checkpoint as ck
    from .oplog import check_output
    try:
        key, dev = timemodel.device(a.device)
    except timemodel.TimeModelError as e:
        return _fail(e.status, "--device: %s" % e)
    memory = a.memory[0] if a.memory else int(dev["memory"])
    rc = _check_model_name(a)
    if rc:
        return rc
    for f in (a.log, a.figure):
        if f:
            err = check_output(f) if f == a.log else _check_plain(f)
            if err:
                return _fail(CANTCREAT_EXIT, err)
    try:
        rematsim = ck.find_rematsim(a.rematsim)
    except ck.CheckpointError as e:
        return _fail(e.status, str(e))
    torch = _import_torch()
    if torch is None:
        return UNAVAILABLE_EXIT
    tmpdir = tempfile.mkdtemp(prefix="rematsim-plan-")
    try:
        log = a.log or os.path.join(tmpdir, "step.log.gz")
        rec_a = _record_args(a, key, log)
        import contextlib
        import io
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = _record_llm(torch, rec_a, ["record"] + _argv_for_record(argv))
        if rc:
            return rc
        with open(_meta_path(log)) as f:
            meta = json.load(f)
        return _answer(a, key, dev, memory, log, meta, rematsim)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def _check_plain(path):
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d):
        return "%s: cannot create: no folder %s" % (path, d)
    if os.path.isdir(path):
        return "%s: cannot write: is a folder" % path
    return None


def _meta_path(log):
    from .oplog import meta_path_for
    return meta_path_for(log)


def _record_args(a, key, log):
    import copy
    r = copy.copy(a)
    r.out = log
    r.fake = True
    r.time_model = key
    r.costs = True
    r.clock = None
    r.no_step = False
    r.device = "cuda"
    return r


def _argv_for_record(argv):
    out, skip = [], False
    for x in argv:
        if skip:
            skip = False
            continue
        if x == "plan":
            continue
        name = x.split("=", 1)[0]
        if name in ("--memory", "--log", "--figure", "--rematsim", "--points"):
            skip = "=" not in x
            continue
        if name == "--json":
            continue
        out.append(x)
    return out


def _answer(a, key, dev, memory, log, meta, rematsim):
    from .__main__ import DATA_EXIT, _fail
    peak = meta["peak_live_bytes"]
    floor = meta["floor_memory"]
    step_ns = meta["measured_op_time_ns"]
    parts = _floor_parts(meta)
    ans = {
        "model": a.model, "title": meta.get("title"), "desc": meta.get("desc"),
        "device": key, "device_name": dev["name"], "memory": memory,
        "step_time_ns": step_ns, "peak_no_checkpointing": peak, "floor": floor,
        "floor_parts": parts, "fits": peak <= memory, "margin": memory - peak,
        "ways": [], "log": a.log,
    }
    if floor > memory:
        ans["ways"] = []
        _print(a, ans)
        return _fail(DATA_EXIT, "the floor (%s: weights, gradients, optimizer state and batch, "
                     "held by any schedule) exceeds --memory %s by %s: nothing fits; shard "
                     "the model or the optimizer state, or use a larger device"
                     % (_gb(floor), _gb(memory), _gb(floor - memory)))
    ways = []
    if peak > memory:
        # Module checkpointing.
        cmd = [rematsim, "solve", log, "--planner", "dp", "--budget", str(memory), "--modules",
               "--json"]
        rc, out, err = _run(cmd)
        if rc == 0:
            j = json.loads(out)
            r = j.get("replay", {})
            ways.append({"way": "checkpoint modules", "command": " ".join(cmd[1:]),
                         "wrap": [".".join(w) if isinstance(w, list) else w
                                  for w in j.get("checkpoint", [])],
                         "checkpoints": j.get("k"), "peak": r.get("peak_memory"),
                         "overhead": r.get("overhead")})
        else:
            ways.append({"way": "checkpoint modules", "command": " ".join(cmd[1:]),
                         "failed": err.splitlines()[-1] if err else "exit %d" % rc})
    # DTR and offload at the memory (when it does not fit as it is).
    rows, err = _replay(rematsim, log, [memory]) if peak > memory else (None, None)
    if peak <= memory:
        ways = []
    else:
        ways.append({"way": "DTR",
                     "command": "replay LOG --heuristic DTR --budget %d" % memory,
                     "overhead": _overhead(rows[0]) if rows else None,
                     "peak": rows[0].get("peak_memory") if rows else None,
                     "failed": err})
    link = "%d" % int(dev["link"])
    for policy in ("swap", "cost") if peak > memory else ():
        rows, err = _replay(rematsim, log, [memory], ["--offload-bandwidth", link,
                                                       "--offload-policy", policy])
        ways.append({"way": "offload (%s)" % ("every victim to the host" if policy == "swap"
                                              else "offload or recompute, the cheaper"),
                     "command": "replay LOG --heuristic DTR --budget %d --offload-bandwidth "
                                "%s --offload-policy %s" % (memory, link, policy),
                     "overhead": _overhead(rows[0]) if rows else None,
                     "peak": rows[0].get("peak_memory") if rows else None, "failed": err})
    for w in ways:
        if w.get("failed") is None:
            w.pop("failed", None)
    ways.sort(key=lambda w: (w.get("overhead") is None, w.get("overhead") or 0))
    ans["ways"] = ways
    # The figure's curve.
    n = max(2, a.points)
    budgets = sorted({int(floor + (peak - floor) * (i + 1) / n) for i in range(n)})
    rows, err = _replay(rematsim, log, budgets)
    ans["curve"] = [{"budget": b, "overhead": _overhead(r)}
                    for b, r in zip(budgets, rows or [])]
    if a.figure:
        _figure(a.figure, ans)
    _print(a, ans)
    return 0


def _floor_parts(meta):
    s = meta.get("sizes", {})
    n = s.get("parameters")
    if not n:
        return None
    dtype = meta.get("dtype", "float32")
    pb = {"float32": 4, "mixed": 4, "bfloat16": 2, "float16": 2, "float64": 8}[dtype]
    opt = meta.get("optimizer", "")
    states = 2 if opt.startswith("adam") else (1 if "momentum" in opt else 0)
    return {"weights": n * pb, "gradients": n * pb, "optimizer_state": states * n * pb,
            "batch": 2 * s.get("batch", 1) * s.get("seq_len", 0) * 8}


def _print(a, ans):
    if a.json:
        print(json.dumps(ans, sort_keys=True))
        return
    w = sys.stdout.write
    w("%s: %s\n" % (ans["title"], ans["desc"]))
    w("on %s (%s), memory %s; step time (time model) %.1f ms\n"
      % (ans["device_name"], ans["device"], _gb(ans["memory"]), ans["step_time_ns"] / 1e6))
    w("  peak without checkpointing  %s\n" % _gb(ans["peak_no_checkpointing"]))
    fp = ans["floor_parts"]
    w("  floor                       %s%s\n" % (_gb(ans["floor"]), (
        " (weights %s + gradients %s + optimizer state %s + batch %s)"
        % tuple(_gb(fp[k]) for k in ("weights", "gradients", "optimizer_state", "batch")))
        if fp else ""))
    if ans["fits"]:
        w("  fits without checkpointing, %s to spare\n" % _gb(ans["margin"]))
    else:
        w("  does not fit: the peak exceeds the memory by %s\n" % _gb(-ans["margin"]))
    if ans["ways"]:
        w("  ways to fit, cheapest first (step-time overhead under the time model):\n")
    for x in ans["ways"]:
        oh = x.get("overhead")
        w("    %-44s %s\n" % (x["way"], "x%.3f (+%.1f%%)" % (oh, 100 * (oh - 1)) if oh
                              else "does not fit" + (": " + x["failed"] if x.get("failed")
                                                     else "")))
        if x.get("wrap"):
            wr = x["wrap"]
            w("      wrap %d module%s: %s%s\n" % (len(wr), "s" if len(wr) != 1 else "",
                                                ", ".join(wr[:12]),
                                                " ..." if len(wr) > 12 else ""))
        w("      rematsim %s\n" % x["command"])
    if a.figure:
        w("  figure: %s\n" % a.figure)


def _figure(path, ans):
    """An SVG of DTR's overhead against the budget, the memory marked."""
    pts = [(c["budget"], c["overhead"]) for c in ans["curve"] if c["overhead"]]
    W, H, L, B = 640, 400, 70, 50
    xs = [ans["floor"], ans["peak_no_checkpointing"], ans["memory"]]
    x0, x1 = min(xs) * 0.95, max(xs) * 1.02
    ys = [p[1] for p in pts] + [1.0]
    for wy in ans["ways"]:
        if wy.get("overhead"):
            ys.append(wy["overhead"])
    y0, y1 = 1.0, max(ys) * 1.05 if max(ys) > 1 else 1.1

    def X(v):
        return L + (v - x0) / (x1 - x0) * (W - L - 20)

    def Y(v):
        return H - B - (v - y0) / (y1 - y0) * (H - B - 30)

    e = []
    e.append('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
             'font-family="sans-serif" font-size="12">' % (W, H))
    e.append('<rect width="100%" height="100%" fill="white"/>')
    e.append('<text x="%d" y="18" font-size="14">%s on %s: step-time overhead against '
             'memory</text>' % (L, _esc(ans["title"] or ""), _esc(ans["device_name"])))
    e.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (L, H - B, W - 20,
                                                                          H - B))
    e.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (L, H - B, L, 30))
    for i in range(6):
        v = x0 + (x1 - x0) * i / 5
        e.append('<text x="%.1f" y="%d" text-anchor="middle">%.0f</text>' % (X(v), H - B + 16,
                                                                              v / 1e9))
        u = y0 + (y1 - y0) * i / 5
        e.append('<text x="%d" y="%.1f" text-anchor="end">%.2f</text>' % (L - 6, Y(u) + 4, u))
    e.append('<text x="%d" y="%d" text-anchor="middle">memory budget (GB)</text>'
             % ((L + W) // 2, H - 12))
    e.append('<text x="16" y="%d" transform="rotate(-90 16 %d)" text-anchor="middle">'
             'step time / unbounded step time</text>' % (H // 2, H // 2))
    if pts:
        e.append('<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="%s"/>'
                 % " ".join("%.1f,%.1f" % (X(b), Y(o)) for b, o in pts))
        for b, o in pts:
            e.append('<circle cx="%.1f" cy="%.1f" r="3" fill="#1f77b4"/>' % (X(b), Y(o)))
        e.append('<text x="%.1f" y="%.1f" fill="#1f77b4">DTR</text>'
                 % (X(pts[0][0]) + 6, Y(pts[0][1]) - 6))
    for v, label, col in ((ans["memory"], "device memory", "#d62728"),
                          (ans["floor"], "floor", "gray"),
                          (ans["peak_no_checkpointing"], "no checkpointing", "gray")):
        e.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="30" stroke="%s" '
                 'stroke-dasharray="5,4"/>' % (X(v), H - B, X(v), col))
        e.append('<text x="%.1f" y="42" fill="%s">%s</text>' % (X(v) + 4, col, label))
    marks = {"checkpoint modules": "#2ca02c"}
    for wy in ans["ways"]:
        if wy.get("overhead") and wy["way"] in marks:
            e.append('<rect x="%.1f" y="%.1f" width="8" height="8" fill="%s"/>'
                     % (X(wy["peak"]) - 4, Y(wy["overhead"]) - 4, marks[wy["way"]]))
            e.append('<text x="%.1f" y="%.1f" fill="%s">modules</text>'
                     % (X(wy["peak"]) + 6, Y(wy["overhead"]) + 4, marks[wy["way"]]))
    e.append("</svg>")
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write("\n".join(e) + "\n")
    os.replace(tmp, path)


def _esc(s):
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))
