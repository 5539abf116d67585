#!/bin/sh
# cli-allocator.sh REMATSIM: fit, peak and info through the model of
# PyTorch's caching allocator (--allocator; docs/allocator.md): the
# smallest device memory that fit finds checked against replay
# --device-memory on both sides, a log whose live-byte answer does not fit
# the device, and every output without --allocator as it was.
set -u
R=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/cli-lib.sh"
L=$(cd "$(dirname "$0")/data" && pwd)/chain8.log
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rematsim-allocator.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

field() { # JSON FIELD: an integer field of a one-line JSON object
	printf '%s\n' "$1" | sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p"
}
replay_outcome() { # BUDGET DEVICE LOG: pass or oom, the device's
	"$R" replay "$3" --heuristic DTR --budget "$1" --allocator pytorch --device-memory "$2" --json |
		sed -n 's/.*"device_outcome":"\([a-z]*\)".*/\1/p'
}

expect_status 0 "fit --help" "$R" fit --help
# fit --allocator on chain8: DTR passes at 66560 live bytes, but the
# allocator puts every tensor of this log (all under 1 MiB) in one small
# segment of 2 MiB: no device below 2097152 bytes holds the replay.
plain=$("$R" fit "$L" --heuristic DTR --json --jobs 1 | sed 's/,"wall_ms":[^,]*//')
j=$("$R" fit "$L" --heuristic DTR --json --jobs 1 --allocator pytorch)
for kv in smallest_pass:66560 device_min:2097152 device_budget:66560 device_at_smallest_pass:2097152 \
	unbounded_reserved_peak:2097152; do
	k=${kv%%:*} v=${kv#*:}
	[ "$(field "$j" "$k")" = "$v" ] && ok "fit --allocator: $k $v" || no "fit --allocator: $k: $j"
done
case "$plain" in *device*|*allocator*) no "fit without --allocator names the device: $plain" ;;
	*) ok "fit without --allocator: no device keys" ;; esac
stripped=$(printf '%s\n' "$j" | sed 's/,"wall_ms":[^,]*//; s/,"allocator":.*"device_replays":[0-9]*//; s/,"device":[0-9null]*//g')
[ "$stripped" = "$plain" ] && ok "fit --allocator changes no live-byte key" || no "fit keys differ: $stripped / $plain"
[ "$(replay_outcome 66560 66560 "$L")" = oom ] && ok "the live-byte answer fails on a device of its size" ||
	no "chain8 at 66560 on 66560 bytes: $(replay_outcome 66560 66560 "$L")"
[ "$(replay_outcome 66560 2097152 "$L")" = pass ] && [ "$(replay_outcome 66560 2097151 "$L")" = oom ] &&
	ok "replay agrees: 2097152 bytes pass, one byte less does not" || no "replay disagrees with fit on chain8"

# Tensors of 12 to 40 MB (large pool, split blocks): the smallest device
# is above the smallest budget but far below the unbounded reserved peak;
# replay --device-memory agrees at it and one byte below it.
"$R" gen linear --n 30 --size-dist uniform:12000000:40000000 --seed 3 --out g.log >/dev/null ||
	no "gen linear"
j=$("$R" fit g.log --heuristic DTR --json --allocator pytorch)
d=$(field "$j" device_min) b=$(field "$j" device_budget) sp=$(field "$j" smallest_pass)
u=$(field "$j" unbounded_reserved_peak)
[ -n "$d" ] && [ -n "$b" ] && [ "$d" -gt "$sp" ] && [ "$d" -lt "$u" ] &&
	ok "fit --allocator on g.log: $sp < $d < $u" || no "fit --allocator on g.log: $j"
[ "$(replay_outcome "$b" "$d" g.log)" = pass ] && [ "$(replay_outcome "$b" $((d - 1)) g.log)" = oom ] &&
	ok "replay at budget $b: device $d passes, $((d - 1)) does not" || no "replay disagrees on g.log ($b, $d)"
[ "$(replay_outcome "$sp" "$sp" g.log)" = oom ] && ok "g.log's live-byte answer fails on a device of its size" ||
	no "g.log at $sp on $sp bytes"
out=$("$R" fit g.log --heuristic DTR --allocator pytorch --probes)
case "$out" in *"device (pytorch): the smallest device memory found is $d bytes"*"with the budget $b"*device*)
	ok "fit --allocator text" ;; *) no "fit --allocator text: $out" ;; esac
j2=$("$R" fit g.log --heuristic DTR --json --allocator pytorch --jobs 1)
[ "$(printf '%s\n' "$j2" | sed 's/,"wall_ms":[^,]*//')" = "$(printf '%s\n' "$j" | sed 's/,"wall_ms":[^,]*//')" ] &&
	ok "fit --allocator: the same at one thread" || no "fit --allocator differs with --jobs 1"
bad 64 "fit --device-memory" "finds the smallest device memory" "$R" fit "$L" --heuristic DTR --device-memory 1GiB
bad 64 "fit --allocator of another name" "the allocator modelled is pytorch" "$R" fit "$L" --heuristic DTR --allocator tcmalloc
bad 64 "fit --allocator with an unknown setting" "unknown setting 'foo'" "$R" fit "$L" --heuristic DTR --allocator pytorch:foo:1

# peak --allocator: the reserved peak beside the live-bytes peak.
plain=$("$R" peak "$L" --json)
j=$("$R" peak "$L" --json --allocator pytorch)
for kv in peak_memory:139264 reserved_peak:2097152 fragmentation_at_reserved_peak:2093056 \
	device_allocated_peak:139264 segments_peak:1; do
	k=${kv%%:*} v=${kv#*:}
	[ "$(field "$j" "$k")" = "$v" ] && ok "peak --allocator: $k $v" || no "peak --allocator: $k: $j"
done
[ "$(printf '%s\n' "$j" | sed 's/,"allocator":.*}$/}/')" = "$plain" ] &&
	ok "peak --allocator only adds keys" || no "peak differs: $j / $plain"
case "$plain" in *reserved*) no "peak without --allocator: $plain" ;; *) ok "peak without --allocator as it was" ;; esac
out=$("$R" peak "$L" --heuristic DTR --ratio 0.5 --allocator pytorch:expandable_segments:True)
case "$out" in *"device (pytorch:expandable_segments:True): reserved peak 2097152 bytes"*"live-bytes peak 69632 bytes"*)
	ok "peak --allocator text under a budget" ;; *) no "peak --allocator text: $out" ;; esac
bad 64 "peak --allocator with an unknown setting" "unknown setting" "$R" peak "$L" --allocator pytorch:foo:1

# info: the predicted reserved peak of the baseline through the model.
j=$("$R" info --json "$L")
for kv in reserved_peak:2097152 fragmentation_at_reserved_peak:2093056 segments_peak:1; do
	k=${kv%%:*} v=${kv#*:}
	[ "$(field "$j" "$k")" = "$v" ] && ok "info: $k $v" || no "info: $k: $j"
done
case "$j" in *'"allocator":"pytorch"'*) ok "info names the allocator's settings" ;; *) no "info: $j" ;; esac
out=$("$R" info "$L")
case "$out" in *"reserved peak  2097152 bytes (2.0 MiB), fragmentation at it 2093056 bytes"*"sha256"*)
	ok "info's reserved peak line" ;; *) no "info text: $out" ;; esac
j=$("$R" info --json g.log --allocator pytorch:max_split_size_mb:20)
case "$j" in *'"allocator":"pytorch:max_split_size_mb:20"'*) ok "info --allocator CONF" ;; *) no "info --allocator CONF: $j" ;; esac
bad 64 "info --allocator with an unknown setting" "unknown setting" "$R" info --allocator pytorch:foo:1 "$L"
bad 64 "check has no --allocator" "unknown option" "$R" check --allocator pytorch "$L"

# solve --allocator: a planner's replay through the model. The plan of no
# checkpoints replays the baseline's memory, so its reserved peak is
# info's (two paths to one number); a plan's own numbers do not move.
T=$(cd "$(dirname "$0")/../logs" && pwd)/transformer-cpu.log.gz
ir=$(field "$("$R" info --json "$T")" reserved_peak)
j=$("$R" solve "$T" --planner none --allocator pytorch --json)
[ -n "$ir" ] && [ "$(field "$j" reserved_peak)" = "$ir" ] &&
	ok "solve --planner none --allocator: reserved peak $ir, info's" || no "solve none: $j (info: $ir)"
plain=$("$R" solve "$T" --planner dp -k 4 --replay --json)
j=$("$R" solve "$T" --planner dp -k 4 --allocator pytorch --json)
case "$plain" in *reserved_peak*) no "solve without --allocator has a reserved peak" ;;
*) ok "solve without --allocator: no device keys" ;; esac
[ "$(field "$j" peak_memory)" = "$(field "$plain" peak_memory)" ] &&
	[ "$(field "$j" allocated_peak)" -ge "$(field "$j" peak_memory)" ] &&
	[ "$(field "$j" reserved_peak)" -ge "$(field "$j" allocated_peak)" ] &&
	ok "solve dp -k 4 --allocator: the plan's peak unchanged, reserved >= allocated >= live" ||
	no "solve dp --allocator: $j / $plain"
if "$R" solve "$(dirname "$L")/ilp-choice.log" --planner ilp --budget 300 >/dev/null 2>&1; then
	out=$("$R" solve "$(dirname "$L")/ilp-choice.log" --planner ilp --budget 300 --allocator pytorch)
	# every storage of this log is under 512 bytes: one 2 MiB small-pool segment
	case "$out" in *"device (pytorch): reserved peak 2097152 bytes"*"at most 1 segment"*)
		ok "solve --planner ilp --allocator: an explicit schedule's device line" ;;
	*) no "solve ilp --allocator: $out" ;; esac
fi
bad 64 "solve --modules --allocator" "module plans and --splits" "$R" solve "$T" --planner dp -k 2 --modules --allocator pytorch
bad 64 "solve --allocator with an unknown setting" "unknown setting" "$R" solve "$T" --planner dp -k 2 --allocator pytorch:foo:1

# sweep with `allocator:` (docs/experiments.md): every heuristic row gains
# the model's columns, equal to replay --allocator --json's for the same
# point; resumed, merged from shards, csv and plot read them; without the
# key the files are as they were; a bad setting is refused at its line.
cat >a.yaml <<EOF
experiment: alloctest
models:
  - {name: chain, log: $L}
  - {name: g, log: g.log}
series:
  - {name: dtr, heuristic: DTR}
  - {name: lru, heuristic: LRU}
allocator: "pytorch:expandable_segments:True"
device_memory: 200MB
ratios: [0.3, 0.6, 1.0]
EOF
sed '/^allocator\|^device_memory/d' a.yaml >plain.yaml
"$R" sweep a.yaml --out sa --jobs 2 --quiet --format tsv,csv && "$R" sweep plain.yaml --out sp --quiet ||
	no "allocator sweeps"
head=$(grep -v '^#' sa/points.tsv | head -1)
[ "$head" = "$(grep -v '^#' sp/points.tsv | head -1 | sed 's/	stopped_clock$//')	reserved_peak	device_allocated_peak	fragmentation	segments_peak	device_allocs	device_oom	stopped_clock" ] &&
	ok "allocator columns before stopped_clock" || no "allocator columns: $head"
grep -q '^# allocator: pytorch:expandable_segments:True$' sa/points.tsv && grep -q '^# device_memory: 200000000$' sa/points.tsv &&
	ok "the allocator in the header" || no "allocator header"
cmp -s sa/models.tsv sp/models.tsv && ok "models.tsv as without the key" || no "models.tsv differs"
[ "$(grep '^# config_hash' sa/points.tsv)" != "$(grep '^# config_hash' sp/points.tsv)" ] &&
	ok "the config hash covers the allocator" || no "same config hash with and without the allocator"
rows=0 same=0
for row in $(grep -v '^#' sa/points.tsv | tail -n +2 | awk -F'\t' '{print $1 "," $2 "," $7 "," $20 "," $21 "," $22 "," $23 "," $24 "," $25 "," $8}'); do
	IFS=, read -r m h b rp ap fr sg da oom out <<X
$row
X
	[ "$m" = chain ] && log=$L || log=g.log
	j=$("$R" replay "$log" --heuristic "$h" --budget "$b" --allocator pytorch:expandable_segments:True \
		--device-memory 200MB --json)
	rows=$((rows + 1))
	dev=$(printf '%s\n' "$j" | sed -n 's/.*"device_outcome":"\([a-z]*\)".*/\1/p')
	o=$(printf '%s\n' "$j" | sed -n 's/.*"outcome":"\([a-z]*\)".*/\1/p')
	if [ "$dev" = oom ]; then want=yes; else want=no; fi
	[ "$(field "$j" reserved_peak)" = "$rp" ] && [ "$(field "$j" device_allocated_peak)" = "$ap" ] &&
		[ "$(field "$j" fragmentation_at_reserved_peak)" = "$fr" ] && [ "$(field "$j" segments_peak)" = "$sg" ] &&
		[ "$(field "$j" device_allocs)" = "$da" ] && [ "$o" = "$out" ] && [ "$oom" = "$want" ] &&
		same=$((same + 1))
done
[ "$rows" -eq 12 ] && [ "$same" -eq 12 ] && ok "sweep rows equal replay --allocator --json ($same of $rows)" ||
	no "sweep rows against replay: $same of $rows"
n=$(awk -F'\t' '!/^#/ && $25 == "yes"' sa/points.tsv | wc -l)
[ "$n" -gt 0 ] && [ "$n" -lt 12 ] && ok "device_memory fails some rows ($n)" || no "device_oom rows: $n"
[ "$(grep -v '^#' sa/points.csv | head -1 | tr , '\t')" = "$head" ] && [ "$(grep -vc '^#' sa/points.csv)" -eq 13 ] &&
	ok "points.csv has the allocator columns" || no "points.csv: $(head -c 300 sa/points.csv)"
cp sa/points.tsv before.tsv
"$R" sweep a.yaml --out sa --jobs 2 --quiet --format tsv,csv && cmp -s before.tsv sa/points.tsv && ok "allocator sweep resumed: nothing rerun" ||
	no "resume of an allocator sweep"
body() { grep -v '^# \(command\|shard\)' "$1" | awk -F'\t' 'BEGIN{OFS="\t"} NF > 1 {$17 = "-"} {print}'; }
"$R" sweep a.yaml --out s1 --shard 1/2 --quiet && "$R" sweep a.yaml --out s2 --shard 2/2 --quiet &&
	"$R" merge s1 s2 --out m >/dev/null || no "allocator shards and merge"
[ "$(body m/points.tsv)" = "$(body sa/points.tsv)" ] && ok "merged allocator shards: the same rows" ||
	no "merged allocator shards differ"
if command -v gnuplot >/dev/null 2>&1; then
	expect_status 0 "plot reads an allocator sweep" "$R" plot sa
fi
printf 'experiment: x\nmodels: [{name: m, log: %s}]\nheuristics: [DTR]\nratios: [1]\nallocator: "pytorch:foo:1"\n' \
	"$L" >bad.yaml
bad 65 "sweep with an unknown allocator setting" "bad.yaml:5:12: 'allocator': 'pytorch:foo:1'" \
	"$R" sweep bad.yaml --out bad
[ ! -e bad/points.tsv ] && ok "nothing written for a bad allocator" || no "bad allocator left points.tsv"
sed -i 's/pytorch:foo:1/tensorflow/' bad.yaml
bad 65 "sweep with another allocator" "bad.yaml:5:12: 'allocator': 'tensorflow': the allocator modelled is pytorch" \
	"$R" sweep bad.yaml --out bad
sed -i 's/^allocator.*/device_memory: 80GB/' bad.yaml
bad 65 "device_memory without an allocator" "bad.yaml:5:16: 'device_memory' needs" "$R" sweep bad.yaml --out bad
exit $fail
