#!/bin/sh
# build-libfuzzer.sh [OUT [SECONDS]]: build the fuzz targets for libFuzzer
# (clang, with AddressSanitizer and UndefinedBehaviorSanitizer) into OUT
# (default build-fuzz/), from the sources directly: every source compiled
# once, then each target linked. Needs a configured build/ (for config.h).
# With SECONDS, also run each target that long on its regression corpus
# (tests/fuzz/corpus/NAME, or its seed files) and fail on the first crash,
# leak, timeout or sanitizer finding: what CI's sanitizer step does
# (.ci/run). By hand, for longer:
#
#   build-fuzz/fuzz-zip -max_total_time=600 -timeout=10 -rss_limit_mb=2048 \
#       build-fuzz/corpus-zip tests/fuzz/corpus/zip
#
# and keep every crash-* input it writes in tests/fuzz/corpus/NAME/ (the
# regression corpus that `meson test` replays).
set -eu
cd "$(dirname "$0")/../.."
out=${1:-build-fuzz}
seconds=${2:-}
command -v clang >/dev/null 2>&1 || { echo "build-libfuzzer: no clang (apt-get install clang)" >&2; exit 69; }
[ -f build/sim/util/config.h ] || { echo "build-libfuzzer: run meson setup build first" >&2; exit 69; }
mkdir -p "$out/obj"
pkgs="yaml-0.1 zlib minizip jansson libxxhash libdeflate"
# -fsanitize=fuzzer-no-link: instrumented for libFuzzer; only the targets
# link its main.
cflags="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
  -D_GNU_SOURCE -std=gnu11 -Isim/util -Isim/lib/read -Isim/lib/runtime -Isim/lib/alloc -Isim/lib/analysis -Isolvers -Isim/exp -Ibuild/sim/util
  $(pkg-config --cflags $pkgs)"
# The ILP's solvers as meson builds them: CBC's headers where the build
# has it (config.h's HAVE_CBC), both libraries loaded with dlopen.
if grep -q '#define HAVE_CBC 1' build/sim/util/config.h; then
	cflags="$cflags $(pkg-config --cflags cbc)"
fi
libs="$(pkg-config --libs $pkgs) -lm -lpthread -ldl"

# Every library source once, in parallel (an object per source, named after
# its path).
objs=""
for src in sim/util/*.c sim/lib/*/*.c solvers/*.c sim/exp/*.c; do
	objs="$objs $out/obj/$(echo "$src" | tr / _ | sed 's/\.c$/.o/')"
done
# shellcheck disable=SC2086
printf '%s\n' sim/util/*.c sim/lib/*/*.c solvers/*.c sim/exp/*.c |
	xargs -P "$(nproc)" -I{} sh -c 'o="$1/obj/$(echo "$2" | tr / _ | sed "s/\.c\$/.o/")"
		[ "$o" -nt "$2" ] || exec clang $3 -c -o "$o" "$2"' sh "$out" {} "$cflags"

# name:source:extra flags (fuzz-replay: fuzz-reader replaying what it reads)
targets="reader:fuzz-reader: replay:fuzz-reader:-DFUZZ_REPLAY zip:fuzz-zip: yaml:fuzz-yaml: pickle:fuzz-pickle:
results:fuzz-results: gptext:fuzz-gptext: graph:fuzz-graph:"
for t in $targets; do
	name=${t%%:*}
	rest=${t#*:}
	src=${rest%%:*}
	extra=${rest#*:}
	# shellcheck disable=SC2086
	clang $cflags -fsanitize=fuzzer $extra -o "$out/fuzz-$name" tests/fuzz/$src.c $objs $libs
	mkdir -p "$out/corpus-$name"
done
echo "built $(for t in $targets; do printf '%s/fuzz-%s ' "$out" "${t%%:*}"; done)"
[ -n "$seconds" ] || exit 0

# The run: each target for SECONDS on its corpus (a fresh working copy
# under OUT; the regression corpus read, never written).
st=0
for t in $targets; do
	name=${t%%:*}
	corpus=tests/fuzz/corpus/$name
	seeds=""
	case $name in
	reader) seeds="-seed_inputs=tests/data/tiny.log,tests/data/bad/out-of-order.log,tests/data/bad/mutate-range.log" ;;
	replay) seeds="-seed_inputs=tests/data/tiny.log,tests/data/chain8.log,tests/data/region-drift.log" ;;
	esac
	[ -d "$corpus" ] || corpus=""
	echo "build-libfuzzer: fuzz-$name for $seconds s"
	# shellcheck disable=SC2086
	if ! ASAN_OPTIONS=detect_leaks=1 "$out/fuzz-$name" -max_total_time="$seconds" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=0 -artifact_prefix="$out/$name-" $seeds \
		"$out/corpus-$name" $corpus > "$out/fuzz-$name.log" 2>&1; then
		tail -40 "$out/fuzz-$name.log" >&2
		echo "build-libfuzzer: fuzz-$name found a problem: the input is $out/$name-*;" \
			"keep it in tests/fuzz/corpus/$name/" >&2
		st=1
	else
		grep -h 'Done [0-9]* runs' "$out/fuzz-$name.log" || true
	fi
done
exit $st
