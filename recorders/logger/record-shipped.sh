#!/bin/sh
# record-shipped.sh [BUILD]: re-record the shipped CPU logs in logs/ with
# BUILD/rematsim-record (default: build). CPU times differ on every run, so
# the logs change; they were committed once.
set -eu
build=${1:-build}
cd "$(dirname "$0")/../.."
rec() {
	name=$1; shift
	"$build/rematsim-record" "$@" --device cpu --seed 1 --out "logs/$name-cpu.log.gz"
}
rec mlp --model mlp --batch 256 --width 1024 --depth 8
rec cnn --model cnn --batch 64 --width 32 --depth 5 --image 32
rec transformer --model transformer --batch 8 --width 128 --depth 4 --seq 128 --heads 8
rec lstm --model lstm --batch 64 --width 256 --depth 2 --seq 16
