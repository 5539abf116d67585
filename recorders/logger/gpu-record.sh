#!/bin/sh
# gpu-record.sh [OUT]: on a machine with a CUDA GPU and nvcc, build the
# logger with its CUDA backend into a fresh build folder, run the logger's
# tests (the CUDA ones included: they skip only without a device), record
# the four demos with --device cuda into OUT (default: $OUT, else
# ./gpu-logs) as MODEL-cuda-TAG.log.gz + MODEL-cuda-TAG.meta.json (TAG from
# the GPU's name, e.g. h200; override with GPU_TAG), and print a timing
# summary, and a manifest.json for the logs. About 1-2 minutes on an H200;
# no managed memory is used. Where meson can't configure the project (the
# borrowed H200 image has no jansson, check, libyaml or minizip), it builds
# rematsim-record and the CUDA-vs-CPU check directly with gcc and nvcc.
#
# Environment: BUILD_DIR (default build-gpu), GPU_TAG, MESON_ARGS,
# FORCE_DIRECT=1 (skip meson).
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-${OUT:-$PWD/gpu-logs}}
bdir=${BUILD_DIR:-$src/build-gpu}
mkdir -p "$out"
out=$(cd "$out" && pwd)
t0=$(date +%s)
say() { echo "[gpu-record +$(( $(date +%s) - t0 ))s] $*"; }

gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
say "GPU: ${gpu:-unknown (no nvidia-smi)}; nvcc: $(nvcc --version 2>/dev/null | tail -1)"
tag=${GPU_TAG:-$(printf '%s\n' "${gpu%%,*}" | tr 'A-Z ' 'a-z\n' | grep -E '^[a-z]+[0-9]{2,}' | head -1)}
tag=${tag:-gpu}

# The direct build: only gcc, nvcc, zlib and cuBLAS, for machines without
# the project's other libraries (jansson, check, libyaml, minizip); it
# builds rematsim-record and logger-cuda-check, not the Check tests.
direct_build() {
	d="$bdir/direct"
	mkdir -p "$d" || return 1
	version=$(sed -n "s/^  version: '\([^']*\)'.*/\1/p" "$src/meson.build" | head -1)
	printf '#define REMATSIM_VERSION "%s"\n' "${version:-0}" >"$d/config.h"
	printf '#define HAVE_CUDA 1\n' >"$d/logger_config.h"
	inc="-I$d -I$src/recorders/logger -I$src/sim"
	nvcc -O3 --std=c++17 $inc -c "$src/recorders/logger/backend_cuda.cu" -o "$d/backend_cuda.o" || return 1
	for f in recorders/logger/oplog recorders/logger/tensor recorders/logger/backend_cpu recorders/logger/models \
		recorders/logger/model_mlp recorders/logger/model_cnn recorders/logger/model_transformer \
		recorders/logger/model_lstm recorders/logger/record sim/util tests/logger/cuda-check; do
		gcc -O3 -std=c11 -D_GNU_SOURCE -Wall -Wextra $inc -c "$src/$f.c" \
			-o "$d/$(basename "$f").o" || return 1
	done
	lib="$d/backend_cuda.o $d/oplog.o $d/tensor.o $d/backend_cpu.o $d/models.o $d/model_mlp.o"
	lib="$lib $d/model_cnn.o $d/model_transformer.o $d/model_lstm.o $d/util.o"
	nvcc -o "$bdir/rematsim-record" "$d/record.o" $lib -lcublas -lz -lm || return 1
	nvcc -o "$bdir/logger-cuda-check" "$d/cuda-check.o" $lib -lcublas -lz -lm || return 1
}

rm -rf "$bdir"
if [ -z "${FORCE_DIRECT:-}" ] && command -v meson >/dev/null &&
	meson setup "$bdir" "$src" -Dcuda=enabled -Dbuildtype=release ${MESON_ARGS:-} \
		>"$out/build.txt" 2>&1 && meson compile -C "$bdir" >>"$out/build.txt" 2>&1; then
	say "built $bdir with meson (CUDA backend: $(grep -c 'CUDA backend: YES' "$out/build.txt") = 1 expected)"
	if meson test -C "$bdir" --suite logger --print-errorlogs >"$out/tests.txt" 2>&1; then
		say "tests passed"
	else
		say "TESTS FAILED: see $out/tests.txt"
	fi
	grep -E '^ *[0-9]+/[0-9]+ ' "$out/tests.txt"
	cuda_check="$bdir/tests/logger/logger-cuda-check"
else
	say "meson build not possible here (see $out/build.txt); building directly with gcc and nvcc"
	rm -rf "$bdir"
	if ! direct_build >>"$out/build.txt" 2>&1; then
		say "BUILD FAILED: see $out/build.txt"; tail -20 "$out/build.txt"
		exit 1
	fi
	say "built $bdir/rematsim-record"
	cuda_check="$bdir/logger-cuda-check"
fi
say "CUDA against CPU (loss and every gradient of each tiny model):"
"$cuda_check" >"$out/cuda-check.txt" 2>&1
cc=$?
cat "$out/cuda-check.txt"
case $cc in 0) say "CUDA check passed";; 77) say "CUDA CHECK SKIPPED (no device?)";; *) say "CUDA CHECK FAILED";; esac

status=0
entries=""
# record NAME TITLE DESC ARGS...: one demo on the GPU, and its manifest entry.
record() {
	name=$1 title=$2 desc=$3
	shift 3
	log="$name-cuda-$tag.log.gz"
	s=$(date +%s.%N)
	if "$bdir/rematsim-record" "$@" --device cuda --seed 1 --out "$out/$log" 2>"$out/$name.err"; then
		e=$(date +%s.%N)
		say "$(cat "$out/$name.err") [wall $(awk "BEGIN { printf \"%.2f\", $e - $s }") s]"
		entry=$(printf '    {"name": "%s", "title": "%s", "desc": "%s, %s", "log": "%s", "has_start": true}' \
			"$title" "$title" "$desc" "${gpu%%,*}" "$log")
		entries="${entries:+$entries,
}$entry"
	else
		say "RECORD FAILED ($name): $(cat "$out/$name.err")"; status=1
	fi
	rm -f "$out/$name.err"
}
record mlp "MLP (1024, $tag)" "8 x 4096 units, batch 1024" \
	--model mlp --batch 1024 --width 4096 --depth 8
record cnn "CNN (128, $tag)" "5 conv layers x 64 channels, 64x64 images, batch 128" \
	--model cnn --batch 128 --width 64 --depth 5 --image 64
record transformer "Transformer (16, $tag)" "6 blocks, width 512, 8 heads, 256 tokens, batch 16" \
	--model transformer --batch 16 --width 512 --depth 6 --seq 256 --heads 8
record lstm "LSTM (128, $tag)" "2 layers x 512 units, 32 steps, batch 128" \
	--model lstm --batch 128 --width 512 --depth 2 --seq 32

# A manifest in the artifact's format, so that the logs can be checked
# (tests/logger/test-shipped-logs OUT/manifest.json) and shipped as they are.
printf '{\n  "models": [\n%s\n  ]\n}\n' "$entries" >"$out/manifest.json"
ls -l "$out"
say "done"
exit $status
