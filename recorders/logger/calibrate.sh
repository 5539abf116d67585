#!/bin/sh
# calibrate.sh DEVICE [OUT]: measure the time model's calibration for the
# GPU of this machine (docs/llm.md, "A time model for a named device").
#
# The C logger records sweeps whose op times it measures on the device
# (CUDA events, synchronized per op): an MLP of two hidden layers at each
# width of WIDTHS, batch = width, so its matrix products run from small to
# large and its elementwise ops (bias, ReLU and their gradients, the SGD
# step) from a few kilobytes to hundreds of megabytes. Each configuration
# is also recorded with --device cpu --dry --costs (the same ops, with
# their FLOPs and bytes, not run). `python3 -m rematsim_torch timecheck
# --device DEVICE` then pairs them op by op, reports the time model's error
# per op class and for the whole step, uncalibrated and calibrated on
# every other op (held out on the rest), and writes the fitted calibration
# to OUT/DEVICE-calibration.json, for `plan --calibration` and the
# recorder's --calibration. DEVICE names the device's row in the time
# model's table (h100-sxm, h200, a100-80gb, ...; `python3 -m rematsim_torch
# plan --help` lists them).
#
# Environment:
#   RECORD         the logger (default: build/rematsim-record, or
#                  build-gpu/rematsim-record as gpu-record.sh builds it)
#   LOGGER_DEVICE  the logger's device for the timed runs (default cuda;
#                  cpu runs the whole pipeline without a GPU, to try it:
#                  the numbers are then the CPU's, not the device's)
#   WIDTHS         the sweep (default "256 512 1024 2048 4096 8192")
#   PYTHON         python3 with rematsim_torch importable (default: python3,
#                  with recorders/torch on PYTHONPATH)
#
# Exit status: 0 done; 64 bad arguments; 66 no logger; otherwise the
# status of the step that failed (the logger's 69: no device).
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: calibrate.sh DEVICE [OUT]" >&2; exit 64; }
dev=$1
out=${2:-$PWD/calibration}
widths=${WIDTHS:-256 512 1024 2048 4096 8192}
ldev=${LOGGER_DEVICE:-cuda}
py=${PYTHON:-python3}
rec=${RECORD:-}
if [ -z "$rec" ]; then
	for c in "$src/build-gpu/rematsim-record" "$src/build/rematsim-record"; do
		[ -x "$c" ] && { rec=$c; break; }
	done
fi
[ -n "$rec" ] && [ -x "$rec" ] || { echo "calibrate.sh: no rematsim-record (build it, or set RECORD)" >&2; exit 66; }
mkdir -p "$out" || exit 73
out=$(cd "$out" && pwd)
: >"$out/record.txt" || exit 73
PYTHONPATH="$src/recorders/torch${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH

for w in $widths; do
	case $w in '' | *[!0-9]* | 0*) echo "calibrate.sh: WIDTHS holds '$w', not a width" >&2; exit 64 ;; esac
done
set --
for w in $widths; do
	m="$out/sweep-mlp$w-$ldev.log.gz"
	c="$out/sweep-mlp$w-costs.log.gz"
	"$rec" --model mlp --batch "$w" --width "$w" --depth 2 --device "$ldev" --out "$m" \
		>>"$out/record.txt" 2>&1 ||
		{ st=$?; tail -3 "$out/record.txt" >&2; echo "calibrate.sh: recording width $w on $ldev failed ($st)" >&2; exit $st; }
	"$rec" --model mlp --batch "$w" --width "$w" --depth 2 --device cpu --dry --costs --out "$c" \
		>>"$out/record.txt" 2>&1 ||
		{ st=$?; tail -3 "$out/record.txt" >&2; echo "calibrate.sh: the costs of width $w failed ($st)" >&2; exit $st; }
	set -- "$@" "$m=$c"
done
cal="$out/$dev-calibration.json"
"$py" -m rematsim_torch timecheck --device "$dev" --write-calibration "$cal" "$@" >"$out/report.txt" ||
	{ st=$?; cat "$out/report.txt" >&2; exit $st; }
cat "$out/report.txt"
echo "calibration: $cal"
