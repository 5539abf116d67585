#!/usr/bin/env python3
"""Write the small logs of the replay-case table (replay-cases.tsv).

Each is a random log of a few one- or two-result calls on one or two
constants (seeded: Python's random.Random(seed)), every handle but the last
released at the end. The seeds were found by a search for the smallest logs
on which breaking each rule of the table (a one-line change to the runtime
or a cost) changes the replay's counters at some budget; the table's rows
are those budgets.

Run from anywhere: python3 tests/data/make-cases.py
"""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))

# file name: (seed, steps)
LOGS = {
    "cases-absorb.log": (8001012, 12),
    "cases-estar.log": (9001606, 6),
}


def random_log(seed, steps):
    r = random.Random(seed)
    out, live, count = [], [], [0]

    def rec(**kw):
        out.append(json.dumps(kw, separators=(",", ":"), sort_keys=True))

    def new():
        count[0] += 1
        return "x%d" % (count[0] - 1)

    for _ in range(r.randint(1, 2)):
        x = new()
        rec(INSTRUCTION="CONSTANT", NAME=x)
        rec(INSTRUCTION="MEMORY", MEMORY=str(r.randint(1, 4) * 10), NAME=x)
        live.append(x)
    for i in range(steps):
        if r.random() < 0.7 or len(live) < 3:
            na = r.randint(1, min(2, len(live)))
            args = [r.choice(live) for _ in range(na)]
            nr = 1 if r.random() < 0.85 else 2
            res = [new() for _ in range(nr)]
            rec(ARGS=args, INSTRUCTION="CALL", NAME="op%d" % i, RESULT=res,
                TIME=str(r.randint(1, 9) * 10))
            for x in res:
                # a view (ALIAS 0) only from a one-argument, one-result op
                view = na == 1 and nr == 1 and r.random() < 0.15
                rec(INSTRUCTION="MEMORY", MEMORY="0" if view else str(r.randint(1, 9) * 10), NAME=x)
                rec(ALIAS=str(r.randrange(na)) if view else "-1", INSTRUCTION="ALIAS", NAME=x)
                live.append(x)
        else:
            j = r.randrange(len(live))
            rec(INSTRUCTION="RELEASE", NAME=live[j])
            live.pop(j)
    for x in live[:-1]:
        rec(INSTRUCTION="RELEASE", NAME=x)
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    for name, (seed, steps) in LOGS.items():
        with open(os.path.join(HERE, name), "w") as f:
            f.write(random_log(seed, steps))
