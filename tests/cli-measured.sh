#!/bin/sh
# cli-measured.sh REMATSIM: `rematsim measured` as a user meets it.
#  - a hand-made file in the artifact's layout (tests/data/measured/runs.json,
#    its log a small generated U-Net named like the artifact's): every row
#    pinned (runs.expect: simulated overhead, peak, outcomes, Table 1's fit),
#    unmatched runs listed with their reasons, the same bytes at any thread
#    count and for the same seed, --out and its figures;
#  - bad input: another shape, a budget of 0, a summary that is neither
#    statistics nor "error", a ratio run whose baseline failed, a model with
#    no log: status 65 and a message naming FILE:LINE and the run; usage
#    errors 64, missing files 66;
#  - --mapping FILE: a model not in the compiled table mapped to a log, a
#    key of the table remapped (its built-in rows replaced, the others
#    kept), bad mapping files (65 with FILE:LINE, 66 missing), and 10^5
#    runs against 10^5 rows under a hang bound (linear matching);
#  - with ../shared: the artifact's data-full.json against its logs.zip
#    pinned (data-full.expect: the four matched models under DTR,
#    DTREqClass and DTRPrototype, and the 20 unmatched runs), and Table 1
#    (large-input-table-data.json: no run has a log).
set -u
R=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/cli-lib.sh"
cd "$(dirname "$0")/data/measured" || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rematsim-measured.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

sum() { python3 summarize.py; }

# --- the hand-made file ------------------------------------------------------
if "$R" measured runs.json --manifest manifest.json --json > "$tmp/j1" 2> "$tmp/e1"; then
	ok "runs.json (0)"
else
	no "runs.json: status $?: $(cat "$tmp/e1")"
fi
if sum < "$tmp/j1" | diff -u runs.expect - > "$tmp/d" 2>&1; then
	ok "runs.json: every row as pinned (runs.expect)"
else
	no "runs.json differs from runs.expect: $(head -c 1500 "$tmp/d")"
fi
"$R" measured runs.json --manifest manifest.json --json --jobs 1 > "$tmp/j2" 2>&1
cmp -s "$tmp/j1" "$tmp/j2" && ok "the same rows on one thread" || no "--jobs 1 differs"
"$R" measured runs.json --manifest manifest.json --json --seed 5 > "$tmp/j3" 2>&1
"$R" measured runs.json --manifest manifest.json --json --seed 5 > "$tmp/j4" 2>&1
cmp -s "$tmp/j3" "$tmp/j4" && ok "the same seed, the same rows" || no "--seed 5 twice differs"
cmp -s "$tmp/j1" "$tmp/j3" && no "--seed 5 gives seed 1's rows" || ok "another seed, other samples"
n=$(grep -c '"matched":false' "$tmp/j1")
[ "$n" = 4 ] && ok "4 unmatched runs as JSON" || no "unmatched JSON objects: $n"
grep -q '"model":"unet","log":"U-Net (6)","batch":6,"kind":"ratio","budget":329600000,' "$tmp/j1" &&
	ok "a ratio run's budget: 0.8 of its baseline's 412 MB" || no "the ratio run's budget: $(grep ratio "$tmp/j1" | head -1)"
grep -q '"measured_outcome":"error","outcome":"oom"' "$tmp/j1" &&
	ok "a measured error beside the simulated outcome" || no "no error row"
out=$("$R" measured runs.json --manifest manifest.json --heuristic DTREqClass 2>&1)
case "$out" in
*"unmatched: 4 runs with no log in manifest.json"*"unet (batch 7): 0.3 GB: the U-Net (6) log is of batch 6"*"height=512; the U-Net (6) log's run had height=608"*"resnet1202 (batch 64)"*"mymodel (batch 1): 1 GB (error): mymodel is not in the table"*)
	ok "the table lists the unmatched runs and why" ;;
*) no "unmatched list: $out" ;;
esac
case "$out" in *"unet                 6  0.15 GB  DTREqClass         n/a      3.66      n/a -  "*"n/a      148.1  error/oom"*)
	ok "the table shows a failed run as n/a, error/oom" ;; *) no "error row in the table: $out" ;; esac
case "$out" in *"largest inputs"*"unet                 6  0.30 GB  ok       DTREqClass        0.296 yes    pass"*"unet: the largest batch the prototype ran is 6, at 0.30 GB"*)
	ok "Table 1's rows: fit and the replay at the run's budget" ;; *) no "Table 1 rows: $out" ;; esac
case "$out" in *"DTREqClass: 0 of 2 runs within 1 point"*) ok "the summary line" ;; *) no "summary: $out" ;; esac
if "$R" measured runs.json --manifest manifest.json --out "$tmp/o" > "$tmp/t" 2>&1 &&
	head -5 "$tmp/o/measured.tsv" | grep -q '^model	log	batch	kind	budget	heuristic	' &&
	[ "$(grep -vc '^#' "$tmp/o/measured.tsv")" = 10 ]; then
	ok "--out writes measured.tsv (9 rows)"
else
	no "--out: $(cat "$tmp/t")"
fi
grep -q "wrote $tmp/o/measured.tsv: draw it with rematsim plot" "$tmp/t" && ok "--out says where" || no "--out message"
if command -v gnuplot > /dev/null 2>&1; then
	if REMATSIM_PLOTS="$REMATSIM_SOURCE/plots" "$R" plot "$tmp/o" > "$tmp/p" 2>&1 &&
		[ -s "$tmp/o/measured.png" ] && [ -s "$tmp/o/measured-budget.pdf" ]; then
		ok "plot draws measured and measured-budget"
	else
		no "plot: $(cat "$tmp/p")"
	fi
	# the data gnuplot reads: a panel per heuristic, a curve per model;
	# the error run has no point
	g="$tmp/o/plot-data/measured"
	grep -q '^npanels = 3$' "$g/figure.gp" && grep -q "^ptitle\[3\] = 'DTR prototype'$" "$g/figure.gp" &&
		grep -q "^clabel\[1\] = 'U-Net'$" "$g/figure.gp" && grep -q "^ccolor\[1\] = '#d62728'$" "$g/figure.gp" &&
		[ "$(grep -vc '^#' "$g/p2-c1.tsv")" = 2 ] && ok "measured figure: panels, the model's style, 2 points" ||
		no "measured figure data: $(cat "$g/figure.gp" "$g/p2-c1.tsv")"
	b="$tmp/o/plot-data/measured-budget"
	grep -q "^clabel\[1\] = 'measured (prototype)'$" "$b/figure.gp" &&
		grep -q "^ccolor\[4\] = '#8c564b'$" "$b/figure.gp" && ok "budget figure: measured, then the registry's styles" ||
		no "budget figure data: $(cat "$b/figure.gp")"
else
	echo "ok - # SKIP plot (no gnuplot)"
fi

# --- bad input ---------------------------------------------------------------
run() { # the file's lines, then the run of unet at its index: a run object
	printf '%s\n' "$1" > "$tmp/b.json"
	"$R" measured "$tmp/b.json" --manifest manifest.json --heuristic DTR
}
fixed='"specific_params": {"type": "dtr", "kind": "fixed", "memory_budget": 3e8, "batch_size": 6}'
stats='"summary": [{"remat_compute_time": {"median": 1}, "base_compute_time": {"median": 2}}]'
bad 65 "a list, not an object" "b.json:1: a list: a measured file is an object of models" run '[1, 2]'
bad 65 "an op log, not JSON" "b.json:2: not JSON: end of file expected" run "$(head -2 unet.log)"
bad 65 "an object with no lists" "no model's list of runs" run '{"timestamp": "x", "n": 3}'
bad 65 "a member of another type" "b.json:2: unet: an object: a member is a model's list of runs" \
	run '{"a": 1,
"unet": {"x": 1}}'
bad 65 "a budget of 0" "b.json:3: unet[0].specific_params.memory_budget: this number is not a budget" \
	run '{"unet": [
{"specific_params": {"type": "dtr", "kind": "fixed", "batch_size": 6,
 "memory_budget": 0}, '"$stats"'}]}'
bad 65 "a budget as a string" "unet[0].specific_params.memory_budget: a string is not a budget" \
	run '{"unet": [{"specific_params": {"type": "dtr", "kind": "fixed", "memory_budget": "8e9", "batch_size": 6}, '"$stats"'}]}'
bad 65 "a batch of 6.5" "b.json:1: unet[0].specific_params.batch_size: not a batch size (a whole number from 1 to 1e9)" \
	run '{"unet": [{"specific_params": {"type": "dtr", "kind": "fixed", "memory_budget": 1e9, "batch_size": 6.5}, '"$stats"'}]}'
bad 65 "an unknown kind" "unet[0].specific_params.kind: a dtr run's kind must be" \
	run '{"unet": [{"specific_params": {"type": "dtr", "kind": "guess", "batch_size": 6}, '"$stats"'}]}'
bad 65 "a summary neither statistics nor error" \
	"b.json:4: unet[1].summary: \"oops\": a summary is a list of one object of statistics, or \"error\"" run '{"unet": [
{'"$fixed"', '"$stats"'},
{'"$fixed"',
 "summary": "oops"}]}'
bad 65 "a summary of two objects" "unet[0].summary: a list not of one object" \
	run '{"unet": [{'"$fixed"', "summary": [{}, {}]}]}'
bad 65 "a median that is text" "unet[0].summary[0].total_mem.median: a string where a number belongs" \
	run '{"unet": [{'"$fixed"', "summary": [{"total_mem": {"median": "big"}}]}]}'
bad 65 "a ratio run whose baseline is an error" \
	"b.json:3: unet[1].specific_params.ratio: its baseline run (line 2) failed (\"error\")" run '{"unet": [
{"specific_params": {"type": "baseline", "batch_size": 6}, "summary": "error"},
{"specific_params": {"type": "dtr", "kind": "ratio", "ratio": 0.5, "batch_size": 6}, '"$stats"'}]}'
bad 65 "a ratio run with no baseline" "needs the measured total_mem of a baseline run of unet at batch 6" \
	run '{"unet": [{"specific_params": {"type": "dtr", "kind": "ratio", "ratio": 0.5, "batch_size": 6}, '"$stats"'}]}'
bad 65 "a model with no log" "none of its 2 runs has a log in manifest.json" \
	run '{"resnet1202": [{"specific_params": {"type": "dtr", "kind": "fixed", "memory_budget": 1e9, "batch_size": 64}, '"$stats"'}],
"unet": [{"specific_params": {"type": "dtr", "kind": "fixed", "memory_budget": 1e9, "batch_size": 9}, '"$stats"'}]}'
bad 65 "... and says why" "unet (batch 9): the U-Net (6) log is of batch 6" \
	run '{"unet": [{"specific_params": {"type": "dtr", "kind": "fixed", "memory_budget": 1e9, "batch_size": 9}, '"$stats"'}]}'
bad 65 "a key twice" "duplicate object key" run '{"unet": [], "unet": []}'
bad 66 "a missing file" "nothing.json" "$R" measured nothing.json --manifest manifest.json
bad 65 "an endless input" "over the input size limit; set REMATSIM_MAX_INPUT" \
	env REMATSIM_MAX_INPUT=1MiB "$R" measured /dev/zero --manifest manifest.json
bad 65 "an empty file" "not JSON: '[' or '{' expected near end of file" run ''
bad 66 "a directory" "is a directory" "$R" measured . --manifest manifest.json
bad 66 "a missing archive" "nothing.zip" "$R" measured runs.json --manifest nothing.zip
bad 64 "no --manifest" "--manifest ARCHIVE.zip is required" "$R" measured runs.json
bad 64 "no file" "give exactly one MEASURED.json" "$R" measured --manifest manifest.json
bad 64 "a heuristic misspelt" "unknown heuristic 'DTRPrototyp': did you mean DTRPrototype?" \
	"$R" measured runs.json --manifest manifest.json --heuristic DTRPrototyp
bad 64 "a heuristic twice" "heuristic DTR given twice" "$R" measured runs.json --manifest manifest.json --heuristic DTR,dtr
bad 64 "no trials" "--trials wants 1 to 1000" "$R" measured runs.json --manifest manifest.json --trials 0
bad 64 "an unknown rule" "--proto-rules: unknown rule 'fast'" "$R" measured runs.json --manifest manifest.json --proto-rules fast
expect_status 0 "measured --help" "$R" measured --help
# the rules may be forced for every run
"$R" measured runs.json --manifest manifest.json --heuristic DTRPrototype --proto-rules none --json > "$tmp/j5" 2>&1
"$R" measured runs.json --manifest manifest.json --heuristic DTREqClass --json > "$tmp/j6" 2>&1
a=$(sum < "$tmp/j5" | grep -v unmatched | cut -f5 | head -3 | tr '\n' ' ')
b=$(sum < "$tmp/j6" | grep -v unmatched | cut -f5 | head -3 | tr '\n' ' ')
[ -n "$a" ] && [ "$a" = "$b" ] && ok "DTRPrototype with no rule is DTREqClass here ($a)" || no "no rules: $a, DTREqClass: $b"
# a rule named replaces only itself: the ratio run keeps its own no-sampling
"$R" measured runs.json --manifest manifest.json --heuristic DTRPrototype --proto-rules no-after --json > "$tmp/j7" 2>&1
grep -q '"kind":"ratio".*"proto_rules":"no-sampling,small,no-after,classes"' "$tmp/j7" &&
	grep -q '"kind":"fixed","budget":350000000,.*"proto_rules":"sampling,small,no-after,classes"' "$tmp/j7" &&
	ok "--proto-rules no-after keeps each run's sampling, and each row says its rules" ||
	no "rules of the rows: $(grep -o '"kind":"[a-z]*","budget":[0-9]*\|"proto_rules":"[^"]*"' "$tmp/j7" | tr '\n' ' ')"

# --- --mapping FILE ------------------------------------------------------------
printf '# measured model\tbatch\tlog\n\nmymodel\t1\tunet.log\n' > "$tmp/m1.tsv"
if "$R" measured runs.json --manifest manifest.json --mapping "$tmp/m1.tsv" --json > "$tmp/jm" 2> "$tmp/em"; then
	ok "--mapping (0)"
else
	no "--mapping: status $?: $(cat "$tmp/em")"
fi
grep -q '"model":"mymodel","log":"U-Net (6)","batch":1,"kind":"fixed","budget":1000000000,"heuristic":"DTR"' "$tmp/jm" &&
	ok "a model the table lacks, mapped by its log member, is replayed" || no "mymodel under --mapping: $(grep mymodel "$tmp/jm")"
[ "$(grep -c '"matched":false' "$tmp/jm")" = 3 ] && ok "3 unmatched runs are left" || no "unmatched: $(grep -c '"matched":false' "$tmp/jm")"
sum < "$tmp/jm" | grep -v '^mymodel' > "$tmp/sm"
grep -v 'mymodel' runs.expect | cmp -s - "$tmp/sm" && ok "the other rows as without --mapping" ||
	no "--mapping changed other rows: $(grep -v mymodel runs.expect | diff - "$tmp/sm" | head -c 1500)"
printf 'unet\t7\tU-Net (6)\theight=608,width=416\r\n' > "$tmp/m2.tsv"
out=$("$R" measured runs.json --manifest manifest.json --mapping "$tmp/m2.tsv" --heuristic DTR 2>&1)
case "$out" in *"unet                 7  0.30 GB  DTR"*"unet (batch 6): 0.35 GB, 0.33 GB, 0.15 GB (error), 0.35 GB: the U-Net (6) log is of batch 7"*"resnet1202 (batch 64): 6 GB: the archive's ResNet log is of ResNet-32"*)
	ok "a key remapped: its built-in row replaced, the other keys' kept (CRLF read)" ;;
*) no "unet remapped: $out" ;; esac
mb() { # the mapping's text; runs.json against it
	printf "$1" > "$tmp/m.tsv"
	"$R" measured runs.json --manifest manifest.json --heuristic DTR --mapping "$tmp/m.tsv"
}
bad 65 "a mapping row of two fields" "m.tsv:2: 2 fields: a row is KEY<TAB>BATCH<TAB>LOG" mb '# x\nmymodel\t1\n'
bad 65 "a mapping row of five fields" "m.tsv:1: 5 fields" mb 'a\t1\tunet.log\tx=1\ty\n'
bad 65 "a mapping's batch that is not one" "m.tsv:1: BATCH 'one': not a batch size" mb 'mymodel\tone\tunet.log\n'
bad 65 "a mapping's batch of 0" "m.tsv:1: BATCH '0'" mb 'mymodel\t0\tunet.log\n'
bad 65 "a mapping's log not in the manifest" "m.tsv:1: 'U-Net (7)' is neither a model nor a log of manifest.json" \
	mb 'mymodel\t1\tU-Net (7)\n'
bad 65 "a mapping's extra that is no list" "m.tsv:1: EXTRA 'height': not a list k=v,k=v" mb 'mymodel\t1\tunet.log\theight\n'
bad 65 "a mapping row twice" "m.tsv:3: mymodel at batch 1 is mapped twice (the first time on line 1)" \
	mb 'mymodel\t1\tunet.log\nmymodel\t2\tunet.log\nmymodel\t1\tU-Net (6)\n'
bad 65 "a mapping of comments only" "m.tsv: no rows" mb '# nothing\n\n'
bad 65 "a mapping's empty key" "m.tsv:1: an empty KEY" mb '\t1\tunet.log\n'
bad 66 "a missing mapping" "nothing.tsv" "$R" measured runs.json --manifest manifest.json --mapping nothing.tsv
bad 64 "--mapping twice" "given twice" "$R" measured runs.json --manifest manifest.json --mapping a --mapping b
# linear: 10^5 runs of 10^5 models against 10^5 rows (each at another
# batch but one): a walk of the table per run took minutes
python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]
n = 100000
with open(d + "/big.json", "w") as f:
    f.write("{\n")
    for i in range(n):
        f.write('"m%d": [{"specific_params": {"type": "dtr", "kind": "fixed", "memory_budget": 4e8, '
                '"batch_size": %d}, "summary": "error"}],\n' % (i, 6 if i == 7 else 2))
    f.write('"end": 1}\n')
with open(d + "/big.tsv", "w") as f:
    for i in range(n):
        f.write("m%d\t%d\tU-Net (6)\n" % (i, 6 if i % 7 == 0 else 1))
PY
start=$(date +%s)
timeout 120 "$R" measured "$tmp/big.json" --manifest manifest.json --mapping "$tmp/big.tsv" --heuristic DTR --json > "$tmp/jb" 2> "$tmp/eb"; st=$?
secs=$(( $(date +%s) - start ))
[ "$st" = 0 ] && [ "$(grep -c '"matched":false' "$tmp/jb")" = 99999 ] && grep -q '"model":"m7","log":"U-Net (6)","batch":6' "$tmp/jb" &&
	grep -q '"model":"m8",.*"reason":"the U-Net (6) log is of batch 1"' "$tmp/jb" &&
	ok "10^5 runs against 10^5 mapping rows in ${secs} s" || no "10^5 runs, 10^5 rows: status $st after ${secs} s: $(head -c 500 "$tmp/eb")"
# ... and their table's unmatched list (a walk of the runs per group took 48 s)
start=$(date +%s)
timeout 120 "$R" measured "$tmp/big.json" --manifest manifest.json --mapping "$tmp/big.tsv" --heuristic DTR > "$tmp/tb" 2> "$tmp/eb"; st=$?
secs=$(( $(date +%s) - start ))
[ "$st" = 0 ] && grep -q '^unmatched: 99999 runs' "$tmp/tb" && [ "$(tail -1 "$tmp/tb")" = "  m99999 (batch 2): 0.4 GB (error): the U-Net (6) log is of batch 1" ] &&
	ok "... listed unmatched in ${secs} s" || no "10^5 unmatched listed: status $st after ${secs} s: $(tail -3 "$tmp/tb") $(head -c 500 "$tmp/eb")"

# --- the artifact's files (../shared) ----------------------------------------
S=${REMATSIM_SHARED:-}
if [ -n "$S" ] && [ -f "$S/dtr-measured/data-full.json" ] && [ -f "$S/dtr-logs/logs.zip" ]; then
	"$R" measured "$S/dtr-measured/data-full.json" --manifest "$S/dtr-logs/logs.zip" --json > "$tmp/f" 2>&1
	if sum < "$tmp/f" | diff -u data-full.expect - > "$tmp/d" 2>&1; then
		ok "data-full.json: 16 matched runs x 3 heuristics and 20 unmatched, as pinned"
	else
		no "data-full.json differs from data-full.expect: $(head -c 2000 "$tmp/d")"
	fi
	out=$("$R" measured "$S/dtr-measured/data-full.json" --manifest "$S/dtr-logs/logs.zip" --heuristic DTRPrototype 2>&1)
	case "$out" in *"16 of 36 runs with a log"*"DTRPrototype: 14 of 16 runs within 1 point"*"unmatched: 20 runs"*)
		ok "data-full.json: the table" ;; *) no "data-full.json table: $out" ;; esac
	out=$("$R" measured "$S/dtr-measured/large-input-table-data.json" --manifest "$S/dtr-logs/logs.zip" 2>&1); st=$?
	[ "$st" = 0 ] && [ "$(printf '%s\n' "$out" | grep -c ' no log')" = 16 ] &&
		printf '%s\n' "$out" | grep -q 'unet: the largest batch the prototype ran is 10, at 6.00 GB (unmodified PyTorch: 7)' &&
		ok "Table 1: no run has a log; the largest inputs" || no "Table 1 ($st): $out"
else
	echo "ok - # SKIP the artifact's files (no ../shared)"
fi
exit $fail
