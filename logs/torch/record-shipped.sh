#!/bin/sh
# record-shipped.sh [PYTHON]: re-record the shipped torch logs
# (logs/torch-*-cpu.log.gz and their .meta.json) with PYTHON (default
# /usr/bin/python3, Debian's, which has python3-torch and
# python3-torchvision). CPU times differ on every run, so the logs change;
# they were committed once. Sizes are kept small so that the main job's
# replays stay fast; log sizes do not grow with the batch, recording time
# does (8.5 minutes for all five on the loaded 2-core development machine).
set -eu
py=${1:-/usr/bin/python3}
cd "$(dirname "$0")/../.."
rec() {
	name=$1; shift
	PYTHONPATH=logs/torch "$py" -m rematsim_torch record "$@" --device cpu --seed 1 \
		--out "logs/torch-$name-cpu.log.gz"
}
rec mobilenet2 --model torchvision:mobilenet_v2 --batch 8
rec resnet50 --model torchvision:resnet50 --batch 4
rec gpt2 --model gpt2 --layers 12 --width 256 --heads 8 --seq 128 --vocab 8192 --batch 4
rec inception3 --model torchvision:inception_v3 --batch 4
rec densenet121 --model torchvision:densenet121 --batch 4
