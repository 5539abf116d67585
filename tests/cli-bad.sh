#!/bin/sh
# cli-bad.sh REMATSIM: the table of bad inputs, tests/data/bad/cases.tsv.
# Each line: STATUS <tab> MESSAGE <tab> COMMAND, run from tests/data with
# $R the rematsim binary, $T a fresh scratch folder and $S ../shared (a case
# whose command names $S is skipped when it is absent). The case passes
# when the command exits with STATUS within its time limit (60 s) and its
# stderr holds MESSAGE (`-`: any message). `#` lines are comments.
set -u
R=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/cli-lib.sh"
cd "$(dirname "$0")/data" || exit 1
S=${REMATSIM_SHARED:-}
TAB=$(printf '\t')
n=0
while IFS="$TAB" read -r want msg cmd; do
	case "$want" in '#'* | '') continue ;; esac
	n=$((n + 1))
	case "$cmd" in *'$S'*) [ -n "$S" ] && [ -d "$S" ] || { echo "ok - # SKIP $cmd (no ../shared)"; continue; } ;; esac
	T=$(mktemp -d)
	err=$(R="$R" T="$T" S="$S" timeout 60 sh -c "$cmd" 2>&1 >/dev/null); got=$?
	rm -rf "$T"
	if [ "$got" -ne "$want" ]; then
		no "$cmd: status $got, wanted $want; stderr: $(printf '%s' "$err" | head -c 400)"
	elif [ "$msg" != - ] && ! printf '%s' "$err" | grep -qF -- "$msg"; then
		no "$cmd: stderr lacks '$msg': $(printf '%s' "$err" | head -c 400)"
	else
		ok "$cmd ($got)"
	fi
done < bad/cases.tsv
[ "$n" -gt 0 ] || no "no cases read"
exit $fail
