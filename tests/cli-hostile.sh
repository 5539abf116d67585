#!/bin/sh
# cli-hostile.sh REMATSIM: the findings of issue 27's hostile pass that a
# command line shows, one section each (N1 and N3 have tests of their own:
# plot-quoting.sh, test-reader's log_changed_between_passes). Each check
# failed on the main before the fix.
set -u
R=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/cli-lib.sh"
cd "$(dirname "$0")/data" || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# has DESC TEXT PATTERN: the text holds the fixed string
has() {
	case "$2" in *"$3"*) ok "$1" ;; *) no "$1: '$3' not in: $2" ;; esac
}

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

exit $fail
