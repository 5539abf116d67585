#!/usr/bin/env python3
"""Write tests/data/pyset-orders.tsv: sets of small integers as CPython
iterates them, for sim/util/pyset.c (test-graph's pyset_matches_python).

Each row: the keys in insertion order, a tab, the set's iteration order
(both space-separated). Sizes cross the table's rebuilds (5, 19, 77, ...
members) and keys collide in the low bits. The interpreter's version is in
the header: set order has been the same since 3.11 (before it, sets of 19
members or more were rebuilt at other sizes).

Run from anywhere: python3 tests/data/make-pyset-orders.py
"""
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

rng = random.Random(20240601)
rows = []
for size in [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 18, 19, 20, 21, 30, 50, 76, 77, 78, 200]:
    for span in [8, 16, 64, 1000, 1 << 31]:
        for _ in range(3 if size < 50 else 1):
            keys = [rng.randrange(span) for _ in range(size)]
            rows.append(keys)
# colliding multiples of the table sizes, and runs in order and reversed
rows.append([8 * k for k in range(40)])
rows.append([32 * k + 3 for k in range(25)])
rows.append(list(range(100)))
rows.append(list(range(100))[::-1])
with open(os.path.join(HERE, "pyset-orders.tsv"), "w") as f:
    f.write("# sets of ints as CPython %d.%d iterates them: keys, tab, order (make-pyset-orders.py)\n"
            % sys.version_info[:2])
    for keys in rows:
        s = set()
        for k in keys:
            s.add(k)
        f.write(" ".join(map(str, keys)) + "\t" + " ".join(map(str, s)) + "\n")
