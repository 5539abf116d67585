#!/bin/sh
# cli-sweep-faults.sh REMATSIM: sweeps and outputs under kills, races and
# full disks. A sweep killed (SIGKILL) at 10 random moments resumes to the
# rows of an uninterrupted run; a second sweep into the same folder is
# refused while one runs (lock); temporary files of killed writers are
# cleaned on resume; a journal that cannot grow stops the sweep (74) and
# the rerun completes it; two replays writing one --timeline never mix
# their data, and a planted FILE.tmp symlink is never followed.
set -u
R=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/cli-lib.sh"
D=$(cd "$(dirname "$0")/data" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

# A chain whose deep rematerializations make each point take a while.
awk -v n=2500 'BEGIN {
	print "{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"x0\"}";
	print "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"1000\",\"NAME\":\"x0\"}";
	for (i = 1; i <= n; i++) {
		printf "{\"ARGS\":[\"x%d\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"f\",\"RESULT\":[\"x%d\"],\"TIME\":\"%d\"}\n", i-1, i, 1000+i%7*100;
		printf "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"%d\",\"NAME\":\"x%d\"}\n", 1000+i%13*8, i;
		printf "{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"x%d\"}\n", i;
	}
	printf "{\"ARGS\":[\"x%d\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"loss\",\"RESULT\":[\"g%d\"],\"TIME\":\"100\"}\n", n, n;
	printf "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"1000\",\"NAME\":\"g%d\"}\n{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"g%d\"}\n", n, n;
	for (i = n; i > 0; i--) {
		printf "{\"ARGS\":[\"x%d\",\"g%d\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"f_backward\",\"RESULT\":[\"g%d\"],\"TIME\":\"%d\"}\n", i-1, i, i-1, 2000+i%5*100;
		printf "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"1000\",\"NAME\":\"g%d\"}\n{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"g%d\"}\n", i-1, i-1;
		printf "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"g%d\"}\n{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"x%d\"}\n", i, i;
	}
}' > chain.log
cat > k.yaml <<YAML
experiment: k
models:
  - {name: chain, log: chain.log}
  - {name: tiny, log: $D/tiny.log}
heuristics: [DTR, LRU, MSPS, DTREqClass, RandomStorage]
trials: 1
ratios: [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
overhead_limit: inf
YAML
# Rows without wall_ms (column 17), and no `# command:` line.
rows() { grep -v '^# command:' "$1" | cut -f1-16,18-; }

"$R" sweep -q k.yaml --out ref --jobs 2 || no "uninterrupted sweep failed"

seed=${KILL_SEED:-$(date +%s)}
echo "# kill moments from seed $seed (KILL_SEED=$seed to repeat)"
delays=$(awk -v s="$seed" 'BEGIN { srand(s); for (i = 0; i < 10; i++) printf "%.2f ", rand() * 0.5 }')
kills=0
for d in $delays; do
	"$R" sweep -q k.yaml --out killed --jobs 2 2>/dev/null &
	pid=$!
	sleep "$d"
	kill -9 $pid 2>/dev/null && kills=$((kills + 1))
	wait $pid 2>/dev/null
done
echo "# $kills of 10 kills landed while the sweep ran"
"$R" sweep -q k.yaml --out killed --jobs 2 || no "resume after kills failed"
if [ "$(rows ref/points.tsv)" = "$(rows killed/points.tsv)" ]; then
	ok "10 random SIGKILLs, then resume: same points.tsv rows"
else
	no "killed and resumed sweep differs: $(diff ref/points.tsv killed/points.tsv | head -5)"
fi
[ "$(rows ref/frontier.tsv)" = "$(rows killed/frontier.tsv)" ] && ok "same frontier.tsv" || no "frontier.tsv differs"
left=$(ls -a killed | grep '\.tmp\.' | tr '\n' ' ')
[ -z "$left" ] && ok "no temporary files left after resume" || no "left after resume: $left"

# Stale temporaries of killed writers are removed on resume; others are not.
: > killed/points.tsv.tmp.4242
: > killed/points.journal.tmp.0badc0de
: > killed/.rematsim-write-test.tmp.c8865867
: > killed/notes.tmp.1
"$R" sweep -q k.yaml --out killed --jobs 2 || no "rerun failed"
[ ! -e killed/points.tsv.tmp.4242 ] && [ ! -e killed/points.journal.tmp.0badc0de ] &&
	[ ! -e killed/.rematsim-write-test.tmp.c8865867 ] &&
	[ -e killed/notes.tmp.1 ] && ok "stale *.tmp.* of our outputs cleaned on resume" ||
	no "stale temporaries: $(ls killed)"

# Two sweeps into one folder: the second is refused while the first runs.
mkdir -p locked
flock locked/.lock sleep 3 &
fpid=$!
sleep 0.5
err=$("$R" sweep -q k.yaml --out locked 2>&1); st=$?
wait $fpid
[ $st -eq 73 ] && case "$err" in *"another sweep"*"is writing into this folder"*) true ;; *) false ;; esac &&
	ok "a second sweep into a busy folder: 73, '$err'" || no "busy folder: status $st, '$err'"
"$R" sweep -q k.yaml --out c1 --jobs 1 2>/dev/null &
p1=$!
sleep 0.2
"$R" sweep -q k.yaml --out c1 --jobs 1 2>/dev/null; s2=$?
wait $p1; s1=$?
"$R" sweep -q k.yaml --out c1 --jobs 2 || no "rerun after two concurrent sweeps failed"
[ "$(rows ref/points.tsv)" = "$(rows c1/points.tsv)" ] && ok "two concurrent sweeps (status $s1, $s2) then a rerun: same rows" ||
	no "concurrent sweeps corrupted points.tsv"

# A journal that cannot grow (a file size limit stands in for a full disk).
(trap '' XFSZ; ulimit -f 4; "$R" sweep -q k.yaml --out full --jobs 2 2>err); st=$?
[ $st -eq 74 ] && grep -q "cannot append to the journal" err && ok "full journal: 74, $(cat err)" ||
	no "full journal: status $st, $(cat err)"
"$R" sweep -q k.yaml --out full --jobs 2 || no "resume after a full journal failed"
[ "$(rows ref/points.tsv)" = "$(rows full/points.tsv)" ] && ok "resume after a full journal: same rows" ||
	no "resume after a full journal differs"

# Timelines: a planted FILE.tmp symlink is not followed; two writers never mix.
echo precious > victim
ln -s "$T/victim" t.tsv.tmp
"$R" replay "$D/tiny.log" --heuristic DTR --ratio 0.5 --timeline t.tsv >/dev/null || no "timeline replay failed"
[ "$(cat victim)" = precious ] && ok "a planted t.tsv.tmp symlink is left alone" || no "the victim was overwritten"
"$R" replay chain.log --heuristic DTR --ratio 0.5 --timeline a.tsv >/dev/null
"$R" replay chain.log --heuristic LRU --ratio 0.5 --timeline b.tsv >/dev/null
mixed=0
for i in 1 2 3 4 5; do
	"$R" replay chain.log --heuristic DTR --ratio 0.5 --timeline same.tsv >/dev/null &
	"$R" replay chain.log --heuristic LRU --ratio 0.5 --timeline same.tsv >/dev/null
	wait
	cmp -s same.tsv a.tsv || cmp -s same.tsv b.tsv || mixed=1
done
[ $mixed -eq 0 ] && ok "two replays with one --timeline: always one whole timeline" || no "timelines mixed"
mkfifo fifo
(cat fifo > from-fifo) &
"$R" replay "$D/tiny.log" --heuristic DTR --ratio 0.5 --timeline fifo >/dev/null; st=$?
wait
[ $st -eq 0 ] && [ -p fifo ] && [ -s from-fifo ] && ok "a FIFO timeline is written through, not replaced" ||
	no "FIFO timeline: status $st"
"$R" replay "$D/tiny.log" --heuristic DTR --ratio 0.5 --timeline /dev/full >/dev/null 2>err; st=$?
[ $st -eq 74 ] && [ -c /dev/full ] && ok "--timeline /dev/full: 74, device kept" || no "--timeline /dev/full: $st"
exit $fail
