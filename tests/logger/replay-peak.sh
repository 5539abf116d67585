#!/bin/sh
# replay-peak.sh REMATSIM MANIFEST: replay every log of MANIFEST with no
# memory bound and compare the simulator's peak with the peak_live_bytes
# the logger wrote in the log's meta file. Exit 77 (skipped) while the
# rematsim command can not replay yet.
set -u
rematsim=$1
manifest=$2
dir=$(dirname "$manifest")
[ -f "$manifest" ] || { echo "no $manifest"; exit 1; }
status=0
for log in $(python3 -c 'import json,sys; [print(m["log"]) for m in json.load(open(sys.argv[1]))["models"]]' "$manifest"); do
	path="$dir/$log"
	meta="${path%.gz}"; meta="${meta%.log}.meta.json"
	want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["peak_live_bytes"])' "$meta") || exit 1
	# 1 PB: no log comes near it. (The brief's 2^64-1 is read as budget 0 by
	# rematsim replay as of wt-sim e356163; the lead has been told.)
	if ! out=$("$rematsim" replay "$path" --heuristic DTR --budget 1000000000000000 --json 2>/dev/null); then
		echo "rematsim can not replay logs yet: skipped"
		exit 77
	fi
	got=$(printf '%s\n' "$out" | python3 -c '
import json, sys
for line in sys.stdin:
    if line.startswith("{"):
        o = json.loads(line)
        if o.get("outcome") != "pass":
            print("outcome-" + str(o.get("outcome"))); sys.exit(0)
        print(o["peak_memory"], o["baseline_memory"]); sys.exit(0)
sys.exit(1)') || { echo "no JSON result from rematsim replay: skipped"; exit 77; }
	if [ "$got" = "$want $want" ]; then
		echo "ok $log: unbounded replay peak = baseline memory = peak_live_bytes = $want"
	else
		echo "FAIL $log: rematsim replay (peak_memory baseline_memory) = $got, logger peak_live_bytes $want"
		status=1
	fi
done
exit $status
