#!/bin/sh
# cli-hostile.sh REMATSIM: the findings of issue 27's hostile pass that a
# command line shows, one section each (N1 and N3 have tests of their own:
# plot-quoting.sh, test-reader's log_changed_between_passes). Each check
# failed on the main before the fix.
set -u
R=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/cli-lib.sh"
src=$(cd "$(dirname "$0")/.." && pwd)
cd "$(dirname "$0")/data" || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# has DESC TEXT PATTERN: the text holds the fixed string
has() {
	case "$2" in *"$3"*) ok "$1" ;; *) no "$1: '$3' not in: $2" ;; esac
}

# ---- N2, N6: every output through the one safe path (outfile.h): a
# device, a FIFO or a link to one written in place, never replaced; a
# link to a file refused (73); a temporary left by no signal; a long name.
# Devices only through links in $T: a build with the bug (as root) would
# replace the machine's /dev/full or /dev/stdout with a file.
ln -s /dev/null "$T/null"
expect_status 0 "gen --out a link to /dev/null" "$R" gen linear --n 4 --out "$T/null"
[ -L "$T/null" ] && ok "gen: the link to /dev/null is still a link" || no "gen replaced the link to /dev/null"
ln -s /dev/full "$T/full"
expect_status 74 "gen --out a link to /dev/full (a full disk)" "$R" gen linear --n 4 --out "$T/full"
[ -L "$T/full" ] && ok "gen: the link to /dev/full is still a link" || no "gen replaced the link to /dev/full"
mkfifo "$T/fifo"
timeout 20 cat "$T/fifo" > "$T/from-fifo" &  # (no hang if the FIFO is replaced)
reader=$!
expect_status 0 "gen --out a FIFO" "$R" gen linear --n 4 --out "$T/fifo"
wait $reader
[ -p "$T/fifo" ] && grep -q '"INSTRUCTION":"CALL"' "$T/from-fifo" &&
	ok "gen wrote the log through the FIFO" || no "gen replaced the FIFO or wrote nothing through it"
# (what /dev/stdout is, in a folder of ours: a build that renamed over it
# must not replace the machine's)
ln -s /proc/self/fd/1 "$T/stdout"
has "gen --out a link to standard output" "$("$R" gen linear --n 4 --out "$T/stdout")" \
	'"INSTRUCTION":"CALL"'
echo keep > "$T/target.log"
ln -s target.log "$T/link.log"
expect_status 73 "gen --out a link to a file" "$R" gen linear --n 4 --out "$T/link.log"
[ -L "$T/link.log" ] && [ "$(cat "$T/target.log")" = keep ] &&
	ok "gen: the link and its target are as they were" || no "gen replaced the link or wrote its target"
has "gen --out a link to a file: the message" \
	"$("$R" gen linear --n 4 --out "$T/link.log" 2>&1)" "is a symbolic link"
long=$T/$(printf 'a%.0s' $(seq 246)).log # 250 characters, NAME_MAX 255
expect_status 0 "gen --out a name of 250 characters" "$R" gen linear --n 4 --out "$long"
[ -s "$long" ] && ok "gen wrote the 250-character name" || no "no file of 250 characters"
mkdir "$T/sig"
for sig in TERM INT HUP; do
	env --default-signal=$sig "$R" gen linear --n 20000000 --out "$T/sig/big.log.gz" 2>/dev/null &
	pid=$!
	i=0
	while [ -z "$(ls "$T/sig")" ] && [ $i -lt 500 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	kill -s $sig $pid
	wait $pid
	st=$?
	left=$(ls "$T/sig")
	[ -z "$left" ] && [ $st -gt 128 ] && ok "SIG$sig mid-gen (status $st) left nothing" ||
		no "SIG$sig mid-gen (status $st) left: $left"
done
mkdir "$T/plot"
"$R" sweep -q "$src/scripts/experiments/pareto.yaml" --manifest manifest.json \
	--out "$T/plot" >/dev/null 2>&1 || no "a sweep to plot"
ln -s ../target.log "$T/plot/pareto.png"
if command -v gnuplot >/dev/null 2>&1; then
	expect_status 73 "plot: a figure's name is a link" "$R" plot --format png "$T/plot"
	[ -L "$T/plot/pareto.png" ] && [ "$(cat "$T/target.log")" = keep ] &&
		ok "plot: the link and its target are as they were" || no "plot replaced the link"
fi

# ---- N15: merge checks what it copies (plot refused what it copied from a
# tampered shard).
mkdir "$T/mg"
printf 'experiment: mg\nmanifest: %s\nheuristics: [DTR, LRU]\nratios: [0.5, 1.0]\n' \
	"$PWD/manifest.json" > "$T/mg/e.yaml"
"$R" sweep -q "$T/mg/e.yaml" --shard 1/2 --out "$T/mg/s1" && "$R" sweep -q "$T/mg/e.yaml" \
	--shard 2/2 --out "$T/mg/s2" || no "the shards to merge"
expect_status 0 "merge of untouched shards" "$R" merge "$T/mg/s1" "$T/mg/s2" --out "$T/mg/m"
# tamper SHARD FILE SED-SCRIPT DESC MESSAGE: merge refuses the shards (65)
tamper() {
	rm -rf "$T/mg/t1" "$T/mg/t2" "$T/mg/tm"
	cp -r "$T/mg/s1" "$T/mg/t1" && cp -r "$T/mg/s2" "$T/mg/t2"
	sed -i "$3" "$T/mg/t$1/$2"
	cmp -s "$T/mg/t$1/$2" "$T/mg/s$1/$2" && { no "$4: the sed changed nothing"; return; }
	msg=$("$R" merge "$T/mg/t1" "$T/mg/t2" --out "$T/mg/tm" 2>&1)
	st=$?
	case "$st $msg" in
	"65 "*"$2"*"$5"*) ok "merge refuses $4 (65)" ;;
	*) no "merge of $4: status $st: $msg" ;;
	esac
	[ ! -e "$T/mg/tm/points.tsv" ] || no "merge of $4 wrote points.tsv"
}
tamper 1 models.tsv '2s/\t[^\t]*$//' "a models.tsv row short of a column" "expected 15 tab-separated columns"
tamper 1 models.tsv '1s/^model/name/' "models.tsv without its column line" "column line"
tamper 1 models.tsv '3s/^chain12/chainX/' "a model of models.tsv renamed" "not the models of these points"
tamper 1 models.tsv '4d' "models.tsv lacking a model" "no row for model 'chain16'"
tamper 1 models.tsv '2s/\t139264\t/\t13e4\t/' "a memory in models.tsv that is not a number" "not a whole number"
tamper 2 models.tsv '2s/\t139264\t/\t139265\t/' "the second shard's models.tsv differing" "differs from"
tamper 1 points.tsv 's/^# experiment: mg$/# experiment: ..\/mg/' "an experiment name that is a path" "not an experiment's name"
tamper 1 points.tsv 's/^# overhead_limit: 2$/# overhead_limit: two/' "an overhead limit that is not a number" "'overhead_limit'"
tamper 2 points.tsv 's/^# overhead_limit: 2$/# overhead_limit: 3/' "shards of two overhead limits" "the shards disagree"
tamper 2 points.tsv 's/^chain12\tDTR/chainZ\tDTR/' "a row of an unknown model" "not one of the header's"
if command -v gnuplot >/dev/null 2>&1; then
	expect_status 0 "plot of the merged shards" "$R" plot --format png "$T/mg/m"
fi

# ---- N7: a worker thread that cannot start under --memory-limit is the
# memory limit (71), not an internal error (70).
if ldd "$R" 2>/dev/null | grep -q libasan; then
	# (AddressSanitizer: the limit is not applied, util.h)
	echo "ok - # SKIP --jobs past --memory-limit (AddressSanitizer build)"
else
	expect_status 71 "sweep --jobs 2 --memory-limit 12MB" \
		"$R" sweep -q "$T/mg/e.yaml" --jobs 2 --memory-limit 12MB --out "$T/mg/lim"
	has "sweep --jobs 2 --memory-limit 12MB: the message" \
		"$("$R" sweep -q "$T/mg/e.yaml" --jobs 2 --memory-limit 12MB --out "$T/mg/lim" 2>&1)" \
		"give fewer --jobs or raise --memory-limit"
	expect_status 71 "fit --jobs 16 --memory-limit 40MB" \
		"$R" fit chain8.log --heuristic DTR --jobs 16 --memory-limit 40MB
fi

# ---- D18: messages that name the right thing.
printf '%s\n' '{"INSTRUCTION":"CONSTANT","NAME":"x0"}' '{"INSTRUCTION":"MEMORY","MEMORY":"8","NAME":"x0"}' \
	'{"INSTRUCTION":"CALL","NAME":"f","ARGS":["x0"],"RESULT":["x1"],"TIME":"3"}' \
	'{"INSTRUCTION":"MEMORY","MEMORY":"8","NAME":"x1"}' \
	'{"INSTRUCTION":"ALIAS","ALIAS":"18446744073709551615","NAME":"x1"}' > "$T/alias.log"
has "an ALIAS past 2^63 as the log gives it" "$("$R" check "$T/alias.log" 2>&1)" \
	'alias.log:5: ALIAS 18446744073709551615 of "x1" is out of range'
printf 'experiment: d\nmodels: [{name: a, log: a.log}]\nheuristics: [DTR, LRU, DTR]\nratios: [0.5]\n' \
	> "$T/dup.yaml"
has "a duplicate heuristic at its place" "$("$R" sweep "$T/dup.yaml" --dry-run 2>&1)" \
	"dup.yaml:3:24: series 'DTR' appears twice"
for c in sweep merge; do
	expect_status 64 "$c --out ''" "$R" $c "$T/mg/e.yaml" --out ''
	has "$c --out '': the message" "$("$R" $c "$T/mg/e.yaml" --out '' 2>&1)" "--out: an empty name is no folder"
done

# ---- N9-N14: small validations.
# N9: a negative or wrapping number of bench --scale
for a in "--timeout -1" "--timeout 0" "--timeout 4294967297" "--min-log2 4294967297" "--max-log10 -1"; do
	# (under a timeout: a build that takes the number would run the bench)
	# shellcheck disable=SC2086
	expect_status 64 "bench --scale $a" timeout 30 "$R" bench --scale $a
done
# N10: a budget formula that is 0 at some n, as a literal 0 is refused
printf 'experiment: z\nmodels:\n  - {gen: linear, n: [8, 16]}\nbudgets: ["n-8"]\nheuristics: [DTR]\n' > "$T/z.yaml"
expect_status 65 "a budget formula that is 0 at n = 8" "$R" sweep -q "$T/z.yaml" --out "$T/z"
has "a budget formula that is 0: the message" "$("$R" sweep -q "$T/z.yaml" --out "$T/z" 2>&1)" \
	"budget formula 'n-8' is 0 there (a budget must be positive) (model 'linear n=8', n = 8)"
# N11: size-dist and size_dist together
printf 'experiment: s\nmodels:\n  - {gen: linear, n: 8, size-dist: "const:2", size_dist: "const:3"}\nratios: [0.5]\nheuristics: [DTR]\n' > "$T/s.yaml"
has "size-dist and size_dist together" "$("$R" sweep "$T/s.yaml" --dry-run 2>&1)" \
	"s.yaml:3:47: 'size-dist' and 'size_dist' are one parameter: give it once"
# N12: sweep --fit: the resolution checked before the points run, and one
# small model (or one of baseline 0) does not stop the others' fit.tsv
expect_status 64 "sweep --fit 0.000001 (refused before running)" \
	"$R" sweep -q "$T/mg/e.yaml" --fit 0.000001 --out "$T/fit0"
[ ! -e "$T/fit0/points.tsv" ] && ok "sweep --fit 0.000001 ran no point" || no "sweep --fit 0.000001 ran the points"
printf 'experiment: f\nmodels:\n  - {name: tiny, log: %s/tiny.log}\n  - {name: c8, log: %s/chain8.log}\n  - {name: z, log: %s/zero-mem.log}\nheuristics: [DTR]\nratios: [0.5, 1.0]\n' \
	"$PWD" "$PWD" "$PWD" > "$T/f.yaml"
expect_status 0 "sweep --fit 0.001 with a model of 208 bytes and one of 0" \
	"$R" sweep -q "$T/f.yaml" --fit 0.001 --out "$T/fit"
has "fit.tsv: the small model at one byte, the other at 0.001" "$(cut -f1,7 "$T/fit/fit.tsv" 2>&1)" \
	"$(printf 'tiny\t0.004807692307692308\nc8\t0.001')"
# N13: const:X past 2^53 that a double would round
expect_status 64 "gen --size-dist const:9007199254740993" \
	"$R" gen linear --n 4 --size-dist const:9007199254740993 --out "$T/c.log"
expect_status 0 "gen --size-dist const:9007199254740994 (a double holds it)" \
	"$R" gen linear --n 4 --size-dist const:9007199254740994 --out "$T/c.log"
has "const:9007199254740994: the sizes as given" "$(cat "$T/c.log")" '"MEMORY":"9007199254740994"'
# N14: a trace window past the end, or holding nothing, says so
expect_status 64 "replay --trace-from past the log's end" \
	"$R" replay chain8.log --heuristic DTR --ratio 0.5 --trace "$T/t.json" --trace-from 500
has "replay --trace-from past the end: the message" \
	"$("$R" replay chain8.log --heuristic DTR --ratio 0.5 --trace "$T/t.json" --trace-from 500 2>&1)" \
	"--trace-from 500 is past the log's last line (136)"
has "replay --trace-from 2 --trace-to 3: an empty trace said" \
	"$("$R" replay chain8.log --heuristic DTR --ratio 0.5 --trace "$T/t.json" --trace-from 2 --trace-to 3 2>&1)" \
	"the trace holds no event: no model op of lines 2 to 3 ran"

# ---- N5: JSON of unsigned values above 2^63 - 1 (they were negative).
max=18446744073709551615
has "replay --json: a budget of 2^64 - 1" \
	"$("$R" replay chain8.log --heuristic DTR --budget $max --json)" "\"budget\":$max,"
has "replay --json: a budget of 2^63" \
	"$("$R" replay chain8.log --heuristic DTR --budget 9223372036854775808 --json)" \
	'"budget":9223372036854775808,'
has "peak --json: a budget of 2^64 - 1" \
	"$("$R" peak chain8.log --heuristic DTR --budget $max --json)" "\"budget\":$max,"
printf '9223372036854775808\n1\n' > "$T/sizes.txt"
has "solve --sizes --json: a max_memory above 2^63" \
	"$("$R" solve --sizes "$T/sizes.txt" -k 1 --json)" '"max_memory":9223372036854775808,'
has "solve --json: a segment budget of 2^64 - 1" \
	"$("$R" solve solvers-chain.log --planner greedy --segment-budget $max --json)" \
	"\"segment_budget\":$max,"

# ---- N4: a JSON object left out (exit 0) where jansson refused a value:
# an infinite ratio or overhead (a baseline compute or memory of 0), a
# name that is not UTF-8.
# json_has DESC TEXT PYTHON-EXPR: the text is JSON lines and the expression
# (over the last line's object o) is true
json_has() {
	if printf '%s\n' "$2" | python3 -c '
import json, sys
lines = [l for l in sys.stdin.read().splitlines() if l]
o = json.loads(lines[-1])
sys.exit(0 if eval(sys.argv[1]) else 1)' "$3" 2>/dev/null; then ok "$1"; else no "$1: $3 is false of: $2"; fi
}
for l in zero-mem.log zero-time.log; do
	json_has "solve --replay --json of $l: the replay object" \
		"$("$R" solve $l --planner dp -k 1 --replay --json)" \
		'o["replay"]["outcome"] == "pass" and None in (o["replay"]["ratio"], o["replay"]["overhead"])'
done
json_has "fit --json of zero-time.log: every probe (overhead null)" \
	"$("$R" fit zero-time.log --heuristic DTR --json)" \
	'len(o["probes"]) == o["probes_total"] and o["probes"][0]["overhead"] is None'
bad=$(printf 'bad\377name.log')
cp chain8.log "$T/$bad"
for c in "replay --heuristic DTR --ratio 1" "peak" "info" "check" "profile" \
	"solve --planner dp -k 1" "fit --heuristic DTR"; do
	# shellcheck disable=SC2086
	json_has "$c --json of a log named in bytes that are not UTF-8: its log key" \
		"$("$R" $c "$T/$bad" --json)" 'o["log"].endswith("bad\ufffdname.log")'
done

# ---- N16: the reported peak is a moment of the timeline and of the trace
# (a rematerialization beside outputs still in memory counts them until
# they are dropped: the timeline's `drop` row after it; the peak on four
# failed runs was in neither).
peak_seen() { # LOG HEURISTIC RATIO
	out=$("$R" replay "$1" --heuristic "$2" --ratio "$3" --json --timeline "$T/tl.tsv" \
		--trace "$T/tr.json") || { no "replay $1 $2 $3"; return; }
	if printf '%s\n' "$out" | python3 -c '
import json, sys
o = json.loads(sys.stdin.read())
# (the `backward` row marks where the backward pass begins: no event of its own)
tl = [r for r in (l.split("\t") for l in open(sys.argv[1]).read().splitlines()[1:])
      if r[2] != "backward"]
tr = json.load(open(sys.argv[2]))["traceEvents"]
samples = [e["args"]["bytes"] for e in tr if e.get("name") == "memory" and e.get("ph") == "C"]
# each row: memory after the event; a drop row right after its op, less its bytes
ok = max(int(r[1]) for r in tl) == o["peak_memory"] == max(samples)
ok = ok and samples == [int(r[1]) for r in tl]
for a, b in zip(tl, tl[1:]):
    if b[2] == "drop":
        ok = ok and a[2] in ("compute", "remat") and a[3] == b[3] and int(a[1]) - int(b[1]) == int(b[7])
sys.exit(0 if ok else 1)' "$T/tl.tsv" "$T/tr.json"; then
		ok "$1 $2 $3 ($(printf '%s' "$out" | grep -o '"outcome":"[a-z]*"')): the peak is in the timeline and the trace"
	else
		no "$1 $2 $3: the peak is not the timeline's or the trace's"
	fi
}
# (runs with drops: out of memory, thrashing, passing)
peak_seen region-drift.log DTREqClass 0.15
for h in DTR MSPS; do
	peak_seen small/r11.log $h 0.2
	peak_seen small/r31.log $h 0.2
done
peak_seen small/r26.log DTR 0.4
peak_seen small/r21.log MSPS 0.6
peak_seen small/r31.log MSPS 0.15
peak_seen small/r14.log MSPS 0.3
peak_seen ../../logs/lstm-cpu.log.gz DTR 0.6

exit $fail
