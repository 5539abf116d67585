#!/usr/bin/env python3
"""Write the small hand-made op logs of tests/data (LOG-FORMAT.md).

Each is a chain of `n` layers: a forward op per layer reading the previous
activation and a weight, then a backward op per layer reading the gradient,
the layer's input and its weight. Sizes and times vary with the layer so
that heuristics disagree. A warm-up op precedes the START annotation; one
view (ALIAS 0), one COPY and one MUTATE appear on the way.

Run from anywhere: python3 tests/data/make-logs.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def rec(out, **kw):
    out.append(json.dumps({k: v for k, v in kw.items()}, sort_keys=True,
                          separators=(",", ":")))


def chain(n, base, seed):
    out = []
    names = iter(range(1, 100000))

    def new():
        return "x%d" % next(names)

    def size(i):
        return base * (1 + (i * seed) % 5)

    def time(i):
        return 1000 * (1 + (i * 7 + seed) % 9)

    # warm-up, skipped by the reader (has_start)
    w0 = new()
    rec(out, INSTRUCTION="CONSTANT", NAME=w0)
    rec(out, INSTRUCTION="MEMORY", NAME=w0, MEMORY=str(base))
    rec(out, INSTRUCTION="RELEASE", NAME=w0)
    rec(out, INSTRUCTION="ANNOTATE", ANNOTATION="START")

    x = new()
    rec(out, INSTRUCTION="CONSTANT", NAME=x)
    rec(out, INSTRUCTION="MEMORY", NAME=x, MEMORY=str(size(0)))
    weights, acts = [], [x]
    for i in range(1, n + 1):
        w = new()
        rec(out, INSTRUCTION="CONSTANT", NAME=w)
        rec(out, INSTRUCTION="MEMORY", NAME=w, MEMORY=str(base // 4))
        wc = new()
        rec(out, INSTRUCTION="COPY", DST=wc, SRC=w)
        weights.append(wc)
        y = new()
        rec(out, INSTRUCTION="CALL", NAME="layer_forward" if i % 3 else "conv",
            ARGS=[acts[-1], wc], RESULT=[y], TIME=str(time(i)))
        rec(out, INSTRUCTION="MEMORY", NAME=y, MEMORY=str(size(i)))
        rec(out, INSTRUCTION="ALIAS", NAME=y, ALIAS="-1")
        if i == n // 2:
            v = new()
            rec(out, INSTRUCTION="CALL", NAME="view", ARGS=[y], RESULT=[v], TIME="10")
            rec(out, INSTRUCTION="MEMORY", NAME=v, MEMORY=str(size(i)))
            rec(out, INSTRUCTION="ALIAS", NAME=v, ALIAS="0")
            rec(out, INSTRUCTION="MUTATE", NAME="relu_", ARGS=[v], MUTATE=[0],
                TIME=str(time(i) // 2))
            rec(out, INSTRUCTION="RELEASE", NAME=y)
            y = v
        acts.append(y)
    rec(out, INSTRUCTION="ANNOTATE", ANNOTATION="BACKWARD")
    g = new()
    rec(out, INSTRUCTION="CALL", NAME="loss_backward", ARGS=[acts[-1]], RESULT=[g],
        TIME=str(time(0)))
    rec(out, INSTRUCTION="MEMORY", NAME=g, MEMORY=str(size(n)))
    rec(out, INSTRUCTION="ALIAS", NAME=g, ALIAS="-1")
    rec(out, INSTRUCTION="RELEASE", NAME=acts[-1])
    for i in range(n, 0, -1):
        gi = new()
        gw = new()
        rec(out, INSTRUCTION="CALL", NAME="layer_backward",
            ARGS=[g, acts[i - 1], weights[i - 1]], RESULT=[gi, gw], TIME=str(2 * time(i)))
        rec(out, INSTRUCTION="MEMORY", NAME=gi, MEMORY=str(size(i - 1)))
        rec(out, INSTRUCTION="ALIAS", NAME=gi, ALIAS="-1")
        rec(out, INSTRUCTION="MEMORY", NAME=gw, MEMORY=str(base // 4))
        rec(out, INSTRUCTION="ALIAS", NAME=gw, ALIAS="-1")
        rec(out, INSTRUCTION="RELEASE", NAME=g)
        if i > 1:
            rec(out, INSTRUCTION="RELEASE", NAME=acts[i - 1])
        rec(out, INSTRUCTION="RELEASE", NAME=weights[i - 1])
        rec(out, INSTRUCTION="RELEASE", NAME=gw)
        g = gi
    rec(out, INSTRUCTION="RELEASE", NAME=g)
    return "\n".join(out) + "\n"


LOGS = {
    "chain8.log": (8, 4096, 3),
    "chain12.log": (12, 2048, 2),
    "chain16.log": (16, 1024, 4),
}

for name, args in LOGS.items():
    with open(os.path.join(HERE, name), "w") as f:
        f.write(chain(*args))
