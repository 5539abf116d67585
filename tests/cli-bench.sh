#!/bin/sh
# cli-bench.sh: `rematsim bench` runs the rows of reference/speed.tsv as
# whole processes, says when their numbers differ from the reference's or
# from --against's binary, and exits 70 then (a bug of ours), 0 when they
# match, 64 for a selection that names nothing, 65 for a malformed
# speed.tsv (with its line), 66 for a missing --against binary. Skipped
# (77) without ../shared.
R=$1
. "$(dirname "$0")/cli-lib.sh"
S=${REMATSIM_SHARED:-}
U=unet-6-8000000000.0-2020-10-1-10-57-18-default
[ -f "$S/reference/$U.json" ] && [ -f "$S/dtr-logs/logs.zip" ] || {
	echo "no shared data: skipped"; exit 77; }
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
mkdir "$t/reference"
ln -s "$S/dtr-logs" "$t/dtr-logs"
cp "$S/reference/$U.json" "$t/reference/"
tab=$(printf '\t')
speed() { # write speed.tsv: a comment, the header, then the rows given
	{ echo "# bench's test"
	  printf 'log\theuristic\truntime\tseed\tratios\treference_seconds\n'
	  for row in "$@"; do echo "$row"; done; } > "$t/reference/speed.tsv"
}
row_lru="$U.log${tab}LRU${tab}V2EagerOptimized${tab}${tab}0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0${tab}0.16"
row_dtr="$U.log${tab}DTR${tab}V2EagerOptimized${tab}${tab}0.5,1.0${tab}0.66"
speed "$row_lru" "$row_dtr"

out=$("$R" bench --shared "$t" 2>&1); st=$?
[ "$st" -eq 0 ] && ok "bench on the reference's own numbers (0)" || no "bench: status $st: $out"
# Both rows are checked against the reference file: LRU at its ten ratios,
# DTR at the two of its ten that the row names.
case "$out" in *"U-Net (6)"*LRU*same*) ok "the LRU row says same" ;; *) no "no same LRU row: $out" ;; esac
case "$out" in "# machine: "*", "[0-9]*" processor"*) ok "the first line names the machine" ;;
	*) no "no machine line first: $out" ;; esac
speed "$row_lru"
out=$("$R" bench --shared "$t" --against "$R" --repeat 2 2>&1); st=$?
[ "$st" -eq 0 ] && ok "bench --against itself (0)" || no "--against itself: status $st: $out"
case "$out" in *new/old*"U-Net (6)"*same*"this / OLD"*) ok "--against prints both binaries' times" ;;
	*) no "--against output: $out" ;; esac

# Rows under 100x get their log's floor (a process that replays it once,
# evicting nothing) beside their allowance (reference seconds / 100): a
# reference of 1e-6 s leaves 1e-8 s, under any process's floor (bounded);
# one of 1e6 s, none under 100x and no such section.
speed "$U.log${tab}LRU${tab}V2EagerOptimized${tab}${tab}0.5,1.0${tab}0.000001"
out=$("$R" bench --shared "$t" 2>&1); st=$?
[ "$st" -eq 0 ] && case "$out" in *"rows under 100x, by log"*"U-Net (6)"*"0.0000"*" 1        1"*"rows under 100x: 1, of which bounded by their log's floor: 1, not: 0"*"process start alone here"*) true ;; *) false ;; esac &&
	ok "a row under 100x: its log's floor, bounded" || no "floor section: $st: $out"
speed "$U.log${tab}LRU${tab}V2EagerOptimized${tab}${tab}0.5,1.0${tab}1000000"
out=$("$R" bench --shared "$t" 2>&1); st=$?
[ "$st" -eq 0 ] && case "$out" in *"rows under 100x: 0"*) case "$out" in *"by log"*) false ;; *) true ;; esac ;; *) false ;; esac &&
	ok "no row under 100x: no floor section" || no "no-floor run: $st: $out"
speed "$row_lru"

out=$("$R" bench --shared "$t" --against "$R" --repeat 2 --min 2>&1); st=$?
[ "$st" -eq 0 ] && case "$out" in *"(least of 2)"*"this / OLD"*) true ;; *) false ;; esac &&
	ok "--min: the least of the runs, said so" || no "--min: $st: $out"

expect_status 64 "bench --heuristic Nope" "$R" bench --shared "$t" --heuristic Nope
expect_status 64 "bench --log naming no reference log" "$R" bench --shared "$t" --log nolog
expect_status 64 "bench --repeat 0" "$R" bench --shared "$t" --repeat 0
expect_status 66 "bench --against a missing binary" "$R" bench --shared "$t" --against "$t/nope"

# An old binary whose numbers differ: DIFFERENT, status 70, the field named.
cat > "$t/old" <<EOF
#!/bin/sh
"$R" "\$@" | sed 's/"remat_compute":\([0-9]*\)/"remat_compute":1\1/'
EOF
chmod +x "$t/old"
out=$("$R" bench --shared "$t" --against "$t/old" --repeat 1 2>&1); st=$?
[ "$st" -eq 70 ] && ok "an old binary's other numbers exit 70" || no "other old numbers: status $st"
case "$out" in *"not OLD's numbers"*remat_compute*DIFFERENT*) ok "the message names the field" ;;
	*) no "no DIFFERENT row or field: $out" ;; esac
# An older build's output may lack a field added since (log_sha256), not
# hold one this build dropped.
cat > "$t/old" <<EOF
#!/bin/sh
"$R" "\$@" | sed 's/"log_sha256":"[0-9a-f]*",//'
EOF
out=$("$R" bench --shared "$t" --against "$t/old" --repeat 1 2>&1); st=$?
[ "$st" -eq 0 ] && ok "an older build without a newer field: the same numbers" || no "older fields: $st: $out"
cat > "$t/old" <<EOF
#!/bin/sh
"$R" "\$@" | sed 's/"budget":/"gone":1,"budget":/'
EOF
out=$("$R" bench --shared "$t" --against "$t/old" --repeat 1 2>&1); st=$?
[ "$st" -eq 70 ] && case "$out" in *"OLD has a field gone, this one not"*) true ;; *) false ;; esac &&
	ok "a field the old build had and this one lacks: 70" || no "dropped field: $st: $out"
# An old binary that fails: said, and the row goes on.
printf '#!/bin/sh\necho broken >&2\nexit 3\n' > "$t/old"
out=$("$R" bench --shared "$t" --against "$t/old" --repeat 1 2>&1); st=$?
[ "$st" -eq 0 ] && case "$out" in *"failed (exit status 3): broken"*same*) true ;; *) false ;; esac &&
	ok "a failing old binary is named, the rows still run" || no "failing old binary: $st: $out"

# speed.tsv malformed: the line and the problem.
speed "$row_lru" "$U.log${tab}Nope${tab}V2EagerOptimized${tab}${tab}0.5${tab}1"
out=$("$R" bench --shared "$t" 2>&1); st=$?
[ "$st" -eq 65 ] && case "$out" in *"speed.tsv:4: unknown heuristic 'Nope'"*) true ;; *) false ;; esac &&
	ok "an unknown heuristic in speed.tsv: 65 with its line" || no "bad speed.tsv: $st: $out"
speed "$row_lru" "$U.log${tab}LRU${tab}V2EagerOptimized${tab}0.5${tab}1"
expect_status 65 "a row of five fields" "$R" bench --shared "$t"
speed "nolog.log${tab}LRU${tab}V2EagerOptimized${tab}${tab}0.5${tab}1"
out=$("$R" bench --shared "$t" 2>&1); st=$?
[ "$st" -eq 65 ] && case "$out" in *"speed.tsv:3: no log 'nolog.log'"*) true ;; *) false ;; esac &&
	ok "a log the archive lacks: 65 with its line" || no "missing log: $st: $out"

# One remat compute changed by one: the row says DIFFERENT, the status is 70.
speed "$row_lru"
python3 - "$t/reference/$U.json" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
for run in d["runs"]:
    if run["heuristic"] == "LRU":
        run["points"][-1]["remat_compute"] += 1
json.dump(d, open(p, "w"))
PY
out=$("$R" bench --shared "$t" --heuristic LRU 2>&1); st=$?
[ "$st" -eq 70 ] && ok "a changed reference number exits 70" || no "changed number: status $st"
case "$out" in *"remat compute"*DIFFERENT*) ok "the row and the message name the difference" ;;
	*) no "no DIFFERENT row or reason: $out" ;; esac
exit $fail
