#!/bin/sh
# cli-offload.sh REMATSIM: offload as a user meets it (docs/offload.md):
# the options' refusals, the replay's output with no link the same as
# today's, the counters in text and JSON, the timeline's copy rows and the
# trace's copy tracks, and sweeps with a host link: their columns only
# then, the same rows at any thread count, resumed and merged from shards.
set -u
R=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/cli-lib.sh"
cd "$(dirname "$0")/data" || exit 1
LOGS=$(cd ../../logs && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run="replay tiny.log --heuristic DTR --ratio 0.5"
# shellcheck disable=SC2086
{
expect_status 0 "a link" "$R" $run --offload-bandwidth 25GB/s --check
expect_status 0 "every option" "$R" $run --offload-bandwidth 1e9 --offload-latency 10us --host-memory 1KiB --offload-prefetch 2 --offload-policy swap --check
expect_status 0 "no link" "$R" $run --offload-bandwidth none
expect_status 64 "bandwidth 0" "$R" $run --offload-bandwidth 0
expect_status 64 "negative bandwidth" "$R" $run --offload-bandwidth -5GB/s
expect_status 64 "bandwidth not a rate" "$R" $run --offload-bandwidth 25GB/h
expect_status 64 "bandwidth nan" "$R" $run --offload-bandwidth nan
expect_status 64 "negative latency" "$R" $run --offload-bandwidth 1e9 --offload-latency -1us
expect_status 64 "latency in parsecs" "$R" $run --offload-bandwidth 1e9 --offload-latency 5pc
expect_status 64 "host memory 0" "$R" $run --offload-bandwidth 1e9 --host-memory 0
expect_status 64 "prefetch not a count" "$R" $run --offload-bandwidth 1e9 --offload-prefetch two
expect_status 64 "unknown policy" "$R" $run --offload-bandwidth 1e9 --offload-policy drop
expect_status 64 "latency without a link" "$R" $run --offload-latency 1us
expect_status 64 "policy with no link" "$R" $run --offload-bandwidth none --offload-policy swap
expect_status 64 "bandwidth twice" "$R" $run --offload-bandwidth 1e9 --offload-bandwidth 2e9
expect_status 64 "offload on V1" "$R" replay tiny.log --heuristic DTRUnopt --runtime V1 --ratio 0.5 --offload-bandwidth 1e9
expect_status 64 "offload with DTRPrototype" "$R" replay tiny.log --heuristic DTRPrototype --ratio 0.5 --offload-bandwidth 1e9
}
m=$("$R" replay tiny.log --heuristic DTR --ratio 0.5 --offload-bandwidth 25GB/h 2>&1)
case "$m" in *"--offload-bandwidth '25GB/h'"*) ok "the message names the option and value" ;; *) no "message: $m" ;; esac
m=$("$R" replay tiny.log --heuristic DTR --ratio 0.5 --offload-latency 1us 2>&1)
case "$m" in *"--offload-latency needs a host link"*) ok "says what is missing" ;; *) no "message: $m" ;; esac

# No link is today's replay, byte for byte but for the wall time: text,
# JSON and timeline.
L=$LOGS/transformer-cpu.log.gz
strip() { sed -E 's/ +[0-9.]+$//; s/"wall_ms":[0-9.e+-]+,//'; }
a=$("$R" replay "$L" --heuristic DTR --ratio 0.3,0.5,0.8 | strip)
b=$("$R" replay "$L" --heuristic DTR --ratio 0.3,0.5,0.8 --offload-bandwidth none | strip)
[ "$a" = "$b" ] && ok "no link: the same text" || no "no link changed the text"
a=$("$R" replay "$L" --heuristic DTR --ratio 0.5 --json | strip)
b=$("$R" replay "$L" --heuristic DTR --ratio 0.5 --json --offload-bandwidth none | strip)
[ "$a" = "$b" ] && ok "no link: the same JSON" || no "no link changed the JSON"
case "$a" in *offload*) no "JSON without a link names offload" ;; *) ok "JSON without a link has no offload keys" ;; esac
"$R" replay "$L" --heuristic DTR --ratio 0.5 --timeline "$tmp/a.tsv" >/dev/null
"$R" replay "$L" --heuristic DTR --ratio 0.5 --timeline "$tmp/b.tsv" --offload-bandwidth none >/dev/null
cmp -s "$tmp/a.tsv" "$tmp/b.tsv" && ok "no link: the same timeline" || no "no link changed the timeline"

# A log's measured link (NAME.meta.json's "link", written by
# rematsim-record --measure-link): the same both ways is the same replay as
# the rate given by hand; slower back, the copies back take longer.
cp "$L" "$tmp/m.log.gz"
link() { printf '{"model": "x", "link": {"h2d_bytes_per_s": %s, "h2d_latency_ns": %s, "d2h_bytes_per_s": 2.5e10, "d2h_latency_ns": 5000, "pinned": true}}\n' "$1" "$2" > "$tmp/m.meta.json"; }
link 2.5e10 5000
mm() { "$R" replay "$tmp/m.log.gz" --heuristic DTR --ratio 0.3,0.5 --offload-policy swap "$@"; }
a=$(mm --offload-bandwidth measured --json | sed -E 's/"wall_ms":[0-9.e+-]+,//; s/,"offload_link":[^,]*,"offload_h2d_bandwidth":[^,]*,"offload_h2d_latency_ns":[0-9]+//')
b=$(mm --offload-bandwidth 25GB/s --offload-latency 5us --json | sed -E 's/"wall_ms":[0-9.e+-]+,//')
[ "$a" = "$b" ] && ok "measured link, the same both ways: the replay of that rate" || no "measured link differs: $a // $b"
t=$(mm --offload-bandwidth measured)
case "$t" in *"offload: the link measured in $tmp/m.meta.json: to the host 25000000000 bytes/s, latency 5000 ns; back 25000000000 bytes/s, latency 5000 ns;"*) ok "text names the measured link" ;;
	*) no "text lacks the measured link: $t" ;; esac
link 1.25e10 9000
j=$(mm --offload-bandwidth measured --json)
case "$j" in *'"offload_h2d_bandwidth":12500000000.0,"offload_h2d_latency_ns":9000'*) ok "json has the link back" ;; *) no "json lacks the link back: $j" ;; esac
h=$(printf '%s\n' "$j" | sed -E 's/.*"h2d_busy_ns":([0-9]+).*/\1/' | head -1)
hb=$(printf '%s\n' "$b" | sed -E 's/.*"h2d_busy_ns":([0-9]+).*/\1/' | head -1)
[ "$h" -gt "$hb" ] && ok "slower back: copies back busier ($h > $hb ns)" || no "slower back: h2d busy $h, same link $hb"
link 0 9000
bad 65 "measured link of 0 bytes/s" "m.meta.json: the measured link's 'h2d_bytes_per_s' is out of range, not bytes per second above 0" \
	"$R" replay "$tmp/m.log.gz" --heuristic DTR --ratio 0.5 --offload-bandwidth measured
printf '{"model": "x"}\n' > "$tmp/m.meta.json"
bad 65 "meta file without a link" "m.meta.json: no measured link ('link'): record the log with rematsim-record --measure-link" \
	"$R" replay "$tmp/m.log.gz" --heuristic DTR --ratio 0.5 --offload-bandwidth measured
printf '{"link": {"h2d_bytes_per_s": 1e9,,}}\n' > "$tmp/m.meta.json"
bad 65 "meta file not JSON" "m.meta.json:1: " \
	"$R" replay "$tmp/m.log.gz" --heuristic DTR --ratio 0.5 --offload-bandwidth measured
rm "$tmp/m.meta.json"
bad 66 "no meta file" "m.meta.json: No such file or directory (--offload-bandwidth measured reads" \
	"$R" replay "$tmp/m.log.gz" --heuristic DTR --ratio 0.5 --offload-bandwidth measured
bad 64 "a latency beside the measured link" "the measured link has its own latencies" \
	"$R" replay "$tmp/m.log.gz" --heuristic DTR --ratio 0.5 --offload-bandwidth measured --offload-latency 1us

# With a link: the counters, the copies in the timeline and the trace.
j=$("$R" replay "$L" --heuristic DTR --ratio 0.5 --json --offload-bandwidth 25GB/s --offload-policy swap)
for key in '"offload_bandwidth":25000000000.0' '"offload_latency_ns":0' '"host_memory":null' \
	'"offload_prefetch":0' '"offload_policy":"swap"' '"offloads":' '"bytes_offloaded":' '"fetches":' \
	'"bytes_fetched":' '"stall_ns":' '"d2h_busy_ns":' '"h2d_busy_ns":' '"peak_host_memory":' '"remat_compute":0,'; do
	case "$j" in *"$key"*) ok "json has $key" ;; *) no "json lacks $key: $j" ;; esac
done
t=$("$R" replay "$L" --heuristic DTR --ratio 0.5 --offload-bandwidth 25GB/s)
case "$t" in *"offload: "*" storages, "*" bytes out; "*"stall "*" ns; busy d2h "*"host peak"*) ok "text has the counters" ;;
	*) no "text lacks the counters: $t" ;; esac
"$R" replay "$L" --heuristic DTR --ratio 0.5 --offload-bandwidth 25GB/s --offload-policy swap \
	--timeline "$tmp/o.tsv" --trace "$tmp/o.json" >/dev/null || no "timeline and trace with a link"
for ev in offload offloaded fetch; do
	grep -q "	$ev	" "$tmp/o.tsv" && ok "timeline has $ev rows" || no "timeline lacks $ev rows"
done
bad=$(awk -F'\t' 'NF != 8' "$tmp/o.tsv" | wc -l)
[ "$bad" -eq 0 ] && ok "timeline rows have 8 fields" || no "$bad timeline rows without 8 fields"
if command -v python3 >/dev/null; then
	python3 - "$tmp/o.json" <<'EOF' && ok "trace: copies on their own tracks" || no "trace copies"
import json, sys
t = json.load(open(sys.argv[1]))["traceEvents"]
names = {e["tid"]: e["args"]["name"] for e in t if e.get("name") == "thread_name"}
assert names[5].startswith("offload") and names[6].startswith("fetch"), names
out = [e for e in t if e.get("cat") == "offload"]
back = [e for e in t if e.get("cat") == "fetch"]
assert out and back and all(e["tid"] == 5 and e["dur"] >= 0 for e in out)
assert all(e["tid"] == 6 for e in back)
EOF
	"$R" replay "$L" --heuristic DTR --ratio 0.5 --trace "$tmp/n.json" >/dev/null
	python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["traceEvents"]; assert not [e for e in t if e.get("tid") in (5, 6)]' \
		"$tmp/n.json" && ok "trace without a link: no copy tracks" || no "trace without a link has copy tracks"
fi

# Sweeps: columns only with a link; the same rows on 1 or 2 threads, on
# resume, and merged from two shards.
cat >"$tmp/off.yaml" <<EOF
experiment: offtest
models:
  - {name: mlp, log: $LOGS/mlp-cpu.log.gz, has_start: true}
  - {name: transformer, log: $LOGS/transformer-cpu.log.gz, has_start: true}
series:
  - {name: drop, heuristic: DTR}
  - {name: swap, heuristic: LRU, offload: swap, offload_bandwidth: 25GB/s, offload_latency: 5us}
  - {name: both, heuristic: DTR, offload_bandwidth: 4.5e11, host_memory: 8MiB, offload_prefetch: 2}
ratios: [0.2, 0.4, 0.6, 0.8, 1.0]
EOF
sed '/offload_bandwidth\|offload: /d' "$tmp/off.yaml" >"$tmp/plain.yaml"
body() { grep -v '^# command' "$1" | awk -F'\t' 'BEGIN{OFS="\t"} NF > 1 {$17 = "-"} {print}'; }
"$R" sweep "$tmp/off.yaml" --out "$tmp/j1" --jobs 1 --quiet && "$R" sweep "$tmp/off.yaml" --out "$tmp/j2" --jobs 2 --quiet ||
	no "offload sweeps"
[ "$(body "$tmp/j1/points.tsv")" = "$(body "$tmp/j2/points.tsv")" ] && ok "the same rows on 1 and 2 threads" ||
	no "rows differ between 1 and 2 threads"
head=$(grep -v '^#' "$tmp/j1/points.tsv" | head -1)
case "$head" in *"	point	offload	offload_bandwidth	"*"	peak_host_memory	stopped_clock") ok "offload columns last (stopped_clock after them)" ;; *) no "columns: $head" ;; esac
grep -q "	drop	[0-9]*	none	none	0	0	0	0	0	0	0	0	0	0	0	[-0-9]*$" "$tmp/j1/points.tsv" && ok "a series without a link: none and zeros" ||
	no "the drop series' offload columns"
grep -q "	both	[0-9]*	cost	450000000000	0	8388608	2	" "$tmp/j1/points.tsv" && ok "the link's parameters" ||
	no "the both series' offload columns"
# each series its own replays: the drop series sends nothing, the others
# send something at some budget (field 18 the series, 25 its offloads)
n=$(awk -F'\t' '!/^#/ && $18 == "drop" && $25 != 0' "$tmp/j1/points.tsv" | wc -l)
s=$(awk -F'\t' '!/^#/ && $18 == "swap" && $25 > 0' "$tmp/j1/points.tsv" | wc -l)
b=$(awk -F'\t' '!/^#/ && $18 == "both" && $25 > 0' "$tmp/j1/points.tsv" | wc -l)
[ "$n" -eq 0 ] && [ "$s" -gt 0 ] && [ "$b" -gt 0 ] && ok "each series' own copies ($s swap, $b both rows)" ||
	no "offloads by series: drop $n, swap $s, both $b"
"$R" sweep "$tmp/plain.yaml" --out "$tmp/plain" --quiet || no "plain sweep"
case "$(grep -v '^#' "$tmp/plain/points.tsv" | head -1)" in *offload*) no "a sweep without a link has offload columns" ;;
	*"	series	point	stopped_clock") ok "a sweep without a link: the usual columns" ;; *) no "plain columns" ;; esac
cp "$tmp/j1/points.tsv" "$tmp/before.tsv"
"$R" sweep "$tmp/off.yaml" --out "$tmp/j1" --jobs 1 --quiet && cmp -s "$tmp/before.tsv" "$tmp/j1/points.tsv" &&
	ok "resumed: nothing rerun" || no "resume of an offload sweep"
"$R" sweep "$tmp/off.yaml" --out "$tmp/s1" --shard 1/2 --quiet && "$R" sweep "$tmp/off.yaml" --out "$tmp/s2" --shard 2/2 --quiet &&
	"$R" merge "$tmp/s1" "$tmp/s2" --out "$tmp/m" >/dev/null || no "shards and merge"
[ "$(body "$tmp/m/points.tsv" | grep -v '^# shard')" = "$(body "$tmp/j1/points.tsv" | grep -v '^# shard')" ] &&
	ok "merged shards: the same rows" || no "merged shards differ"

# The experiment file's refusals name the line.
printf 'experiment: x\nmodels: [{name: m, log: %s}]\nseries:\n  - {name: a, heuristic: DTR, offload: swap}\nratios: [1]\n' \
	"$LOGS/mlp-cpu.log.gz" >"$tmp/bad.yaml"
m=$("$R" sweep "$tmp/bad.yaml" --out "$tmp/bad" 2>&1); st=$?
[ $st -eq 65 ] && case "$m" in *"bad.yaml:4:"*"'offload' needs a host link"*) true ;; *) false ;; esac &&
	ok "offload without a bandwidth: 65 at its line" || no "bad yaml: $st $m"
sed -i 's/offload: swap/offload_bandwidth: 5GB\/fortnight/' "$tmp/bad.yaml"
expect_status 65 "a bandwidth that is no rate" "$R" sweep "$tmp/bad.yaml" --out "$tmp/bad"
sed -i 's/heuristic: DTR, offload_bandwidth: [^}]*/heuristic: DTRPrototype, offload_bandwidth: 1e9/' "$tmp/bad.yaml"
expect_status 65 "DTRPrototype with a link" "$R" sweep "$tmp/bad.yaml" --out "$tmp/bad"


# peak and fit take the same link (cmd_opts.h's struct opt_offload): the
# same refusals, the peak replay's own peak, and a fit that offloads.
L=$LOGS/transformer-cpu.log.gz
expect_status 64 "peak: offload on V1" "$R" peak tiny.log --heuristic DTRUnopt --runtime V1 --ratio 0.5 --offload-bandwidth 1e9
expect_status 64 "peak: offload with no heuristic" "$R" peak tiny.log --offload-bandwidth 1e9
expect_status 64 "peak: latency without a link" "$R" peak tiny.log --heuristic DTR --ratio 0.5 --offload-latency 1us
expect_status 64 "fit: offload with DTRPrototype" "$R" fit tiny.log --heuristic DTRPrototype --offload-bandwidth 1e9
expect_status 64 "fit: unknown policy" "$R" fit tiny.log --heuristic DTR --offload-bandwidth 1e9 --offload-policy drop
a=$("$R" peak "$L" --heuristic DTR --ratio 0.5 --json)
b=$("$R" peak "$L" --heuristic DTR --ratio 0.5 --json --offload-bandwidth none)
[ "$a" = "$b" ] && ok "peak: no link, the same JSON" || no "peak: no link changed the JSON"
key() { sed -E "s/.*\"$1\":([^,}]*).*/\1/"; }
for pol in cost swap; do
	for ratio in 0.3 0.5; do
		off="--offload-bandwidth 1e9 --offload-prefetch 2 --offload-policy $pol"
		# shellcheck disable=SC2086
		p=$("$R" peak "$L" --heuristic DTR --ratio $ratio --json $off)
		# shellcheck disable=SC2086
		r=$("$R" replay "$L" --heuristic DTR --ratio $ratio --json $off)
		[ "$(echo "$p" | key peak_memory)" = "$(echo "$r" | key peak_memory)" ] &&
		[ "$(echo "$p" | key offload_policy)" = "\"$pol\"" ] &&
			ok "peak with a link ($pol, $ratio): the replay's peak, $(echo "$r" | key peak_memory) bytes" ||
			no "peak with a link ($pol, $ratio): $p / $r"
	done
done
f0=$("$R" fit "$L" --heuristic DTR --json | key smallest_pass)
f1=$("$R" fit "$L" --heuristic DTR --json --offload-bandwidth 1e9 --offload-policy swap | key smallest_pass)
[ "$f1" -lt "$f0" ] && ok "fit with a swap link: a smaller budget passes ($f1 < $f0)" || no "fit with a link: $f1, without $f0"
r=$("$R" replay "$L" --heuristic DTR --budget "$f1" --json --offload-bandwidth 1e9 --offload-policy swap)
[ "$(echo "$r" | key outcome)" = '"pass"' ] && ok "the fit's budget passes with that link" || no "replay at the fit: $r"


# A host link on a log timed on a CPU (issue 44, item 4): a warning naming
# the problem, and recompute only beside the offload result (text and
# JSON); a log timed on a device, or by a device time model, is not warned.
"$R" replay "$L" --heuristic DTR --ratio 0.5 --offload-bandwidth 25GB/s >"$tmp/cpu.out" 2>"$tmp/cpu.err"
grep -q "transformer-cpu.meta.json says the log's op times were taken on a CPU" "$tmp/cpu.err" &&
	ok "a CPU-timed log with a link: warned" || no "no warning: $(cat "$tmp/cpu.err")"
grep -Eq '^ +recompute only: (pass/[0-9.e+-]+|oom/-|thrash/-) ' "$tmp/cpu.out" &&
	ok "recompute only beside it: $(grep 'recompute only' "$tmp/cpu.out" | sed 's/ (.*//; s/^ *//')" ||
	no "no recompute-only line: $(cat "$tmp/cpu.out")"
want=$("$R" replay "$L" --heuristic DTR --ratio 0.5 --json | key overhead)
j=$("$R" replay "$L" --heuristic DTR --ratio 0.5 --offload-bandwidth 25GB/s --json 2>/dev/null)
[ "$(echo "$j" | key recompute_only_overhead)" = "$want" ] && [ "$(echo "$j" | key cpu_timed_log)" = true ] &&
	ok "JSON: recompute_only_overhead is the replay's without a link ($want)" ||
	no "JSON recompute only: $j (want $want)"
m=$("$R" peak "$L" --heuristic DTR --ratio 0.5 --offload-bandwidth 25GB/s 2>&1 >/dev/null)
case "$m" in *"taken on a CPU"*) ok "peak warns too" ;; *) no "peak: $m" ;; esac
for dev in "$LOGS/cnn-cuda-h200.log.gz" "$LOGS/llm-gpt2-xl-s1024-h100.log.gz"; do
	"$R" replay "$dev" --heuristic DTR --ratio 0.9 --offload-bandwidth 25GB/s >"$tmp/dev.out" 2>"$tmp/dev.err"
	! grep -q "CPU" "$tmp/dev.err" && ! grep -q "recompute only" "$tmp/dev.out" &&
		ok "$(basename "$dev"): timed for a device, no warning" || no "$(basename "$dev"): $(cat "$tmp/dev.err")"
done

exit $fail
