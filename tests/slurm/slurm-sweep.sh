#!/bin/sh
# tests/slurm/slurm-sweep.sh REMATSIM: `rematsim slurm` on a real Slurm.
#
# Starts a single-node Slurm cluster on this machine (cluster.sh), then:
#  1. submits a sweep of the shipped logs as an array of 4 shards plus the
#     dependent merge, and checks that the merged points.tsv equals an
#     unsharded `rematsim sweep` of the same experiment (wall_ms aside);
#  2. submits it again, held, starts the tasks one by one and stops three
#     of them midway through Slurm: task 1 requeued while running, as
#     preemption does; task 2 cancelled with scancel, then requeued and the
#     merge's dependency repointed as docs/slurm.md says; task 3 sent the
#     SIGUSR1 of a near time limit, on which it requeues itself; checks that
#     each resumed and that the merged result is the same;
#  3. checks that a merge over a missing shard fails with status 65 and a
#     message naming the shard and its points;
#  4. runs the by-hand template scripts/slurm/sweep.sbatch (3 shards, then
#     the merge) and checks its result the same way;
#  5. submits with --manifest and with --models (paths relative to the
#     submitting folder) and checks the merge against `sweep --manifest`
#     and `sweep --models`;
#  6. submits twice with one --cache and checks that the second's shards
#     take their replays from the first's, with the same rows.
# Exits 77 (skip) only when Slurm or munge is missing or cannot start here.
set -u
rematsim=${1:-${REMATSIM:-build/rematsim}}
src=${REMATSIM_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cluster.sh"

t0=$(date +%s)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rematsim-slurm.XXXXXX") || exit 99
cleanup() {
	status=$?
	trap - EXIT INT TERM HUP
	cluster_stop
	if [ "$status" -ne 0 ] && [ "$status" -ne 77 ] && [ -z "${KEEP:-}" ]; then
		for f in "$tmp"/run*/logs/*.out "$tmp"/cluster/log/*.log; do
			[ -s "$f" ] || continue
			echo "--- $f (last lines):"
			tail -n 20 "$f"
		done
	fi
	[ -n "${KEEP:-}" ] && echo "kept $tmp" || rm -rf "$tmp"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

fail() {
	echo "FAIL: $*"
	exit 1
}
elapsed() { echo $(($(date +%s) - t0)); }
# Bounded waits: `deadline S`, then `in_time || fail ...` in the loop.
deadline() { until_s=$(($(date +%s) + $1)); }
in_time() { [ "$(date +%s)" -le "$until_s" ]; }

case $rematsim in /*) ;; *) rematsim=$(pwd)/$rematsim ;; esac
[ -x "$rematsim" ] || fail "no rematsim at $rematsim"

mkdir "$tmp/cluster"
if ! cluster_start "$tmp/cluster"; then
	echo "SKIP: cannot run a Slurm cluster here: $cluster_why"
	exit 77
fi
echo "cluster up after $(elapsed) s (SLURM_CONF=$SLURM_CONF)"

# The shipped logs, so that the test needs nothing outside the repository:
# 8 small logs, about 9000 points; the random heuristic's trials make each
# shard a few thousand short points, so that a task can be stopped midway.
cat >"$tmp/exp.yaml" <<EOF
experiment: slurmtest
manifest: $src/logs/manifest.json
heuristics: [DTR, DTREqClass, MSPS, LRU, RandomStorage]
trials: 40
ratios: [0.1, 0.12, 0.14, 0.16, 0.18, 0.2, 0.22, 0.24, 0.26, 0.28, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0]
EOF
points=$("$rematsim" sweep "$tmp/exp.yaml" --dry-run) || fail "dry run"

# Rows without wall_ms (column 17) and without header lines.
rows() { grep -v '^#' "$1" | cut -f 1-16,18-; }
# Data rows in a shard's journal (header lines and the column line aside).
journal_rows() {
	n=$(grep -vc '^#' "$1/points.journal" 2>/dev/null) || n=0
	echo $((n > 0 ? n - 1 : 0))
}
# Wait until none of the jobs is queued or running, at most $2 seconds.
wait_jobs() {
	deadline "$2"
	while [ -n "$(squeue -h -j "$1" 2>/dev/null)" ]; do
		in_time || fail "jobs $1 still queued after $2 s: $(squeue -j "$1" -o '%i %T %r')"
		sleep 0.2
	done
}
state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -n 1; }
submit() {
	"$rematsim" slurm "$tmp/exp.yaml" --shards 4 --out "$@" >"$1.ids" 2>"$1.err" ||
		fail "rematsim slurm: $(cat "$1.err")"
	array=$(awk '$1 == "shards" { print $2 }' "$1.ids")
	merge=$(awk '$1 == "merge" { print $2 }' "$1.ids")
	[ -n "$array" ] && [ -n "$merge" ] || fail "no job ids in: $(cat "$1.ids")"
}

# The reference: one unsharded sweep, run while Slurm works.
"$rematsim" sweep "$tmp/exp.yaml" --out "$tmp/ref" --quiet --jobs 2 &
ref_pid=$!

# --- 1. Four shards and the merge, untouched. ---
submit "$tmp/run1"
echo "run 1: array $array, merge $merge ($points points)"
wait_jobs "$array,$merge" 120
[ "$(state "$merge")" = COMPLETED ] || fail "merge job $merge ended $(state "$merge")"
wait "$ref_pid" || fail "the unsharded sweep failed"
rows "$tmp/ref/points.tsv" >"$tmp/ref.rows"
[ "$(wc -l <"$tmp/ref.rows")" -eq $((points + 1)) ] || fail "reference: wrong row count"
rows "$tmp/run1/points.tsv" >"$tmp/run1.rows"
cmp -s "$tmp/ref.rows" "$tmp/run1.rows" || fail "run 1: merged points.tsv differs from the unsharded sweep"
grep -q '^# shard: 1/1$' "$tmp/run1/points.tsv" || fail "run 1: merged header"
cmp -s "$tmp/ref/models.tsv" "$tmp/run1/models.tsv" || fail "run 1: models.tsv differs"
if command -v gnuplot >/dev/null 2>&1; then
	[ -s "$tmp/run1/slurmtest.png" ] || fail "run 1: the merge job drew no figure"
fi
for i in 1 2 3 4; do
	grep -q "shard $i/4: sweep exited with status 0" "$tmp/run1/logs/shard-$i.out" ||
		fail "run 1: shard $i's log"
done
echo "run 1: merged result equals the unsharded sweep ($(elapsed) s)"

# --- 2. Stop three running tasks midway in three ways; they resume. ---
# Submitted held (--sbatch=--hold), so that the test starts the tasks one at
# a time and catches each midway: when its journal holds some rows but at
# most half of its shard, `scontrol suspend` freezes it (SIGSTOP, through
# slurmd), so that it cannot finish before the test ends it as Slurm does
# on preemption, scancel or a near time limit. (One suspend and one resume
# only: after quick suspend/resume cycles slurmstepd drops the signals of a
# requeue or scancel for a while.)
submit "$tmp/run2" --time 10 --sbatch=--hold
echo "run 2: array $array, merge $merge (held)"
catch() {
	total=$("$rematsim" sweep "$tmp/exp.yaml" --dry-run --shard "$1/4" 2>/dev/null)
	scontrol release "${array}_$1" || fail "scontrol release ${array}_$1"
	deadline 120
	while :; do
		in_time || fail "run 2: task ${array}_$1 did not get midway in 120 s: $(state "${array}_$1")"
		[ ! -f "$tmp/run2/shard-$1/points.tsv" ] ||
			fail "run 2: task ${array}_$1 finished before the test could stop it midway"
		k=$(journal_rows "$tmp/run2/shard-$1")
		if [ "$k" -ge 1 ] && [ "$k" -le $((total / 2)) ]; then
			scontrol suspend "${array}_$1" || fail "scontrol suspend ${array}_$1"
			break
		fi
		sleep 0.02
	done
	k=$(journal_rows "$tmp/run2/shard-$1")
	[ ! -f "$tmp/run2/shard-$1/points.tsv" ] && [ "$k" -lt "$total" ] ||
		fail "run 2: task ${array}_$1 finished before it was suspended"
	echo "run 2: task ${array}_$1 suspended at $k of $total rows"
}
wait_pending() {
	deadline 30
	until [ "$(state "${array}_$1")" = PENDING ]; do
		in_time || fail "task ${array}_$1 not pending after requeue: $(state "${array}_$1")"
		sleep 0.2
	done
}
# Task 1, preemption-like: requeued while running. The merge's dependency
# holds. Slurm keeps a requeued task pending for two minutes (BeginTime).
catch 1
# (Resumed before it is ended: a requeued suspended job would be held.)
scontrol resume "${array}_1" || fail "scontrol resume ${array}_1"
scontrol requeue "${array}_1" || fail "scontrol requeue ${array}_1"
wait_pending 1
# Task 2, a user's scancel: the task ends CANCELLED, which fails the merge's
# afterok for good; requeue it and repoint the merge as docs/slurm.md says.
# Cancelled while suspended: resumed first, a task could finish its shard
# before the signal arrived (a shard of these logs takes about a second);
# requeued, a task cancelled while suspended is held, so it is released.
catch 2
scancel "${array}_2" || fail "scancel ${array}_2"
deadline 30
until [ "$(state "${array}_2")" = CANCELLED ]; do
	in_time || fail "task ${array}_2 not cancelled: $(state "${array}_2")"
	sleep 0.2
done
scontrol requeue "${array}_2" || fail "scontrol requeue ${array}_2"
wait_pending 2
scontrol release "${array}_2" 2>/dev/null || : # (held where this Slurm holds it)
scontrol update "jobid=$merge" "dependency=afterok:${array}_1:${array}_2:${array}_3:${array}_4" ||
	fail "repointing the merge's dependency"
# Task 3, near a time limit: run 2 has --time 10, so its tasks trap the
# SIGUSR1 that Slurm sends their batch shell 90 s before it
# (--signal=B:USR1@90). The test sends it now, to that shell (found by its
# script in this cluster's spool folder), while the task is suspended; on
# resuming, the shell runs its trap: the try made progress, so the task
# requeues itself. (scancel --batch --signal=USR1 would do the same, but
# slurmd drops signals for a step it still counts as suspended.)
catch 3
jobid=$(scontrol show job "${array}_3" | sed -n 's/^JobId=\([0-9]*\).*/\1/p')
script="$tmp/cluster/spool/job$(printf %05d "$jobid")/slurm_script"
shell=
for f in /proc/[0-9]*/cmdline; do
	if tr '\0' ' ' <"$f" 2>/dev/null | grep -qF "$script"; then
		shell=${f#/proc/}
		shell=${shell%/cmdline}
		break
	fi
done
[ -n "$shell" ] || fail "run 2: no batch shell running $script"
kill -USR1 "$shell" || fail "kill -USR1 $shell"
scontrol resume "${array}_3" || fail "scontrol resume ${array}_3"
deadline 30
until grep -q 'time limit near' "$tmp/run2/logs/shard-3.out"; do
	in_time || fail "run 2: task ${array}_3's shell never ran its SIGUSR1 trap"
	sleep 0.2
done
wait_pending 3
# A requeued task may start again only once its last try is gone from the
# node: slurmd writes a try's script to SPOOL/jobNNNNN/slurm_script, which
# the old try's slurmstepd removes when it has ended, and a launch that
# finds the folder still there fails ("couldn't open .../slurm_script:
# File exists") and leaves the task "launch failed requeued held", never
# to run. The controller calls a task PENDING before that (its epilog is
# complete, the old try's processes may not be); Slurm's own delay for a
# requeued task (BeginTime, above) covers the gap, and StartTime=now below
# skips that delay: so wait for the folder and the old try's processes
# to be gone first.
gone() { # TASK: its spool folder is gone and no process runs its script
	jobid=$(scontrol show job "${array}_$1" | sed -n 's/^JobId=\([0-9]*\).*/\1/p')
	[ -n "$jobid" ] || return 1
	dir="$tmp/cluster/spool/job$(printf %05d "$jobid")"
	[ ! -e "$dir" ] || return 1
	for f in /proc/[0-9]*/cmdline; do
		tr '\0' ' ' <"$f" 2>/dev/null | grep -qF "$dir/slurm_script" && return 1
	done
	return 0
}
for i in 1 2 3; do
	deadline 60
	until gone "$i"; do
		in_time || fail "run 2: task ${array}_$i's last try still on the node after 60 s" \
			"($(ls -d "$tmp"/cluster/spool/job* 2>/dev/null | tr '\n' ' '))"
		sleep 0.2
	done
done
# Let everything run: task 4, the merge, and the requeued tasks now.
scontrol release "${array}_4" || fail "scontrol release ${array}_4"
scontrol release "$merge" || fail "scontrol release $merge"
for i in 1 2 3; do
	scontrol update "jobid=${array}_$i" StartTime=now || fail "StartTime=now for ${array}_$i"
done
wait_jobs "$array,$merge" 150
[ "$(state "$merge")" = COMPLETED ] || fail "run 2: merge job $merge ended $(state "$merge")"
for i in 1 2 3; do
	log=$tmp/run2/logs/shard-$i.out
	grep -q "shard $i/4, job ${array}_$i, try 2" "$log" || fail "run 2: shard $i did not run a second try"
	line=$(grep 'points already in' "$log")
	[ -n "$line" ] || fail "run 2: shard $i did not resume"
	kept=$(echo "$line" | sed 's/.*: \([0-9]*\) points already in.*/\1/')
	left=$(echo "$line" | sed 's/.*, \([0-9]*\) to run.*/\1/')
	[ "$kept" -ge 1 ] && [ "$left" -ge 1 ] || fail "run 2: shard $i resumed oddly: $line"
	grep -q "shard $i/4: sweep exited with status 0" "$log" || fail "run 2: shard $i's second try"
	echo "run 2: shard $i resumed: $kept points kept, $left run again"
done
grep -q "time limit near; [0-9]* points done in this try; requeueing shard 3" \
	"$tmp/run2/logs/shard-3.out" || fail "run 2: shard 3 did not requeue itself on SIGUSR1"
rows "$tmp/run2/points.tsv" >"$tmp/run2.rows"
cmp -s "$tmp/ref.rows" "$tmp/run2.rows" || fail "run 2: merged points.tsv differs from the unsharded sweep"
echo "run 2: merged result equals the unsharded sweep ($(elapsed) s)"

# --- 3. A merge over a missing shard. ---
mv "$tmp/run2/shard-3" "$tmp/run2/away"
"$rematsim" merge "$tmp/run2/shard-1" "$tmp/run2/shard-2" "$tmp/run2/shard-4" \
	--out "$tmp/m3" 2>"$tmp/m3.err"
status=$?
[ "$status" -eq 65 ] || fail "merge over a missing shard: status $status, not 65"
missing=$("$rematsim" sweep "$tmp/exp.yaml" --dry-run --shard 3/4 2>/dev/null)
grep -q "^rematsim: merge: $missing of $points points are missing; rerun 1 shard" "$tmp/m3.err" &&
	grep -q "^  shard 3/4, $missing points (2, 6, 10, 14, 18, 22, 26, \.\.\.): none of the folders" "$tmp/m3.err" &&
	grep -q "^  with Slurm: sbatch --array=3 $tmp/run2/slurm/shards.sbatch" "$tmp/m3.err" ||
	fail "merge over a missing shard: unexpected message: $(cat "$tmp/m3.err")"
[ ! -e "$tmp/m3/points.tsv" ] || fail "merge over a missing shard wrote points.tsv"
echo "merge over a missing shard: status 65, names shard 3/4 and its $missing points"
# --- 4. The by-hand template, scripts/slurm/sweep.sbatch: 3 shards + merge. ---
cat >"$tmp/small.yaml" <<EOF
experiment: small
manifest: $src/logs/manifest.json
heuristics: [DTR, LRU]
ratios: [0.2, 0.5, 0.8]
EOF
"$rematsim" sweep "$tmp/small.yaml" --out "$tmp/small-ref" --quiet --jobs 1 || fail "small sweep"
mkdir "$tmp/run4"
export REMATSIM="$rematsim"
array=$(sbatch --parsable -D "$tmp/run4" --array=1-3 "$src/scripts/slurm/sweep.sbatch" \
	"$tmp/small.yaml" "$tmp/run4" 3) || fail "sbatch of the template's array"
merge=$(sbatch --parsable -D "$tmp/run4" "--dependency=afterok:$array" \
	"$src/scripts/slurm/sweep.sbatch" "$tmp/small.yaml" "$tmp/run4" 3) ||
	fail "sbatch of the template's merge"
wait_jobs "$array,$merge" 60
[ "$(state "$merge")" = COMPLETED ] || fail "template: merge job $merge ended $(state "$merge")"
rows "$tmp/small-ref/points.tsv" >"$tmp/small.rows"
rows "$tmp/run4/points.tsv" | cmp -s "$tmp/small.rows" - ||
	fail "template: merged points.tsv differs from the unsharded sweep"
[ -s "$tmp/run4/slurm-${array}_2.out" ] || fail "template: no log slurm-${array}_2.out"
echo "template: 3 shards + merge equal the unsharded sweep"
# --- 5. --manifest and --models instead of the file's models (issue 29):
# given relative to the submitting folder, named absolutely in the scripts,
# the merged result equals `rematsim sweep --manifest/--models`. ---
mkdir "$tmp/sub"
cp "$src/tests/data/chains.zip" "$tmp/sub/"
for how in manifest models; do
	if [ "$how" = manifest ]; then arg=chains.zip; else arg=chains.zip:chain12,$src/tests/data/chain8.log; fi
	(cd "$tmp/sub" && "$rematsim" sweep "$tmp/small.yaml" --"$how" "$arg" --out "$tmp/$how-ref" --quiet --jobs 1) ||
		fail "sweep --$how"
	(cd "$tmp/sub" && "$rematsim" slurm "$tmp/small.yaml" --"$how" "$arg" --shards 2 --out "$tmp/run5-$how" \
		>"$tmp/run5-$how.ids" 2>"$tmp/run5-$how.err") || fail "rematsim slurm --$how: $(cat "$tmp/run5-$how.err")"
	array=$(awk '$1 == "shards" { print $2 }' "$tmp/run5-$how.ids")
	merge=$(awk '$1 == "merge" { print $2 }' "$tmp/run5-$how.ids")
	wait_jobs "$array,$merge" 60
	[ "$(state "$merge")" = COMPLETED ] || fail "--$how: merge job $merge ended $(state "$merge")"
	rows "$tmp/$how-ref/points.tsv" >"$tmp/$how.rows"
	rows "$tmp/run5-$how/points.tsv" | cmp -s "$tmp/$how.rows" - ||
		fail "--$how: merged points.tsv differs from sweep --$how"
	grep -q "^$how=$tmp/sub/chains.zip" "$tmp/run5-$how/slurm/shards.sbatch" ||
		fail "--$how: the script does not name the archive by absolute path"
done
echo "--manifest and --models: 2 shards + merge equal sweep --manifest/--models"
# --- 6. --cache (relative to the submitting folder, made at submission):
# the shards of a second submission take every replay from the first's. ---
for k in 1 2; do
	(cd "$tmp/sub" && "$rematsim" slurm "$tmp/small.yaml" --cache replays --shards 2 --out "$tmp/run6-$k" \
		>"$tmp/run6-$k.ids" 2>"$tmp/run6-$k.err") || fail "rematsim slurm --cache: $(cat "$tmp/run6-$k.err")"
	array=$(awk '$1 == "shards" { print $2 }' "$tmp/run6-$k.ids")
	merge=$(awk '$1 == "merge" { print $2 }' "$tmp/run6-$k.ids")
	wait_jobs "$array,$merge" 60
	[ "$(state "$merge")" = COMPLETED ] || fail "--cache: merge job $merge ended $(state "$merge")"
done
grep -q "^cache=$tmp/sub/replays" "$tmp/run6-1/slurm/shards.sbatch" ||
	fail "--cache: the script does not name the cache by absolute path"
rows "$tmp/run6-2/points.tsv" >"$tmp/run6-2.rows"
rows "$tmp/run6-1/points.tsv" | cmp -s "$tmp/run6-2.rows" - ||
	fail "--cache: the second submission's rows differ from the first's"
taken=$(cat "$tmp"/run6-2/logs/shard-*.out | sed -n 's/.*: \([0-9]*\) replays taken from the cache .*/\1/p' |
	awk '{ s += $1 } END { print s + 0 }')
n=$(wc -l <"$tmp/run6-2.rows")
[ "$taken" -eq $((n - 1)) ] || fail "--cache: the second submission took $taken of its $((n - 1)) replays from the cache"
echo "--cache: a second submission takes $taken replays from the first's cache, the same rows"
echo "done in $(elapsed) s"
