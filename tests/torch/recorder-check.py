"""recorder-check.py: the recorder's log for small programs, line by line.

Each case runs a few ops under a Recorder and compares the log, written
compactly (below), with lines written out by hand from what the ops do:

    START / BACKWARD            ANNOTATE records
    CONSTANT x0 48              a CONSTANT and its MEMORY
    CALL op a b -> r=16 v@0     a CALL: r owns a new storage of 16 bytes,
                                v is a view of argument 0 (ALIAS 0)
    CALL op_ a -> v@0 writes 0  a write in place: the new version v of a
                                (its WRITES lists argument 0)
    ENTER m Type / EXIT m       a module call's ANNOTATE records
    COPY dst src, COPY_FROM dst src, RELEASE x

(TIME is left out: it is measured.) The op names are torch 1.13's ATen
ops (Debian's python3-torch); another torch may decompose differently.

Every log is also checked with `rematsim check`, its unbounded replay must
report the recorder's peak_live_bytes and baseline_memory, and `rematsim
info` its floor_memory.

Run with --print to see the compact logs of all cases.
"""

import difflib
import gzip
import json
import os
import subprocess
import sys

import torch
from torch.nn import functional as F

import rematsim_torch

OUT = os.environ.get("TEST_DIR", "/tmp/rematsim-torch-test")
REMATSIM = os.environ.get("REMATSIM")
failures = []


def compact(path):
    opener = gzip.open if path.endswith(".gz") else open
    recs = [json.loads(line) for line in opener(path, "rt")]
    lines, i = [], 0
    while i < len(recs):
        r = recs[i]
        k = r["INSTRUCTION"]
        if k == "ANNOTATE":
            lines.append(" ".join([r["ANNOTATION"]] + [r[f] for f in ("MODULE", "TYPE")
                                                        if f in r]))
        elif k == "CONSTANT":
            lines.append("CONSTANT %s %s" % (r["NAME"], recs[i + 1]["MEMORY"]))
            i += 1
        elif k == "CALL":
            res = []
            for name in r["RESULT"]:
                mem, ali = recs[i + 1], recs[i + 2]
                assert mem["NAME"] == name and ali["NAME"] == name
                a = int(ali["ALIAS"])
                res.append("%s=%s" % (name, mem["MEMORY"]) if a < 0 else "%s@%d" % (name, a))
                i += 2
            w = " writes %s" % ",".join(map(str, r["WRITES"])) if "WRITES" in r else ""
            lines.append(" ".join(["CALL", r["NAME"]] + r["ARGS"] + ["->"] + res) + w)
        elif k == "MUTATE":
            lines.append(" ".join(["MUTATE", r["NAME"]] + r["ARGS"]
                                  + ["[%s]" % ",".join(map(str, r["MUTATE"]))]))
        elif k in ("COPY", "COPY_FROM"):
            lines.append("%s %s %s" % (k, r["DST"], r["SRC"]))
        elif k == "RELEASE":
            lines.append("RELEASE " + r["NAME"])
        else:
            lines.append("?" + k)
        i += 1
    return lines


def replay_check(path, rec):
    """rematsim check, and the unbounded replay's peaks against the meta."""
    if not REMATSIM:
        return []
    problems = []
    r = subprocess.run([REMATSIM, "check", path], capture_output=True, text=True)
    if r.returncode:
        problems.append("rematsim check: " + r.stdout + r.stderr)
        return problems
    r = subprocess.run([REMATSIM, "replay", path, "--heuristic", "DTR", "--budget",
                        "1000000000000000", "--json"], capture_output=True, text=True)
    if r.returncode:
        return ["rematsim replay: " + r.stderr]
    j = json.loads(r.stdout)
    m = rec.meta_written
    i = json.loads(subprocess.run([REMATSIM, "info", path, "--json"], capture_output=True,
                                  text=True).stdout)
    if i["floor_memory"] != m["floor_memory"]:
        problems.append("info floor_memory %d, meta %d" % (i["floor_memory"], m["floor_memory"]))
    if (j["peak_memory"], j["baseline_memory"]) != (m["peak_live_bytes"], m["baseline_memory"]):
        problems.append("replay peak %d, baseline %d; meta peak_live_bytes %d, baseline_memory %d"
                        % (j["peak_memory"], j["baseline_memory"], m["peak_live_bytes"],
                           m["baseline_memory"]))
    return problems


def case(name, expected, floor=None, **kwargs):
    """Decorator: run the case (a Recorder with KWARGS), compare its log with
    EXPECTED (a string), and its floor_memory with FLOOR when given."""

    def wrap(fn):
        path = os.path.join(OUT, "case-%s.log" % name)
        with rematsim_torch.Recorder(path, **kwargs) as rec:
            fn(rec)
        got = compact(path)
        want = [ln.strip() for ln in expected.strip().splitlines() if ln.strip()]
        if "--print" in sys.argv:
            print("== %s\n%s" % (name, "\n".join(got)))
        problems = replay_check(path, rec)
        if floor is not None and rec.meta_written["floor_memory"] != floor:
            problems.append("floor_memory %d, not %d" % (rec.meta_written["floor_memory"], floor))
        if got != want:
            diff = difflib.unified_diff(want, got, "expected", "recorded", lineterm="")
            problems.append("log differs:\n  " + "\n  ".join(diff))
        report(name, problems)
        return fn

    return wrap


def report(name, problems):
    if problems:
        failures.append(name)
        print("FAIL %s\n  %s" % (name, "\n  ".join(problems)))
    else:
        print("ok %s" % name)


os.makedirs(OUT, exist_ok=True)
torch.manual_seed(0)

# ---- views: a view is an ALIAS of the argument whose storage it shares ----
X = torch.arange(12.0).reshape(3, 4)  # made before START: a constant of 48 bytes


@case("views", """
    START
    CONSTANT x0 48
    CALL view x0 -> x1@0
    CALL select x0 -> x2@0
    CALL t x1 -> x3@0
    CALL mul x3 -> x4=48
    RELEASE x1
    RELEASE x2
    RELEASE x3
    CALL sum x4 -> x5=4
    RELEASE x4
    RELEASE x5
""")
def _(rec):
    rec.start()
    v = X.view(4, 3)
    r = X[1]
    t = v.t()
    y = t * 2  # a new storage, though computed from a view
    del v, r, t
    s = y.sum()
    del y
    return s  # dropped by the caller: released before the log ends


# ---- in-place ops ----
A = torch.ones(4)
V = A.view(2, 2)  # made before START too: shares A's storage
M1, M2 = torch.ones(2, 3), torch.ones(3, 2)


@case("inplace", """
    START
    CONSTANT x0 16
    CALL add x0 -> x1=16
    CALL mul_ x1 -> x2@0 writes 0
    RELEASE x1
    CALL slice x2 -> x3@0
    CALL add_ x3 -> x4@0 writes 0
    RELEASE x3
    CALL empty -> x5=16
    CALL add x0 x2 x5 -> x6=0
    CALL add x5 -> x7@0 writes 0
    RELEASE x6
    RELEASE x5
    CALL empty -> x8=0
    CONSTANT x9 24
    CONSTANT x10 24
    CALL mm x9 x10 x8 -> x11=16
    COPY_FROM x8 x11
    RELEASE x11
    COPY x12 x0
    CALL add_ x12 -> x13@0 writes 0
    COPY_FROM x0 x13
    RELEASE x12
    CALL detach x0 -> x14@0
    CALL mul_ x14 -> x15@0 writes 0
    RELEASE x14
    CALL relu x2 -> x16=16
    RELEASE x4
    RELEASE x2
    RELEASE x7
    RELEASE x8
    RELEASE x15
    RELEASE x16
""")
def _(rec):
    rec.start()
    a = A + 1  # x1
    # In place: the new version is a view of the written argument (no new
    # bytes, as torch makes none), x2; the handle takes its name, x1 goes.
    a.mul_(2)
    b = a[:2]  # a view of a (x3)
    b.add_(1)  # in place on the view: a view of the view, the view's new version
    c = torch.empty(4)  # x5
    # out= writes c, argument 2 of three: a CALL of all of them (whose only
    # result, x6, has 0 bytes and goes at once: the op read its inputs
    # there), then the new version, a view of c alone (a view made by an op
    # of several arguments would leave the reference's regions behind).
    torch.add(A, a, out=c)
    d = torch.empty(0)  # x8, 0 bytes
    torch.mm(M1, M2, out=d)  # d must grow: a new storage, which d's handle takes over
    V.add_(1)  # first seen, on A's storage: a COPY of A's handle; A sees the change
    e = A.data  # in torch 1.13 .data is a dispatched detach: a view
    e.mul_(2)
    r = a.relu()
    del b, a, c, d, e
    return r


# ---- ops with several results, and batch norm's unmarked writes ----
B = torch.randn(4, 6)
RM, RV = torch.zeros(6), torch.ones(6)


@case("multi-output", """
    START
    CONSTANT x0 96
    CALL max x0 -> x1=16 x2=32
    CALL split x0 -> x3@0 x4@0 x5@0
    CALL empty -> x6=0
    CONSTANT x7 24
    CONSTANT x8 24
    CALL native_batch_norm x0 x7 x8 -> x9=96 x10=24 x11=24
    CALL native_batch_norm x7 -> x12@0 writes 0
    CALL native_batch_norm x8 -> x13@0 writes 0
    RELEASE x7
    RELEASE x8
    RELEASE x10
    RELEASE x11
    RELEASE x6
    RELEASE x5
    RELEASE x4
    RELEASE x3
    RELEASE x1
    RELEASE x2
    RELEASE x9
""")
def _(rec):
    rec.start()
    vals, idx = B.max(dim=1)  # values (4 floats), indices (4 int64)
    parts = B.split(2, dim=1)  # three views of B
    # aten::batch_norm makes an empty reserve (x6), then native_batch_norm
    # writes RM and RV in place, which its 1.13 schema does not say: the
    # results get the CALL (with the time), each write a view of its
    # argument (time 0), whose handle takes the new name.
    # Its saved mean and inverse deviation (x10, x11) are dropped at once.
    out = F.batch_norm(B, RM, RV, training=True)
    del parts, vals, idx  # a tuple frees its items last to first
    return out


# ---- tensors that die inside the iteration: saved for backward, then freed ----
W = torch.randn(4, 4, requires_grad=True)
XB = torch.randn(2, 4)


@case("backward", """
    START
    CONSTANT x0 32
    CONSTANT x1 64
    CALL mm x0 x1 -> x2=32
    CALL relu x2 -> x3=32
    COPY x4 x3
    RELEASE x2
    CALL sum x3 -> x5=4
    RELEASE x3
    BACKWARD
    CALL ones_like x5 -> x6=4
    CALL expand x6 -> x7@0
    COPY x8 x4
    CALL threshold_backward x7 x8 -> x9=32
    RELEASE x8
    RELEASE x7
    RELEASE x4
    COPY x10 x0
    CALL t x10 -> x11@0
    CALL mm x11 x9 -> x12=64
    RELEASE x11
    RELEASE x10
    RELEASE x9
    CALL detach x12 -> x13@0
    CALL detach x13 -> x14@0
    RELEASE x13
    RELEASE x12
    RELEASE x6
    RELEASE x5
    RELEASE x14
""")
def _(rec):
    rec.start()
    h = torch.relu(XB @ W)  # mm's result dies once relu ran; relu saves its own (COPY)
    y = h.sum()
    del h  # h lives on as the saved COPY until relu's backward ran
    # In backward each saved tensor is unpacked (a COPY) for its node and
    # released after; AccumulateGrad detaches the gradient twice into W.grad.
    rec.backward(y)
    del y
    W.grad = None  # x14


# ---- weight sharing: one weight used twice, its two gradients summed ----
S = torch.randn(3, 3, requires_grad=True)
XS = torch.randn(2, 3)


@case("shared-weight", """
    START
    CONSTANT x0 24
    CONSTANT x1 36
    CALL mm x0 x1 -> x2=24
    COPY x3 x2
    CALL mm x2 x1 -> x4=24
    RELEASE x2
    CALL sum x4 -> x5=4
    RELEASE x4
    BACKWARD
    CALL ones_like x5 -> x6=4
    CALL expand x6 -> x7@0
    COPY x8 x3
    COPY x9 x1
    CALL t x8 -> x10@0
    CALL mm x10 x7 -> x11=36
    RELEASE x10
    CALL t x9 -> x12@0
    CALL mm x7 x12 -> x13=24
    RELEASE x12
    RELEASE x9
    RELEASE x8
    RELEASE x7
    RELEASE x3
    COPY x14 x0
    CALL t x14 -> x15@0
    CALL mm x15 x13 -> x16=36
    RELEASE x15
    RELEASE x14
    RELEASE x13
    CALL add x11 x16 -> x17=36
    RELEASE x11
    RELEASE x16
    CALL detach x17 -> x18@0
    CALL detach x18 -> x19@0
    RELEASE x18
    RELEASE x17
    RELEASE x6
    RELEASE x5
    RELEASE x19
""")
def _(rec):
    rec.start()
    h = XS @ S  # saves XS, a leaf: kept as it is, no record
    o = h @ S  # S again; saves h (COPY x3) and S
    del h
    y = o.sum()
    del o
    # The second mm's backward unpacks h and S (x8, x9), gives S's first
    # gradient part (x11) and h's gradient (x13); the first mm's backward
    # gives S's second part (x16); autograd sums the two (add, x17).
    rec.backward(y)
    del y
    S.grad = None  # x19


# ---- an optimizer step: parameters and momentum updated in place ----
SP = torch.nn.Parameter(torch.ones(4))
SOPT = torch.optim.SGD([SP], lr=0.5, momentum=0.9)
SP.grad = torch.full((4,), 2.0)
SOPT.step()  # makes the momentum buffer, before the recording
SP.grad = torch.full((4,), 3.0)


@case("sgd-step", """
    START
    CONSTANT x0 16
    CONSTANT x1 16
    CALL zeros -> x2=4
    RELEASE x2
    CALL mul_ x1 -> x3@0 writes 0
    RELEASE x1
    CONSTANT x4 16
    CALL add_ x3 x4 -> x5=0
    CALL add_ x3 -> x6@0 writes 0
    RELEASE x5
    RELEASE x3
    CALL add_ x0 x6 -> x7=0
    CALL add_ x0 -> x8@0 writes 0
    RELEASE x7
    RELEASE x0
""", optimizer=SOPT, floor=48)
def _(rec):
    # The parameter (x0) and the momentum buffer (x1) are declared at START,
    # as they are held from the start (optimizer=); the gradient (x4) when
    # first used. torch.autograd.profiler.record_function, around the step,
    # makes a tensor of one float (x2). buf.mul_(0.9).add_(grad), then
    # p.add_(buf, alpha=-lr): every new version is a view of the old one's
    # storage, so a replay holds one copy of each, as torch does, and what
    # stays pinned at the end is the parameter, its gradient and the
    # buffer, 48 bytes (floor_memory, below).
    rec.start()
    SOPT.step()


# ---- module calls: ENTER and EXIT around each submodule's ops ----
torch.manual_seed(1)
NET = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Sequential(torch.nn.ReLU()))
XN = torch.ones(1, 2)


@case("modules", """
    START
    CONSTANT x0 24
    CONSTANT x1 12
    CONSTANT x2 8
    ENTER 0 Linear
    CALL t x0 -> x3@0
    CALL addmm x1 x2 x3 -> x4=12
    RELEASE x3
    EXIT 0
    ENTER 1 Sequential
    ENTER 1.0 ReLU
    CALL relu x4 -> x5=12
    EXIT 1.0
    EXIT 1
    RELEASE x4
    RELEASE x5
""", model=NET)
def _(rec):
    # The weight (x0) and bias (x1) are declared at START (model=), the input
    # (x2) too (start's argument). The model itself is not annotated.
    rec.start(XN)
    with torch.no_grad():
        y = NET(XN)
    del y


# ---- the same op sequence when a deterministic model is recorded twice ----
def record_mlp(path):
    torch.manual_seed(5)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(inplace=True),
                                torch.nn.Linear(32, 32), torch.nn.BatchNorm1d(32),
                                torch.nn.ReLU(), torch.nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, y = torch.randn(8, 16), torch.randint(4, (8,))
    from rematsim_torch.models import train_step
    train_step(model, opt, x, y, F.cross_entropy)
    with rematsim_torch.Recorder(path, model=model, optimizer=opt) as rec:
        rec.start()
        train_step(model, opt, x, y, F.cross_entropy, rec)
    return rec


# ---- a step that updates parameters with no optimizer declared (issue 44,
# item 5): refused, nothing written; optimizer=() for a stateless update ----
def _no_optimizer():
    torch.manual_seed(5)
    model = torch.nn.Sequential(torch.nn.Linear(16, 8), torch.nn.ReLU(), torch.nn.Linear(8, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, y = torch.randn(8, 16), torch.randint(4, (8,))
    from rematsim_torch.models import train_step
    train_step(model, opt, x, y, F.cross_entropy)
    path = os.path.join(OUT, "no-optimizer.log")
    problems = []
    try:
        with rematsim_torch.Recorder(path, model=model) as rec:
            rec.start(x)
            train_step(model, opt, x, y, F.cross_entropy, rec)
        problems.append("a momentum step with no optimizer= was recorded")
    except rematsim_torch.RecorderError as e:
        if "optimizer=" not in str(e) or "aten::" not in str(e):
            problems.append("message: %s" % e)
    if os.path.exists(path):
        problems.append("a refused recording left %s" % path)
    path = os.path.join(OUT, "stateless-update.log")
    with rematsim_torch.Recorder(path, model=model, optimizer=()) as rec:
        rec.start(x)
        loss = F.cross_entropy(model(x), y)
        rec.backward(loss)
        with torch.no_grad():
            for p in model.parameters():
                p.sub_(0.1 * p.grad)
    if not os.path.exists(path):
        problems.append("optimizer=() (a stateless update) was not recorded")
    report("no optimizer declared: refused; optimizer=() records", problems)


_no_optimizer()


def without_time(path):
    out = []
    for line in gzip.open(path, "rt"):
        r = json.loads(line)
        r.pop("TIME", None)
        out.append(json.dumps(r, sort_keys=True))
    return out


p1, p2 = os.path.join(OUT, "twice-1.log.gz"), os.path.join(OUT, "twice-2.log.gz")
r1, r2 = record_mlp(p1), record_mlp(p2)
l1, l2 = without_time(p1), without_time(p2)
problems = replay_check(p1, r1)
if l1 != l2:
    first = next(i for i, (a, b) in enumerate(zip(l1 + [""], l2 + [""])) if a != b)
    problems.append("the logs differ first at line %d: %s | %s"
                    % (first + 1, (l1 + [""])[first], (l2 + [""])[first]))
if r1.peak_live_bytes != r2.peak_live_bytes:
    problems.append("peaks differ: %d, %d" % (r1.peak_live_bytes, r2.peak_live_bytes))
if r1.counts["writes"] < 20 or r1.counts["mutates"]:  # relu_, batch norm, SGD: not trivial
    problems.append("%d writes in place, %d MUTATEs" % (r1.counts["writes"],
                                                         r1.counts["mutates"]))
report("recorded-twice (%d records, %d calls, %d writes in place, equal but for TIME)"
       % (r1.records, r1.counts["calls"], r1.counts["writes"]), problems)


# ---- a step that raises leaves no file ----
def raising_step():
    path = os.path.join(OUT, "raises.log.gz")
    try:
        with rematsim_torch.Recorder(path) as rec:
            rec.start()
            torch.ones(2, 3) @ torch.ones(2, 3)  # shapes do not match
    except RuntimeError:
        pass
    else:
        return ["no exception"]
    left = [f for f in os.listdir(OUT) if f.startswith("raises.")]
    return ["left behind: %s" % left] if left else []


report("raising step leaves no file", raising_step())

if failures:
    print("%d failed: %s" % (len(failures), ", ".join(failures)))
    sys.exit(1)
