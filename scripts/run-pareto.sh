#!/bin/sh
# scripts/run-pareto.sh: the experiment part of the main job (scripts/run
# calls it after building): sweep the paper's Pareto experiment over the
# logs of logs/manifest.json, render its figures, and print their paths.
# Rerunning resumes: points already in out/pareto are not run again.
#
# Extra arguments go to `rematsim sweep` (e.g. --jobs 1, --quiet).
# REMATSIM_EXPERIMENT=FILE.yaml runs another experiment file instead.
set -eu
cd "$(dirname "$0")/.."
exp=${REMATSIM_EXPERIMENT:-scripts/experiments/pareto.yaml}
name=$(sed -n 's/^experiment:[[:space:]]*\([^#[:space:]]*\).*/\1/p' "$exp" | head -n 1)
build/rematsim sweep "$exp" --out "out/$name" "$@"
echo "results: out/$name/points.tsv out/$name/models.tsv out/$name/frontier.tsv"
if command -v gnuplot >/dev/null 2>&1; then
	echo "figures:"
	build/rematsim plot "out/$name"
else
	echo "figures: skipped, gnuplot is not installed (the data is in out/$name)" >&2
fi
