#!/usr/bin/env python3
"""Write the small hand-made op logs of tests/data (LOG-FORMAT.md).

Each is a chain of `n` layers: a forward op per layer reading the previous
activation and a weight, then a backward op per layer reading the gradient,
the layer's input and its weight. Sizes and times vary with the layer so
that heuristics disagree. A warm-up op precedes the START annotation; one
view (ALIAS 0), one COPY and one MUTATE appear on the way. modules.log
has module calls (ENTER/EXIT) and a write in place (WRITES).

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


def modules_log():
    """modules.log: module calls (ENTER/EXIT) over a small log, for
    solvers/modules.c: a Sequential `seq` of a Linear-like call, one that
    writes its input in place (act_), one with a side output that backward
    needs (side, saved as ss), and one more; a module `act` called twice;
    an empty call. tests/test-solvers.c traces its replays by hand."""
    out = []

    def call(op, args, res, writes=None):
        kw = dict(INSTRUCTION="CALL", NAME=op, ARGS=args, RESULT=[r[0] for r in res], TIME="10")
        if writes is not None:
            kw["WRITES"] = writes
        rec(out, **kw)
        for n, m, a in res:
            rec(out, INSTRUCTION="MEMORY", NAME=n, MEMORY=str(m))
            rec(out, INSTRUCTION="ALIAS", NAME=n, ALIAS=str(a))

    def const(n, m):
        rec(out, INSTRUCTION="CONSTANT", NAME=n)
        rec(out, INSTRUCTION="MEMORY", NAME=n, MEMORY=str(m))

    def enter(m, t):
        rec(out, INSTRUCTION="ANNOTATE", ANNOTATION="ENTER", MODULE=m, TYPE=t)

    def exit_(m):
        rec(out, INSTRUCTION="ANNOTATE", ANNOTATION="EXIT", MODULE=m)

    def copy(d, s):
        rec(out, INSTRUCTION="COPY", DST=d, SRC=s)

    def rel(n):
        rec(out, INSTRUCTION="RELEASE", NAME=n)

    rec(out, INSTRUCTION="ANNOTATE", ANNOTATION="START")
    const("x", 100)
    const("w", 10)
    call("stem", ["x"], [("a", 1000, -1)])
    enter("seq", "Sequential")
    enter("seq.0", "Lin")
    call("lin", ["a", "w"], [("h", 2000, -1)])
    copy("sh", "h")
    exit_("seq.0")
    enter("seq.1", "Act")
    call("act_", ["h"], [("h2", 2000, 0)], writes=[0])
    rel("h")
    exit_("seq.1")
    enter("seq.2", "Lin")
    call("lin", ["h2", "w"], [("b", 3000, -1)])
    call("side", ["b"], [("s", 500, -1)])
    copy("ss", "s")
    rel("s")
    exit_("seq.2")
    enter("seq.3", "Lin")
    call("lin", ["b", "w"], [("e", 600, -1)])
    rel("b")
    exit_("seq.3")
    exit_("seq")
    rel("a")
    enter("act", "Act")
    call("act", ["e"], [("c", 400, -1)])
    rel("e")
    exit_("act")
    enter("act", "Act")
    call("act", ["c"], [("d", 400, -1)])
    exit_("act")
    enter("empty", "Id")
    exit_("empty")
    call("loss", ["d"], [("l", 4, -1)])
    rec(out, INSTRUCTION="ANNOTATE", ANNOTATION="BACKWARD")
    call("loss_backward", ["l"], [("gd", 400, -1)])
    call("act_backward", ["gd", "c"], [("gc", 400, -1)])
    rel("gd")
    rel("d")
    call("act_backward", ["gc"], [("ge", 600, -1)])
    rel("gc")
    rel("c")
    call("lin_backward", ["ge", "w"], [("gb", 3000, -1)])
    rel("ge")
    call("side_backward", ["ss", "gb"], [("gb2", 3000, -1)])
    rel("ss")
    rel("gb")
    call("lin_backward", ["gb2", "sh"], [("gh", 2000, -1)])
    rel("gb2")
    rel("sh")
    rel("h2")
    call("lin_backward", ["gh"], [("ga", 1000, -1)])
    rel("gh")
    rel("l")
    return "\n".join(out) + "\n"


LOGS = {
    "chain8.log": (8, 4096, 3),
    "chain12.log": (12, 2048, 2),
    "chain16.log": (16, 1024, 4),
}

for name, args in LOGS.items():
    with open(os.path.join(HERE, name), "w") as f:
        f.write(chain(*args))
with open(os.path.join(HERE, "modules.log"), "w") as f:
    f.write(modules_log())
