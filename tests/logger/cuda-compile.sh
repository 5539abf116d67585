#!/bin/sh
# cuda-compile.sh NVCC SOURCE OUTPUT ARGS...: compile-only check of the
# CUDA backend (no GPU needed). A script, so that `meson test --setup
# valgrind` checks this shell and not nvcc's own memory use.
nvcc=$1 src=$2 out=$3
shift 3
exec "$nvcc" -c "$src" -o "$out" "$@"
