#!/bin/sh
# build-libfuzzer.sh [OUT]: build the fuzz targets for libFuzzer (clang,
# with AddressSanitizer and UndefinedBehaviorSanitizer) into OUT (default
# build-fuzz/), from the sources directly. Needs a configured build/ (for
# config.h). Then, for example:
#
#   build-fuzz/fuzz-zip -max_total_time=600 -timeout=10 -rss_limit_mb=2048 \
#       build-fuzz/corpus-zip tests/fuzz/corpus/zip
#
# and keep every crash-* input it writes in tests/fuzz/corpus/NAME/ (the
# regression corpus that `meson test` replays).
set -eu
cd "$(dirname "$0")/../.."
out=${1:-build-fuzz}
mkdir -p "$out"
[ -f build/sim/util/config.h ] || { echo "build-libfuzzer: run meson setup build first" >&2; exit 69; }
cflags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -D_GNU_SOURCE -std=gnu11
  -Isim/util -Isim/lib -Isim/exp -Ibuild/sim/util $(pkg-config --cflags yaml-0.1 zlib minizip jansson libxxhash)"
libs="$(pkg-config --libs yaml-0.1 zlib minizip jansson libxxhash) -lm -lpthread"
srcs="sim/util/*.c sim/lib/*.c sim/exp/*.c"
for t in reader zip yaml results; do
	# shellcheck disable=SC2086
	clang $cflags -o "$out/fuzz-$t" tests/fuzz/fuzz-$t.c $srcs $libs
	mkdir -p "$out/corpus-$t"
done
echo "built $out/fuzz-{reader,zip,yaml,results}"
