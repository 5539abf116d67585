#!/bin/sh
# record-shipped.sh [PYTHON]: re-record the shipped torch logs
# (logs/torch-*-cpu.log.gz and their .meta.json) with PYTHON (default
# /usr/bin/python3, Debian's, which has python3-torch and
# python3-torchvision). CPU times differ on every run (the thread CPU
# times, less than wall times), so the logs change; they were committed
# once. Sizes are kept small so that the main job's replays stay fast and
# each recording takes about a minute or less on the 2-core development
# machine (recorders/torch/README.md has the times).
set -eu
py=${1:-/usr/bin/python3}
cd "$(dirname "$0")/../.."
rec() {
	name=$1; shift
	PYTHONPATH=recorders/torch "$py" -m rematsim_torch record "$@" --device cpu --seed 1 \
		--out "logs/torch-$name-cpu.log.gz"
}
# The five models at small batches (the whole iteration: zero_grad,
# forward, loss, backward, plain SGD step).
rec mobilenet2 --model torchvision:mobilenet_v2 --batch 8
rec resnet50 --model torchvision:resnet50 --batch 4
rec gpt2 --model gpt2 --layers 12 --width 256 --heads 8 --seq 128 --vocab 8192 --batch 4
rec inception3 --model torchvision:inception_v3 --batch 4
rec densenet121 --model torchvision:densenet121 --batch 4
# The same at batch 16, where activations dominate (what the replay pins
# at the end, the weights and their gradients, is 0.11-0.15 of the peak,
# against 0.32-0.41 at batch 4), as in the DTR paper's logs: the ops'
# CPU time is 30-50 s each; a log's size does not grow with the batch.
rec resnet50-b16 --model torchvision:resnet50 --batch 16
rec gpt2-b16 --model gpt2 --layers 12 --width 256 --heads 8 --seq 128 --vocab 8192 --batch 16
rec inception3-b16 --model torchvision:inception_v3 --batch 16
