#!/bin/sh
# valgrind.sh BUILD: the reader and replay tests under memcheck, in BUILD
# (a non-sanitizer tree): the Check suites through `meson test --setup
# valgrind` (CK_FORK=no), and the command itself on every test log, bad
# log and archive (info, check, replay with and without --json and
# --timeline). Any error or definite leak fails it.
set -u
B=${1:-build}
cd "$(dirname "$0")/.." || exit 1
command -v valgrind >/dev/null || { echo "valgrind.sh: valgrind is not installed (skipped)"; exit 77; }
fail=0
meson test -C "$B" --setup valgrind --print-errorlogs reader runtime heuristics alloc || fail=1
R="$B/rematsim"
VG="valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --quiet"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
run() { # a status of 99 is valgrind's: an error or a leak
	$VG "$@" >/dev/null 2>"$T/err"
	if [ $? -eq 99 ]; then
		echo "not ok - valgrind: $*"; cat "$T/err"; fail=1
	else
		n=$((n + 1))
	fi
}
n=0
for f in tests/data/*.log tests/data/bad/*.log tests/data/bad/*.gz tests/data/bad/*.zip \
	tests/fuzz/corpus/zip/manifest.zip tests/fuzz/corpus/zip/manifest.zip:tiny; do
	run "$R" info "$f"
	run "$R" check "$f"
done
for h in DTR DTREqClass LRU MSPS RandomStorage; do
	for f in tests/data/tiny.log tests/data/chain16.log tests/data/region-drift.log tests/data/zero-time.log; do
		run "$R" replay "$f" --heuristic "$h" --ratio 0.3,0.6,1 --check
		run "$R" replay "$f" --heuristic "$h" --ratio 0.5 --json --timeline "$T/t.tsv"
	done
done
# PyTorch memory snapshots (the pickle reader, the allocator model) and
# replays through the model (docs/allocator.md)
for f in tests/data/snapshot/*.pickle tests/fuzz/corpus/pickle/*; do
	run "$R" snapshot "$f" --json --allocator-conf expandable_segments:True --device-memory 30MiB
done
run "$R" snapshot tests/data/snapshot/tiny.pickle --out "$T/snap"
run "$R" replay tests/data/chain16.log --heuristic DTR --ratio 0.3,0.6,1 --allocator pytorch --device-memory 3MiB
run "$R" replay tests/data/tiny.log --heuristic LRU --ratio 0.5 --allocator pytorch:expandable_segments:True --json
run "$R" replay tests/data/chain16.log --heuristic DTRUnopt --runtime V1 --ratio 0.4,0.8
run "$R" replay tests/data/tiny.log --heuristic DTR --ratio 0.5 --timeline /dev/full
echo "valgrind.sh: $n commands without an error or leak"
exit $fail
