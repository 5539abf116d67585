"""timecheck.py: `python3 -m rematsim_torch timecheck`: hold the time model
(timemodel.py) against op times measured on a GPU. MEASURED is a log
whose TIMEs were measured (the C logger's logs/*-cuda-*.log.gz); COSTS is
a log of the same ops with FLOPS and BYTES (the C logger's --dry --costs
run of the same configuration, or MEASURED itself when it has them). The
ops after START are paired in order (their names must agree). It prints
the error per op class and for the whole step: with the uncalibrated
model on every op, then with efficiencies fitted (timemodel.fit) on every
other op of each class and measured on the ops left out."""

import json
import sys

from . import timemodel


def pair(measured, costs):
    m = timemodel.read_ops(measured)
    c = timemodel.read_ops(costs) if costs else m
    if len(m) != len(c):
        raise timemodel.TimeModelError("%s has %d ops after START, %s has %d: not the same "
                                       "configuration" % (measured, len(m), costs, len(c)), 65)
    rows = []
    for i, (a, b) in enumerate(zip(m, c)):
        if a[0] != b[0]:
            raise timemodel.TimeModelError("op %d is %s in %s but %s in %s" % (
                i, a[0], measured, b[0], costs), 65)
        if b[2] is None or b[3] is None:
            raise timemodel.TimeModelError("op %d (%s) of %s has no FLOPS/BYTES (record it "
                                           "with --costs)" % (i, b[0], costs or measured), 65)
        rows.append((a[0], a[1], b[2], b[3], "float32"))
    return rows


def split(rows):
    """Every other op of each class: (fit, held out)."""
    seen, fit, held = {}, [], []
    for r in rows:
        cls = timemodel.op_class(r[0])
        k = seen.get(cls, 0)
        seen[cls] = k + 1
        (fit if k % 2 == 0 else held).append(r)
    return fit, held


def check(pairs, device, calibration_out=None):
    """PAIRS: (label, measured, costs). The report (a dict)."""
    model = timemodel.TimeModel(device)
    allrows, report = [], {"device": device, "models": {}}
    for label, measured, costs in pairs:
        rows = pair(measured, costs)
        allrows.append((label, rows))
    fit_rows = [r for _, rows in allrows for r in split(rows)[0]]
    cal = timemodel.fit(model, fit_rows)
    calibrated = timemodel.TimeModel(device)
    for c, v in cal["classes"].items():
        calibrated.eff[c].update(v)
    # Per op name (the kernel), on top of the classes' fit.
    cal_op = timemodel.fit(model, fit_rows, by_op=True)
    per_op = timemodel.TimeModel(device)
    for c, v in cal["classes"].items():
        per_op.eff[c].update(v)
    per_op.op_eff = {k: dict(v) for k, v in cal_op["ops"].items()}
    cal["ops"] = cal_op["ops"]
    for label, rows in allrows:
        held = split(rows)[1]
        report["models"][label] = {
            "uncalibrated": timemodel.errors(model, rows),
            "calibrated_held_out": timemodel.errors(calibrated, held),
            "calibrated_step": timemodel.errors(calibrated, rows)["step"],
            "per_op_held_out": timemodel.errors(per_op, held),
            "per_op_step": timemodel.errors(per_op, rows)["step"],
        }
    all_rows = [r for _, rows in allrows for r in rows]
    held_all = [r for _, rows in allrows for r in split(rows)[1]]
    report["all"] = {"uncalibrated": timemodel.errors(model, all_rows),
                     "calibrated_held_out": timemodel.errors(calibrated, held_all),
                     "per_op_held_out": timemodel.errors(per_op, held_all)}
    report["calibration"] = cal
    if calibration_out:
        with open(calibration_out + ".tmp", "w") as f:
            f.write(json.dumps(cal, indent=2, sort_keys=True) + "\n")
        import os
        os.replace(calibration_out + ".tmp", calibration_out)
    return report


def _pct(x):
    return "%+7.1f%%" % (100 * x) if x is not None else "      -"


def print_report(rep, out=sys.stdout):
    for label, r in list(rep["models"].items()) + [("all", rep["all"])]:
        out.write("%s (%s): per class: ops, measured ms; error of the sum, median per-op "
                  "|error|: uncalibrated | class-calibrated | op-calibrated (both fitted on "
                  "every other op, measured on the others)\n" % (label, rep["device"]))
        u, c, o = r["uncalibrated"], r["calibrated_held_out"], r["per_op_held_out"]
        for cls in sorted(u, key=lambda k: (k == "step", k)):
            a = u[cls]
            cols = []
            for x in (a, c.get(cls), o.get(cls)):
                cols.append("%s %s" % (_pct(x["sum_error"]), _pct(x["median_op_error"]))
                            if x else "      -        -")
            out.write("  %-12s %5d %10.3f  %s\n" % (cls, a["ops"], a["measured_ns"] / 1e6,
                                                     "  |  ".join(cols)))
        if "calibrated_step" in r:
            out.write("  whole step, all ops: class-calibrated %s, op-calibrated %s\n"
                      % (_pct(r["calibrated_step"]["sum_error"]),
                         _pct(r["per_op_step"]["sum_error"])))
