#!/bin/sh
# gpu-record.sh [OUT]: on a machine with a CUDA GPU and nvcc, build the
# logger with its CUDA backend into a fresh build folder, run the logger's
# tests (the CUDA ones included: they skip only without a device), record
# the four demos with --device cuda into OUT (default: $OUT, else
# ./gpu-logs) as MODEL-cuda-TAG.log.gz + MODEL-cuda-TAG.meta.json (TAG from
# the GPU's name, e.g. h200; override with GPU_TAG), and print a timing
# summary. About 1-2 minutes on an H200; no managed memory is used.
#
# Environment: BUILD_DIR (default build-gpu), GPU_TAG, MESON_ARGS.
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

rm -rf "$bdir"
if meson setup "$bdir" "$src" -Dcuda=enabled -Dbuildtype=release ${MESON_ARGS:-} \
	>"$out/build.txt" 2>&1 && meson compile -C "$bdir" >>"$out/build.txt" 2>&1; then
	say "built $bdir (CUDA backend: $(grep -c 'CUDA backend: YES' "$out/build.txt") = 1 expected)"
else
	say "BUILD FAILED: see $out/build.txt"; tail -20 "$out/build.txt"
	exit 1
fi

if meson test -C "$bdir" --suite logger --print-errorlogs >"$out/tests.txt" 2>&1; then
	say "tests passed"
else
	say "TESTS FAILED: see $out/tests.txt"
fi
grep -E '^ *[0-9]+/[0-9]+ ' "$out/tests.txt"

status=0
record() {
	name=$1; shift
	log="$out/$name-cuda-$tag.log.gz"
	s=$(date +%s.%N)
	if "$bdir/rematsim-record" "$@" --device cuda --seed 1 --out "$log" 2>"$out/$name.err"; then
		e=$(date +%s.%N)
		say "$(cat "$out/$name.err") [wall $(awk "BEGIN { printf \"%.2f\", $e - $s }") s]"
	else
		say "RECORD FAILED ($name): $(cat "$out/$name.err")"; status=1
	fi
	rm -f "$out/$name.err"
}
record mlp --model mlp --batch 1024 --width 4096 --depth 8
record cnn --model cnn --batch 128 --width 64 --depth 5 --image 64
record transformer --model transformer --batch 16 --width 512 --depth 6 --seq 256 --heads 8
record lstm --model lstm --batch 128 --width 512 --depth 2 --seq 32
ls -l "$out"
say "done"
exit $status
