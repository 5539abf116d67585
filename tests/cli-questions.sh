#!/bin/sh
# cli-questions.sh REMATSIM: `rematsim peak`, `fit` and `replay --trace`
# and `--timeline` as a user meets them: answers that agree with `replay`,
# names that are the log's, exit statuses of bad requests, and no
# half-written files.
set -u
R=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/cli-lib.sh"
cd "$(dirname "$0")/data" || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rematsim-questions.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

field() { # JSON FIELD: an integer field of a one-line JSON object
	printf '%s\n' "$1" | sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p"
}

# --- peak --------------------------------------------------------------------
expect_status 0 "peak unbounded" "$R" peak tiny.log
expect_status 0 "peak --help" "$R" peak --help
expect_status 0 "peak budgeted" "$R" peak chain12.log --heuristic DTR --ratio 0.5 --top 3
for log in tiny.log peak.log chain8.log chain16.log; do
	p=$(field "$("$R" peak "$log" --json)" peak_memory)
	b=$(field "$("$R" replay "$log" --heuristic DTR --ratio 1 --json)" baseline_memory)
	[ -n "$p" ] && [ "$p" = "$b" ] && ok "peak of $log is the baseline memory ($p)" ||
		no "peak of $log: $p, baseline memory $b"
done
for h in DTR LRU MSPS; do
	p=$(field "$("$R" peak chain12.log --heuristic $h --ratio 0.6 --json)" peak_memory)
	b=$(field "$("$R" replay chain12.log --heuristic $h --ratio 0.6 --json)" peak_memory)
	[ -n "$p" ] && [ "$p" = "$b" ] && ok "peak under $h is the replay's peak_memory ($p)" ||
		no "peak under $h: $p, replay $b"
done
out=$("$R" peak peak.log)
case "$out" in *"7660 bytes"*"log line 23, op linear_backward"*"temporary                60    0.8%         2"*)
	ok "peak table of peak.log" ;; *) no "peak table of peak.log: $out" ;; esac
# A replay that stops is shown where it stopped (status 0): out of memory,
# the set when nothing more could be evicted, the op's inputs marked;
# thrash, the set at the limit.
expect_status 0 "peak: a replay that runs out of memory" "$R" peak tiny.log --heuristic DTR --budget 10
m=$("$R" peak tiny.log --heuristic DTR --budget 10 2>&1)
case "$m" in *"when the replay ran out of memory"*"below the log's bottleneck, 192 bytes"*) ok "peak: the bottleneck is named" ;;
	*) no "peak below the bottleneck says: $m" ;; esac
m=$("$R" peak peak.log --heuristic DTR --budget 4596)
case "$m" in *"at command 9 (log line 23, op linear_backward)"*"live: 2600 bytes"*"3 storages: 1 pinned (100 bytes), 2 more inputs of op linear_backward (2500 bytes)"*"op linear_backward makes 4000 bytes of outputs; 1996 bytes of the budget are free"*"2000 "*"input "*"linear"*"b"*) ok "peak at OOM: where, the live set, the inputs" ;;
	*) no "peak at OOM says: $m" ;; esac
j=$("$R" peak peak.log --heuristic DTR --budget 4596 --json)
case "$j" in *'"outcome":"oom","live_memory":2600'*'"handle":"b","storage":'*',"input":true}'*) ok "peak --json at OOM" ;;
	*) no "peak --json at OOM: $j" ;; esac
m=$("$R" peak chain16.log --heuristic LRU --ratio 0.5 --overhead-limit 1.05)
case "$m" in *"when the replay thrashed"*"the remat compute, 18000 ns, passed 0.05 x the baseline compute, 12125.5 ns"*) ok "peak at the overhead limit" ;;
	*) no "peak at thrash says: $m" ;; esac
j=$("$R" peak chain12.log --heuristic DTR --ratio 0.6 --json)
case "$j" in *'"outcome"'* | *'"input"'* | '') no "a passing peak's JSON: $j" ;; *) ok "a passing run's peak has no outcome or input keys (its JSON as before)" ;; esac
expect_status 64 "peak: budget without heuristic" "$R" peak tiny.log --budget 100
expect_status 64 "peak: heuristic without budget" "$R" peak tiny.log --heuristic DTR
expect_status 64 "peak: unknown heuristic" "$R" peak tiny.log --heuristic Nope --ratio 1
expect_status 64 "peak: bad --top" "$R" peak tiny.log --top -1
expect_status 66 "peak: missing log" "$R" peak no-such.log

# --- fit ---------------------------------------------------------------------
j=$("$R" fit chain12.log --heuristic LRU --json)
case "$j" in *'"smallest_pass":34816,'*'"largest_fail_above":39423,'*'"all_pass_from":39424,'*'"monotone":false'*)
	ok "fit: the non-monotone range of chain12 under LRU" ;; *) no "fit chain12 LRU: $j" ;; esac
out=$("$R" fit chain12.log --heuristic LRU)
case "$out" in *"34815 fails"*"39423 bytes"*"not monotone"*"from 39424 bytes"*) ok "fit: the table says so" ;;
	*) no "fit table: $out" ;; esac
s=$(field "$j" smallest_pass)
o1=$("$R" replay chain12.log --heuristic LRU --budget "$s" --json)
o0=$("$R" replay chain12.log --heuristic LRU --budget $((s - 1)) --json)
case "$o1$o0" in *'"outcome":"pass"'*'"outcome":"'[ot]*) ok "fit: replay agrees at the boundary" ;;
	*) no "fit boundary: $o1 $o0" ;; esac
expect_status 64 "fit: resolution 0" "$R" fit tiny.log --heuristic DTR --resolution 0
expect_status 64 "fit: resolution above 1" "$R" fit tiny.log --heuristic DTR --resolution 2
expect_status 64 "fit: resolution below a byte" "$R" fit tiny.log --heuristic DTR --resolution 0.001
expect_status 64 "fit: too many grid points" "$R" fit chain12.log --heuristic DTR --resolution 0.000001
m=$("$R" fit tiny.log --heuristic DTR --resolution 0.001 2>&1)
case "$m" in *"finer than one byte"*) ok "fit: the resolution message" ;; *) no "fit resolution says: $m" ;; esac
# What fit did not try: the gaps between its probes above the answer. At
# resolution 0.05 the grid misses chain12's failing budgets above the
# smallest pass under LRU (34816 to 39423 fail again, above): the answer
# says it did not try them, and --scan finds them.
j=$("$R" fit chain12.log --heuristic LRU --resolution 0.05 --json)
case "$j" in *'"smallest_pass":34816,'*'"monotone":true,'*'"untried_gaps":'[1-9]*'"widest_untried":['*'"scan":null'*) ok "fit: the untried gaps" ;;
	*) no "fit at 0.05: $j" ;; esac
m=$("$R" fit chain12.log --heuristic LRU --resolution 0.05)
case "$m" in *"no failing budget above it among the probes"*"not tried: the budgets between the probes above it, in "*" gaps, the widest"*"--scan SPAN tries them"*) ok "fit: says what it did not try" ;;
	*) no "fit at 0.05 says: $m" ;; esac
j=$("$R" fit chain12.log --heuristic LRU --resolution 0.05 --scan 0.5 --scan-step 0.001 --json)
case "$j" in *'"smallest_pass":34816,'*'"largest_fail_above":39375,'*'"monotone":false,'*'"scan":{"span":0.5,"step":97,"to":'*) ok "fit --scan: the failures between grid points" ;;
	*) no "fit --scan: $j" ;; esac
expect_status 64 "fit: --scan 0" "$R" fit tiny.log --heuristic DTR --scan 0
expect_status 64 "fit: --scan 11" "$R" fit tiny.log --heuristic DTR --scan 11
expect_status 64 "fit: --scan-step without --scan" "$R" fit tiny.log --heuristic DTR --scan-step 0.01
expect_status 64 "fit: a scan of too many replays" "$R" fit chain12.log --heuristic DTR --scan 10 --scan-step 0.00002
# When the lower bound passes, it is the answer: one replay, and the budgets
# above it untried, said so (floor.log: L = 200, the op grow's a + b; the
# unbounded peak 250 holds t beside them; DTR evicts t and recomputes it).
j=$("$R" fit floor.log --heuristic DTR --json)
case "$j" in *'"smallest_pass":200,'*'"exact":true,'*'"grid_probes":1,"probes_total":1,"floor_passes":true,"untried_gaps":1,"widest_untried":[201,249]'*) ok "fit: stops at a lower bound that passes" ;;
	*) no "fit floor.log: $j" ;; esac
m=$("$R" fit floor.log --heuristic DTR)
case "$m" in *"the lower bound passes: the search stopped there, probing no budget above it"*"search: 1 replay"*) ok "fit: says it stopped at the lower bound" ;;
	*) no "fit floor.log says: $m" ;; esac
expect_status 64 "fit: no heuristic" "$R" fit tiny.log
expect_status 66 "fit: missing log" "$R" fit no-such.log --heuristic DTR

# fit in a sweep: one row per model and series, the same at any thread count
printf 'experiment: fitexp\nmanifest: %s/manifest.json\nheuristics: [DTR, LRU]\nratios: [0.5]\n' "$PWD" > "$tmp/fit.yaml"
expect_status 0 "sweep --fit" "$R" sweep "$tmp/fit.yaml" --out "$tmp/s1" --fit 0.01 --jobs 2 --quiet
expect_status 0 "sweep --fit, one thread" "$R" sweep "$tmp/fit.yaml" --out "$tmp/s2" --fit 0.01 --jobs 1 --quiet
cmp -s "$tmp/s1/fit.tsv" "$tmp/s2/fit.tsv" && ok "fit.tsv the same at any thread count" || no "fit.tsv differs by threads"
[ "$(wc -l < "$tmp/s1/fit.tsv")" -eq 7 ] && grep -q "^chain12	LRU	LRU	.*	34816	.*	39423	39424	.*	no	" "$tmp/s1/fit.tsv" &&
	ok "fit.tsv rows" || no "fit.tsv: $(cat "$tmp/s1/fit.tsv")"
expect_status 64 "sweep --fit sharded" "$R" sweep "$tmp/fit.yaml" --out "$tmp/s3" --fit 0.01 --shard 1/2
expect_status 64 "sweep --fit 0" "$R" sweep "$tmp/fit.yaml" --out "$tmp/s3" --fit 0

# --- trace -------------------------------------------------------------------
expect_status 0 "trace" "$R" replay chain12.log --heuristic DTR --ratio 0.5 --trace "$tmp/t.json"
if [ -s "$tmp/t.json" ] && [ ! -e "$tmp/t.json.tmp" ] && head -c 40 "$tmp/t.json" | grep -q '^{"displayTimeUnit"' \
	&& tail -c 4 "$tmp/t.json" | grep -q ']}'; then
	ok "trace file complete"
else
	no "trace file missing or cut"
fi
expect_status 73 "trace: unwritable" "$R" replay tiny.log --heuristic DTR --ratio 1 --trace /nonexistent-dir/t.json
if [ -c /dev/full ]; then
	expect_status 74 "trace: full device" "$R" replay tiny.log --heuristic DTR --ratio 1 --trace /dev/full
	[ -c /dev/full ] && ok "trace: /dev/full is still a device" || no "trace replaced /dev/full"
fi
expect_status 64 "trace window reversed" "$R" replay tiny.log --heuristic DTR --ratio 1 --trace "$tmp/w.json" \
	--trace-from 20 --trace-to 10
expect_status 64 "trace window without trace" "$R" replay tiny.log --heuristic DTR --ratio 1 --trace-from 1
expect_status 64 "trace window not a line" "$R" replay tiny.log --heuristic DTR --ratio 1 --trace "$tmp/w.json" \
	--trace-from x
[ ! -e "$tmp/w.json" ] && ok "no trace from a refused request" || no "a refused request left a trace"
# a replay the runtime refuses (region drift under DTR) leaves no trace
expect_status 65 "trace of a refused replay" "$R" replay region-drift.log --heuristic DTR --ratio 0.3 --trace "$tmp/d.json"
[ ! -e "$tmp/d.json" ] && [ ! -e "$tmp/d.json.tmp" ] && ok "no half-written trace" || no "half-written trace left"

# --- timeline names ----------------------------------------------------------
# Every row's op, handle and line are the log's: line LINE of the log is
# the record of op OP (a CONSTANT for "constant") and names the handle.
for log in tiny.log chain12.log peak.log; do
	"$R" replay $log --heuristic DTR --ratio 0.6 --timeline "$tmp/tl.tsv" >/dev/null
	bad=0 rows=0 evicts=0
	tab=$(printf '\t')
	while IFS="$tab" read -r clock memory event op handle budget line bytes; do
		[ "$clock" = clock ] && continue
		rows=$((rows + 1))
		[ "$event" = evict ] && evicts=$((evicts + 1))
		rec=$(sed -n "${line}p" $log)
		if [ "$op" = constant ]; then
			case "$rec" in *'"CONSTANT"'*"\"NAME\":\"$handle\""*) ;; *) bad=1 ;; esac
		else
			case "$rec" in *"\"NAME\":\"$op\""*) ;; *) bad=1 ;; esac
			case "$rec" in *"\"$handle\""*) ;; *) bad=1 ;; esac
		fi
	done < "$tmp/tl.tsv"
	[ $bad = 0 ] && [ $rows -gt 0 ] && ok "timeline names of $log are the log's ($rows rows, $evicts evictions)" ||
		no "timeline of $log names something the log does not"
	# One `backward` row where the backward pass begins (none when the replay
	# stops before it: tiny.log runs out of memory; there when it stops in
	# the first backward op's command, as peak.log does): at the first CALL after
	# the log's BACKWARD annotation, at the clock and memory of the row before
	# it, before any row of that op's command.
	first=$(awk '/"ANNOTATION":"BACKWARD"/ { b = 1; next } b && /"INSTRUCTION":"CALL"/ { print NR; exit }' $log)
	awk -F '\t' -v first="$first" '
		NR > 1 && $3 == "backward" {
			n++
			if ($7 != first) { print "backward row at line " $7 ", not " first; bad = 1 }
			if ($1 != clock || $2 != memory) { print "backward row at " $1 "/" $2 ", not " clock "/" memory; bad = 1 }
			if ($8 != 0) { print "backward row with bytes " $8; bad = 1 }
		}
		NR > 1 && $3 == "compute" && $7 == first { ran = 1; if (!n) { print "the first backward op runs before its row"; bad = 1 } }
		NR > 1 { clock = $1; memory = $2 }
		END { if (n > 1 || (ran && n != 1)) { print n + 0 " backward rows"; bad = 1 }; exit bad }' "$tmp/tl.tsv" >&2 &&
		ok "timeline of $log: the backward row (line $first), if the replay got there" || no "timeline of $log: the backward row"
done


# --- peak by module (issue 44): the innermost module call that made each
# storage, in text and JSON, and the live set by module; a log without
# module annotations shows neither.
out=$("$R" peak modules.log)
echo "$out" | grep -Eq '^ +2000 +[0-9.]+% forward +- +11  lin +h +seq\.0$' &&
	echo "$out" | grep -Eq '^ +500 +[0-9.]+% forward +- +26  side +s +seq\.2$' &&
	echo "$out" | grep -Eq '^seq\.0 +2000 ' &&
	ok "peak names the innermost module of each storage, and totals by module" ||
	no "peak of modules.log: $out"
j=$("$R" peak modules.log --json)
case "$j" in *'"handle":"h","storage":3,"module":"seq.0"'*'"by_module"'*|*'"by_module"'*'"handle":"h","storage":3,"module":"seq.0"'*)
	ok "peak --json: module of a storage, by_module" ;; *) no "peak --json of modules.log: $j" ;; esac
out=$("$R" peak tiny.log; "$R" peak tiny.log --json)
case "$out" in *module*) no "a log without module annotations shows modules: $out" ;;
	*) ok "no module column for a log without module annotations" ;; esac

# --- timeline by module (issue 44): for a log with module calls, a last
# column `module`, the innermost module call the row's op ran in (as `peak`
# names it); a log without them keeps its eight columns, byte for byte.
"$R" replay modules.log --heuristic DTR --ratio 0.6 --timeline "$tmp/m.tsv" >/dev/null
head -1 "$tmp/m.tsv" | grep -q "$(printf 'bytes\tmodule$')" &&
	grep -q "$(printf '^21\t3110\tcompute\tlin\th\t5168\t11\t2000\tseq.0$')" "$tmp/m.tsv" &&
	grep -q "$(printf '\tevict\tlin\tb\t5168\t23\t3000\tseq.2$')" "$tmp/m.tsv" &&
	grep -q "$(printf '\tcompute\tlin_backward\tgb\t5168\t70\t3000\t-$')" "$tmp/m.tsv" &&
	ok "timeline of modules.log: the module column" || no "timeline of modules.log: $(cat "$tmp/m.tsv")"
# The same log with its ENTER/EXIT records blanked (the lines kept): the
# same timeline less that column.
sed 's/.*"ANNOTATION":"\(ENTER\|EXIT\)".*//' modules.log > "$tmp/nomod.log"
"$R" replay "$tmp/nomod.log" --heuristic DTR --ratio 0.6 --timeline "$tmp/n.tsv" >/dev/null
cut -f1-8 "$tmp/m.tsv" | cmp -s - "$tmp/n.tsv" && [ "$(awk -F '\t' 'NF != 8' "$tmp/n.tsv")" = "" ] &&
	ok "timeline without module calls: eight columns, the rest unchanged" ||
	no "timeline of modules.log without its module records differs beyond the module column"
# A shipped PyTorch log: every row's module is the innermost call open at
# its op's log line, found here from the log's text.
L=../../logs/torch-mobilenet2-cpu.log.gz
if [ -f $L ]; then
	"$R" replay $L --heuristic DTR --ratio 0.6 --timeline "$tmp/mb.tsv" >/dev/null
	gzip -dc $L | awk -F '\t' '
		FNR == NR {
			if ($0 ~ /"ANNOTATION":"ENTER"/) { m = $0; sub(/.*"MODULE":"/, "", m); sub(/".*/, "", m); st[++d] = m }
			else if ($0 ~ /"ANNOTATION":"EXIT"/) d--
			mod[FNR] = d ? st[d] : "-"
			next
		}
		FNR == 1 { if ($9 != "module") { print "no module column: " $0; bad++ }; next }
		{ n++; if ($9 != "-") named++ }
		$9 != mod[$7] { if (bad++ < 5) print "line " $7 ": module " $9 ", the log says " mod[$7] }
		END { if (!named) { print "no row names a module"; bad++ }; exit bad > 0 }' - "$tmp/mb.tsv" >&2 &&
		ok "timeline of $(basename $L): the module of every row is the log's" ||
		no "timeline of $(basename $L): wrong module names"
fi

exit $fail
