# summarize.py: one line per JSON object of `rematsim measured --json` (the
# fields a pinned test compares), for tests/cli-measured.sh.
import json
import sys

for line in sys.stdin:
    o = json.loads(line)
    if not o["matched"]:
        print("unmatched\t%s\t%d\t%d\t%s" % (o["model"], o["batch"], o["budget"], o["reason"]))
        continue
    fit = o.get("fit_budget")
    print("%s\t%d\t%d\t%s\t%.4f\t%d\t%s\t%d/%d\t%s\t%s" % (
        o["model"], o["batch"], o["budget"], o["heuristic"], o["simulated_remat_pct"],
        o["simulated_peak"], o["outcome"], o["passed"], o["trials"],
        "-" if fit is None else fit, "-" if "agrees" not in o else o["agrees"]))
