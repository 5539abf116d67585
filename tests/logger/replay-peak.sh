#!/bin/sh
# replay-peak.sh REMATSIM MANIFEST...: replay every log of each MANIFEST
# with no memory bound and compare the simulator's peak (and its baseline
# memory) with the peak_live_bytes the logger wrote in the log's meta file.
# The two must agree to the byte. A meta file with baseline_memory (the
# torch recorder's: its logs release constants, which the baseline's
# banishing frees) gives the baseline its own number. Plain shell: no JSON tool is needed, the
# fields are read with grep from the one-line JSON the tools print.
set -u
rematsim=$1
shift
status=0
field() { # FIELD: the integer value of "FIELD": N in stdin
	grep -o "\"$1\": *[0-9]*" | head -1 | sed 's/.*: *//'
}
for manifest in "$@"; do
	dir=$(dirname "$manifest")
	[ -f "$manifest" ] || { echo "FAIL no $manifest"; exit 1; }
	logs=$(grep -o '"log": *"[^"]*"' "$manifest" | sed 's/.*: *"//; s/"$//')
	[ -n "$logs" ] || { echo "FAIL $manifest lists no log"; exit 1; }
	for log in $logs; do
		path="$dir/$log"
		meta="${path%.gz}"; meta="${meta%.log}.meta.json"
		want=$(field peak_live_bytes <"$meta")
		[ -n "$want" ] || { echo "FAIL $meta has no peak_live_bytes"; status=1; continue; }
		want_base=$(field baseline_memory <"$meta")
		want_base=${want_base:-$want}
		# 1 PB: far above any shipped log's needs, so nothing is evicted.
		out=$("$rematsim" replay "$path" --heuristic DTR --budget 1000000000000000 --json) ||
			{ echo "FAIL rematsim replay $path"; status=1; continue; }
		case "$out" in *'"outcome":"pass"'*) ;; *) echo "FAIL $log: $out"; status=1; continue ;; esac
		peak=$(printf '%s\n' "$out" | field peak_memory)
		base=$(printf '%s\n' "$out" | field baseline_memory)
		if [ "$peak" = "$want" ] && [ "$base" = "$want_base" ]; then
			echo "ok $log: unbounded replay peak = peak_live_bytes = $want, baseline memory $base"
		else
			echo "FAIL $log: peak_memory $peak, baseline_memory $base, logger peak_live_bytes $want, baseline $want_base"
			status=1
		fi
	done
done
exit $status
