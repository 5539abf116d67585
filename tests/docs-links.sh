#!/bin/sh
# docs-links.sh SOURCE_ROOT: what a user reads stays inside a clone
# (issue 44): README.md, docs/*.md and the recorders' READMEs point at no
# spec in ../shared/spec (the project's working specs, absent from a clone;
# the data in ../shared that commands read are said to be optional), and
# every docs/NAME.md they name exists.
set -u
cd "$1" || exit 1
fail=0
files="README.md docs/*.md recorders/*/README.md recorders/logger/record.c"
# shellcheck disable=SC2086
bad=$(grep -nE 'shared/spec|(SIMULATION|SOLVERS|LOG-FORMAT|EXPERIMENTS)\.md' $files)
if [ -n "$bad" ]; then
	echo "not ok - pointers to the specs in ../shared/spec, which a clone does not have:"
	echo "$bad"
	fail=1
else
	echo "ok - no pointer to ../shared/spec"
fi
# shellcheck disable=SC2086
for d in $(grep -ho 'docs/[a-z0-9-]*\.md' $files | sort -u); do
	if [ -f "$d" ]; then :; else
		echo "not ok - $d is named but does not exist"
		fail=1
	fi
done
[ $fail -eq 0 ] && echo "ok - every docs/NAME.md named exists"
exit $fail
