#!/usr/bin/env python3
"""graph-sequence.py GRAPH.json: the commands the reference simulator's
from_dfgraph (simrd/parse/checkmate.py) makes of a node-link graph, one a
line: "compute xV" for each node in the order it runs, then "evict xU" for
each tensor released after it, in the order simrd releases them. Written
here from that function's rules, with Python's own sets, to check
sim/lib/read/graph.c (tests/cli-graphs.sh) against the interpreter:

- the arguments of a node are the sources of the links into it, in link
  order; DFGraph.successors(u) is the *set* of the targets of u's links,
  built target by target in the order targets first appear;
- the order is the file's graph.order if it has one, else
  dfgraph_topological: a depth-first walk from each unvisited node in
  ascending id order, each node put in front of the order once all its
  successors are;
- analyze_liveness: a node's last use is the last step that reads it (or
  its own); after step i, the set of nodes whose last use is i is
  released, in that set's iteration order.

Under V2EagerOptimized and no budget pressure a release evicts at once, so
a replay's timeline lists exactly these lines.
"""
import json
import sys
from collections import defaultdict


def sequence(path):
    with open(path) as f:
        d = json.load(f)
    nodes = d["nodes"]
    idk = "id" if "id" in nodes[0] else "name"
    ids = [n[idk] for n in nodes]
    links = d.get("links", d.get("edges"))
    sk, tk = ("source", "target") if links and "source" in links[0] else ("0", "1")
    args = {}
    for link in links:
        args.setdefault(link[tk], []).append(link[sk])
    succ = defaultdict(list)
    for v, deps in args.items():
        for u in deps:
            succ[u].append(v)
    order = d.get("graph", {}).get("order")
    if order is None:
        visited = {v: False for v in sorted(ids)}
        post = []
        for root in sorted(ids):
            if visited[root]:
                continue
            visited[root] = True
            stack = [(root, iter({w for w in succ[root]}))]
            while stack:
                v, it = stack[-1]
                for w in it:
                    if not visited[w]:
                        visited[w] = True
                        stack.append((w, iter({x for x in succ[w]})))
                        break
                else:
                    stack.pop()
                    post.append(v)
        order = post[::-1]
    last = {}
    for i, v in enumerate(order):
        for u in args.get(v, []):
            last[u] = i
        last[v] = i
    can_free = defaultdict(set)
    for v, i in last.items():
        can_free[i].add(v)
    out = []
    for i, v in enumerate(order):
        out.append("compute x%d" % v)
        for u in can_free[i]:
            out.append("evict x%d" % u)
    return out


if __name__ == "__main__":
    print("\n".join(sequence(sys.argv[1])))
