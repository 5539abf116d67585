#!/usr/bin/env python3
"""Random small op logs for differential checks against simrd.
  python3 gen.py SEED N_OPS OUT.log
DAGs with several arguments per op, views (ALIAS k), two-result ops,
constants used by many ops, releases after last use, no START."""
import random, sys

def main():
    seed, nops, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    r = random.Random(seed)
    lines = []
    live = []      # handles alive
    consts = []
    uses_left = {} # handle -> planned remaining uses (approx)
    nid = [0]
    def new():
        nid[0] += 1
        return 'x%d' % nid[0]
    for _ in range(r.randint(1, 3)):
        c = new()
        lines.append('{"INSTRUCTION":"CONSTANT","NAME":"%s"}' % c)
        lines.append('{"INSTRUCTION":"MEMORY","MEMORY":"%d","NAME":"%s"}' % (r.choice([8, 16, 32]), c))
        consts.append(c)
    acts = []
    for i in range(nops):
        k = r.choice([1, 1, 2, 2, 3])
        pool = acts[-6:] + (acts and r.sample(acts, min(2, len(acts))) or [])
        args = []
        for _ in range(k):
            if pool and r.random() < 0.8:
                args.append(r.choice(pool))
            else:
                args.append(r.choice(consts))
        nres = 2 if r.random() < 0.15 else 1
        res = [new() for _ in range(nres)]
        lines.append('{"ARGS":[%s],"INSTRUCTION":"CALL","NAME":"op%d","RESULT":[%s],"TIME":"%d"}' % (
            ','.join('"%s"' % a for a in args), r.randint(0, 4), ','.join('"%s"' % x for x in res),
            r.choice([1, 2, 3, 5, 8, 13, 100])))
        for j, x in enumerate(res):
            view = j == 0 and r.random() < 0.12 and args[0] not in consts
            lines.append('{"INSTRUCTION":"MEMORY","MEMORY":"%d","NAME":"%s"}' % (0 if view else r.choice([10, 20, 40, 80, 160]), x))
            lines.append('{"ALIAS":"%d","INSTRUCTION":"ALIAS","NAME":"%s"}' % (0 if view else -1, x))
            acts.append(x)
        # release some old activations (never used again by construction)
        if len(acts) > 8 and r.random() < 0.5:
            victim = acts.pop(r.randrange(0, len(acts) - 6))
            lines.append('{"INSTRUCTION":"RELEASE","NAME":"%s"}' % victim)
    for x in acts:
        lines.append('{"INSTRUCTION":"RELEASE","NAME":"%s"}' % x)
    open(out, 'w').write('\n'.join(lines) + '\n')

main()
