#!/bin/sh
# shipped-logs.sh REMATSIM MANIFEST: every torch log MANIFEST lists
# (logs/torch-*) passes `rematsim check`, its unbounded replay reports the
# peak_live_bytes and baseline_memory of its meta file, and `rematsim info`
# its floor_memory, to the byte.
# Needs no torch: the logs are in the repository.
set -u
rematsim=$1
manifest=$2
dir=$(dirname "$manifest")
field() { grep -o "\"$1\": *[0-9]*" | head -1 | sed 's/.*: *//'; }
logs=$(grep -oE '"log": *"(torch|llm)-[^"]*"' "$manifest" | sed 's/.*: *"//; s/"$//')
[ -n "$logs" ] || { echo "FAIL $manifest lists no torch log"; exit 1; }
status=0
for log in $logs; do
	path="$dir/$log"
	meta="${path%.gz}"; meta="${meta%.log}.meta.json"
	"$rematsim" check "$path" >/dev/null || { echo "FAIL rematsim check $path"; status=1; continue; }
	out=$("$rematsim" replay "$path" --heuristic DTR --budget 1000000000000000 --json) ||
		{ echo "FAIL rematsim replay $path"; status=1; continue; }
	peak=$(printf '%s\n' "$out" | field peak_memory)
	base=$(printf '%s\n' "$out" | field baseline_memory)
	want=$(field peak_live_bytes <"$meta")
	want_base=$(field baseline_memory <"$meta")
	floor=$("$rematsim" info "$path" --json | field floor_memory)
	want_floor=$(field floor_memory <"$meta")
	if [ -n "$want" ] && [ "$peak" = "$want" ] && [ "$base" = "$want_base" ] &&
		[ -n "$floor" ] && [ "$floor" = "$want_floor" ]; then
		echo "ok $log: checked; replay peak $peak, baseline $base, floor $floor (as its meta file says)"
	else
		echo "FAIL $log: replay peak $peak baseline $base floor $floor; meta $want / $want_base / $want_floor"
		status=1
	fi
done
exit $status
