#!/bin/sh
# run-cuda-test.sh PROGRAM [ARGS...]: run a CUDA test program, keeping its
# exit status (77: skipped). A script so that the valgrind test setup
# checks this shell rather than the CUDA and cuBLAS libraries.
exec "$@"
