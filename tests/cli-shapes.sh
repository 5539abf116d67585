#!/bin/sh
# cli-shapes.sh REMATSIM: a sweep never writes what its own readers
# refuse (issue 40, H2). Every shape of experiment a sweep can write
# (recorded and generated models, ratios and budget formulas, heuristics
# and series, an offloading series, the allocator model's columns, planners, the ILP with gap:, the
# heuristics at the plans' peaks) is swept, then read back by plot's
# reader, merged from two shards (equal to the unsharded rows, wall_ms
# aside) and resumed (nothing to run, the rows kept). Before: a planner's
# rows lacked the n and budget_formula columns in an experiment with
# generated models or formulas; the sweep exited 0 and plot, merge and a
# resume exited 65.
set -u
R=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/cli-lib.sh"
T="${TMPDIR:-/tmp}/cli-shapes.$$"
mkdir -p "$T"
trap 'rm -rf "$T"' EXIT

"$R" gen linear --n 12 --out "$T/chain.log" >/dev/null || no "gen linear"
ilp=1
"$R" solve "$T/chain.log" --planner ilp --budget-ratio 0.75 >/dev/null 2>&1
[ $? -eq 69 ] && ilp=0

rows() { # DIR: the rows of points.tsv without the times: wall_ms (field
	# 17) and an ILP's solve seconds (the last of its columns, which
	# stopped_clock follows: results.h)
	grep -v '^#' "$1/points.tsv" | awk -F '\t' -v OFS='\t' -v ilp=$plans \
		'{ $17 = ""; if (ilp == "ilp") $(NF - 1) = ""; print }'
}

n=0
for models in log gen both; do
	for steps in ratios formula; do
		[ $models = both ] && [ $steps = formula ] && continue
		for heur in heuristics series; do
			for plans in none plans peaks ilp; do
				[ $plans = ilp ] && [ $ilp = 0 ] && continue
				name="$models-$steps-$heur-$plans"
				y="$T/$name.yaml"
				{
					echo "experiment: $name"
					echo "models:"
					[ $models != gen ] && echo "  - {name: rec, log: $T/chain.log}"
					[ $models != log ] && echo "  - {name: g, gen: linear, n: 10}"
					[ $steps = ratios ] && echo "ratios: [0.5, 1]"
					[ $steps = formula ] && echo 'budgets: ["n/2", "n"]'
					if [ $heur = heuristics ]; then
						echo "heuristics: [DTR, LRU]"
					else
						echo "series:"
						echo "  - {name: plain, heuristic: DTR}"
						echo "  - {name: off, heuristic: LRU, offload_bandwidth: 25GB/s}"
						# the allocator model's columns too (docs/allocator.md),
						# except on the recorded log's shapes
						[ $models != log ] && echo "allocator: pytorch:max_split_size_mb:20"
					fi
					case $plans in
					plans) echo "planners: {dp: {k: [1, 2]}, sqrtn: {}, revolve: {snapshots: [2]}}" ;;
					peaks) echo "planners: {dp: {k: [1]}, revolve: {snapshots: [2, 3]}}"
					       echo "heuristics_at_plan_peaks: true" ;;
					ilp) echo "planners: {ilp: {ratio: [0.6, 0.01], time_limit: 20}, dp: {k: [1]}}"
					     echo "gap: ilp" ;;
					esac
				} > "$y"
				n=$((n + 1))
				d="$T/$name"
				"$R" sweep "$y" --out "$d" --quiet --jobs 2 >/dev/null 2>"$T/err"
				st=$?
				[ $st -eq 0 ] || { no "$name: sweep exited $st: $(head -c 300 "$T/err")"; continue; }
				before=$(rows "$d")
				"$R" plot "$d" --format svg >/dev/null 2>"$T/err"
				st=$?
				[ $st -eq 0 ] || [ $st -eq 69 ] && ok "$name: plot reads it ($st)" ||
					no "$name: plot exited $st: $(head -c 300 "$T/err")"
				"$R" sweep "$y" --out "$d.1" --shard 1/2 --quiet >/dev/null 2>&1 &&
					"$R" sweep "$y" --out "$d.2" --shard 2/2 --quiet >/dev/null 2>&1 ||
					no "$name: shards"
				"$R" merge "$d.1" "$d.2" --out "$d.m" >/dev/null 2>"$T/err"
				st=$?
				[ $st -eq 0 ] && [ "$(rows "$d.m")" = "$before" ] &&
					ok "$name: merge of two shards" ||
					no "$name: merge exited $st: $(head -c 300 "$T/err")"
				"$R" sweep "$y" --out "$d" --quiet >/dev/null 2>"$T/err"
				st=$?
				[ $st -eq 0 ] && [ "$(rows "$d")" = "$before" ] && ok "$name: resume" ||
					no "$name: resume exited $st: $(head -c 300 "$T/err")"
				rm -rf "$d" "$d.1" "$d.2" "$d.m"
			done
		done
	done
done
[ $n -ge 24 ] && ok "$n shapes" || no "only $n shapes"
exit $fail
