"""checkpoint.py: plans from rematsim applied to the real model, and
measured.

    plans = rematsim_torch.suggest(model, step, optimizer=opt, inputs=(x, y), k=[1, 2])
    for plan in plans:
        with rematsim_torch.apply(model, plan):
            peak, seconds = rematsim_torch.measure(step, model=model, optimizer=opt,
                                                   inputs=(x, y))
        print(plan.wraps, plan.predicted_peak, peak)

`suggest` records one iteration of STEP (a function running one training
iteration: zero_grad, forward, loss, backward, optimizer step) with the
model's module calls annotated, and asks `rematsim solve --modules` for
plans whose split points are module boundaries. Each plan names the
modules to wrap (`Plan.wraps`: lists of module names, one list per
checkpoint; several names are consecutive children of one nn.Sequential,
run as one checkpoint) and what the replay of the plan as applied
predicts: peak memory and compute overhead.

`apply` wraps those modules with torch.utils.checkpoint (non-reentrant,
the RNG state preserved, so dropout recomputes the same mask) until the
returned handle is removed (or its `with` block ends). `measure` runs
STEP once under torch's own accounting: on the CPU, torch.profiler with
profile_memory=True, which sees every allocation and free of the CPU
allocator; on CUDA, torch.cuda.max_memory_allocated. The peak it gives is
the bytes the iteration's state holds when it starts (parameters,
buffers, optimizer state, INPUTS), which the profiler does not see being
allocated, plus the profiler's peak since; the same quantity an unbounded
replay of the log reports. torch 1.13's CPU accounting is exact only in
the first profiled run of a process (see `measure`): measure each plan in
a process of its own (the command line does; `measure_fresh` runs a
model built by a factory function, "MODULE:FUNCTION", in one), or get a
CheckpointError.
"""

import json
import os
import shutil
import subprocess
import tempfile
import time

import torch
import torch.utils.checkpoint

from .recorder import Recorder, RecorderError


class CheckpointError(Exception):
    """A plan that cannot be made or applied; `status` is the exit status."""

    def __init__(self, message, status=65):
        super().__init__(message)
        self.status = status


class Plan:
    """One plan of `rematsim solve --modules --json`."""

    def __init__(self, label, j):
        self.label = label  # "k=2", "budget 30000000", "none"
        self.json = j
        self.wraps = [list(w) for w in j.get("checkpoint", [])]
        self.split_modules = j.get("split_modules", [])
        r = j.get("replay", {})
        self.predicted_peak = r.get("peak_memory")
        self.predicted_overhead = r.get("overhead")
        self.baseline_memory = r.get("baseline_memory")
        self.unwrapped_ops = j.get("unwrapped_ops", 0)
        self.unwrapped_bytes = j.get("unwrapped_bytes", 0)

    def __repr__(self):
        return "Plan(%s, wraps=%r, predicted_peak=%r)" % (self.label, self.wraps,
                                                         self.predicted_peak)


def find_rematsim(path=None):
    """The rematsim executable: PATH given, $REMATSIM, the build of this
    source tree (build/rematsim beside logs/), or rematsim on $PATH
    (api.find_rematsim); CheckpointError (69) where there is none."""
    from .api import RematsimNotFound, find_rematsim as find
    try:
        return find(path, source_tree=True)
    except RematsimNotFound as e:
        raise CheckpointError("rematsim is not built or not found: %s (--rematsim, or $REMATSIM)"
                              % e, 69) from None


def _solve(rematsim, log, args):
    cmd = [rematsim, "solve", log, "--modules", "--replay", "--json"] + args
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        msg = r.stderr.strip().replace("rematsim: ", "").replace("rematsim solve: ", "")
        raise CheckpointError("rematsim solve %s: %s" % (" ".join(args), msg), r.returncode)
    return json.loads(r.stdout)


def plans_for(log, k=(), budget=(), planner="dp", rematsim=None, depth=None,
              min_peak=False):
    """The plans of `rematsim solve --modules` on a recorded LOG: the plan
    without checkpoints ("none") first, then one per k and per budget, then
    with MIN_PEAK the k of the smallest replayed peak. DEPTH: plans of
    the module calls at that depth only (whole blocks)."""
    rematsim = find_rematsim(rematsim)
    level = [] if depth is None else ["--depth", str(depth)]
    out = [Plan("none", _solve(rematsim, log, ["--planner", "none"]))]
    for kk in k:
        out.append(Plan("k=%d" % kk, _solve(rematsim, log, ["--planner", planner, "-k",
                                                              str(kk)] + level)))
    for b in budget:
        out.append(Plan("budget %d" % b, _solve(rematsim, log, ["--planner", planner,
                                                                 "--budget", str(b)] + level)))
    if min_peak:
        j = _solve(rematsim, log, ["--planner", planner, "--min-peak"] + level)
        out.append(Plan("min-peak k=%d" % j["k"], j))
    return out


def peak_curve(log, rematsim=None, depth=None):
    """The replayed peak of dp's module plan against k (`rematsim solve
    --modules --min-peak`): a list of (k, peak bytes) for every k whose
    plan differs from the one before, and the k of the smallest peak."""
    rematsim = find_rematsim(rematsim)
    level = [] if depth is None else ["--depth", str(depth)]
    j = _solve(rematsim, log, ["--planner", "dp", "--min-peak"] + level)
    tries = [(t["k"], t["peak_memory"]) for t in j["search"]["tries"] if t["replayed"]]
    return tries, j["k"]


def curve_text(tries, best):
    """The curve as lines: each k's peak, and where more k costs more (a
    peak above the smallest at any smaller k)."""
    lines = ["replayed peak against k (dp's module plans, as applied):"]
    low = None
    for kk, peak in tries:
        note = ""
        if kk == best:
            note = "  the smallest"
        elif low is not None and peak > low[1]:
            note = "  more k costs more: %+.1f%% over k=%d's" % (100.0 * (peak / low[1] - 1),
                                                                low[0])
        lines.append("  k=%-4d %14d bytes%s" % (kk, peak, note))
        if low is None or peak < low[1]:
            low = (kk, peak)
    return lines


def suggest(model, step, optimizer=None, inputs=(), k=(1, 2, 3), budget=(), planner="dp",
            log=None, device="cpu", rematsim=None):
    """Record one iteration of STEP() (after one unrecorded warm-up) with
    MODEL's module calls annotated, the optimizer's state and INPUTS
    declared at its start; plan it with `rematsim solve --modules`. K and
    BUDGET are lists (a number is taken as a list of one). LOG: where the
    log goes (default: a temporary file, removed). Returns [Plan], the
    plan without checkpoints first."""
    k = [k] if isinstance(k, int) else list(k)
    budget = [budget] if isinstance(budget, int) else list(budget)
    if not any(True for _ in model.children()):
        raise CheckpointError("the model (%s) has no submodules: a checkpoint wraps a "
                              "module's call, and it has none to wrap" % type(model).__name__)
    step()
    tmpdir = None
    if log is None:
        tmpdir = tempfile.mkdtemp(prefix="rematsim-suggest-")
        log = os.path.join(tmpdir, "step.log.gz")
    try:
        with Recorder(log, device=device, model=model, optimizer=optimizer) as rec:
            rec.start(*inputs)
            step()
        return plans_for(log, k, budget, planner, rematsim)
    finally:
        if tmpdir:
            shutil.rmtree(tmpdir, ignore_errors=True)


class Applied:
    """Wraps made by `apply`; `remove()` (or the end of a `with` block)
    gives the modules their own forward back."""

    def __init__(self):
        self._undo = []

    def remove(self):
        while self._undo:
            m = self._undo.pop()
            m.__dict__.pop("forward", None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False


def _checkpointed(fn):
    def forward(*args, **kwargs):
        return torch.utils.checkpoint.checkpoint(fn, *args, use_reentrant=False,
                                                 preserve_rng_state=True, **kwargs)
    return forward


def apply(model, plan):
    """Wrap the modules PLAN names (a Plan, or a list of wraps: lists of
    module names) with torch.utils.checkpoint. Several names in one wrap
    must be consecutive children of one nn.Sequential: the first then runs
    all of them under one checkpoint and the others pass their input
    through. Returns an Applied handle."""
    wraps = plan.wraps if isinstance(plan, Plan) else [
        [w] if isinstance(w, str) else list(w) for w in plan]
    mods = dict(model.named_modules())
    done = Applied()
    try:
        for names in wraps:
            missing = [n for n in names if n not in mods or not n]
            if missing:
                raise CheckpointError("module '%s' is not in the model" % missing[0], 64)
            ms = [mods[n] for n in names]
            if any("forward" in m.__dict__ for m in ms):
                raise CheckpointError("module '%s' is wrapped twice" % names[0], 64)
            if len(ms) > 1:
                parent_name = names[0].rpartition(".")[0]
                parent = mods.get(parent_name) if parent_name else model
                kids = list(parent.named_children()) if parent is not None else []
                short = [n.rpartition(".")[2] for n in names]
                order = [n for n, _ in kids]
                ok = (isinstance(parent, torch.nn.Sequential)
                      and all(n.rpartition(".")[0] == parent_name for n in names)
                      and all(s in order for s in short)
                      and [order.index(s) for s in short]
                      == list(range(order.index(short[0]), order.index(short[0]) + len(short))))
                if not ok:
                    raise CheckpointError("modules %s cannot be checkpointed as one: they are "
                                          "not consecutive children of one nn.Sequential"
                                          % ", ".join(names), 64)
                forwards = [m.forward for m in ms]

                def run(x, forwards=forwards):
                    for f in forwards:
                        x = f(x)
                    return x

                ms[0].forward = _checkpointed(run)
                done._undo.append(ms[0])
                for m in ms[1:]:
                    m.forward = _identity
                    done._undo.append(m)
            else:
                m = ms[0]
                m.forward = _checkpointed(m.forward)
                done._undo.append(m)
    except BaseException:
        done.remove()
        raise
    return done


def _identity(x):
    return x


def _storage_bytes(tensors):
    seen = {}
    for t in tensors:
        if isinstance(t, torch.Tensor):
            st = t.storage()._untyped() if hasattr(t.storage(), "_untyped") else t.storage()
            seen[(st.device.type, st.data_ptr())] = st.nbytes()
    return sum(seen.values())


def state_bytes(model=None, optimizer=None, inputs=()):
    """Bytes of the distinct storages of MODEL's parameters and buffers,
    OPTIMIZER's state and INPUTS: what an iteration holds from its start."""
    ts = list(inputs)
    if model is not None:
        ts += list(model.parameters()) + list(model.buffers())
    if optimizer is not None:
        for st in optimizer.state.values():
            ts += [v for v in st.values() if isinstance(v, torch.Tensor)]
    return _storage_bytes(ts)


def measure(step, model=None, optimizer=None, inputs=(), device="cpu", repeat=1):
    """Run STEP() once and return (peak bytes, seconds): the peak by
    torch's own accounting (see the module's doc), the time of the fastest
    of REPEAT more runs (1: that run alone, timed without the profiler)."""
    dev = torch.device(device)
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
        torch.cuda.reset_peak_memory_stats(dev)
        start = torch.cuda.memory_allocated(dev)
        step()
        torch.cuda.synchronize(dev)
        peak = torch.cuda.max_memory_allocated(dev)
        del start
    else:
        from torch.profiler import ProfilerActivity, profile
        start = state_bytes(model, optimizer, inputs)
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            step()
        cur = top = 0
        for e in prof.profiler.kineto_results.events():
            if e.name() == "[memory]" and e.device_type() == torch.autograd.DeviceType.CPU:
                cur += e.nbytes()
                top = max(top, cur)
        peak = start + top
        # torch 1.13's CPU allocator keeps the sizes of the blocks a
        # profiled run allocated; one freed while no profiler runs leaves
        # its size behind, and a later profiled run counts a free of a new
        # block at that address with it. What the step leaves (parameters,
        # their gradients, optimizer state) is then more than the profiler
        # saw: refuse a number that would be wrong.
        if model is not None:
            grads = [p.grad for p in model.parameters() if p.grad is not None]
            held = state_bytes(model, optimizer, list(inputs) + grads)
            if start + cur < held - 65536:
                raise CheckpointError(
                    "torch's CPU memory accounting lost %d bytes in this process (the sizes "
                    "of an earlier profiled run's blocks, freed since, are counted again: "
                    "torch 1.13): measure in a fresh process, as `python3 -m rematsim_torch "
                    "checkpoint --factory MODULE:FUNCTION` and measure_fresh do"
                    % (held - start - cur), 70)
    best = None
    for _ in range(max(repeat, 1)):
        t0 = time.perf_counter()
        step()
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)
        t = time.perf_counter() - t0
        best = t if best is None or t < best else best
    return peak, best


# ---- a user's model from a factory, measured in fresh processes ----------

def load_factory(text):
    """The function FUNCTION of "MODULE:FUNCTION": MODULE a module this
    Python imports (dotted: mypkg.models) or a path to a .py file. Raises
    CheckpointError (64) saying what is wrong."""
    import importlib
    import importlib.util
    module, sep, name = str(text).rpartition(":")
    if not sep or not module or not name:
        raise CheckpointError("--factory '%s': give MODULE:FUNCTION (a module or a .py file, "
                              "and the function in it that returns the model and its inputs)"
                              % text, 64)
    try:
        if module.endswith(".py") or os.sep in module:
            if not os.path.isfile(module):
                raise CheckpointError("--factory %s: no file %s" % (text, module), 64)
            spec = importlib.util.spec_from_file_location(
                "_rematsim_factory_" + os.path.basename(module)[:-3].replace("-", "_"), module)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
        else:
            mod = importlib.import_module(module)
    except CheckpointError:
        raise
    except ImportError as e:
        raise CheckpointError("--factory %s: cannot import %s: %s" % (text, module, e), 64)
    except Exception as e:
        raise CheckpointError("--factory %s: importing %s raised %s: %s"
                              % (text, module, type(e).__name__, e), 70)
    f = getattr(mod, name, None)
    if not callable(f):
        raise CheckpointError("--factory %s: %s has no function %s" % (text, module, name), 64)
    return f


def _default_loss(out):
    if isinstance(out, (tuple, list)) and out:
        out = out[0]
    if not isinstance(out, torch.Tensor) or not out.is_floating_point():
        raise CheckpointError("the model's output is %s, not a floating-point tensor to take "
                              "a loss of: let the factory return a loss too "
                              "(model, inputs, optimizer, loss_fn)" % type(out).__name__, 65)
    return out if out.numel() == 1 else out.sum()


class FactoryModel:
    """What a factory built: MODEL, INPUTS (a tuple: model(*INPUTS)), the
    OPTIMIZER or None, the loss (loss_fn(output), else the output if it is
    one number, else its sum); step() runs one training iteration."""

    def __init__(self, factory, name="factory"):
        try:
            got = factory()
        except CheckpointError:
            raise
        except Exception as e:
            raise CheckpointError("%s raised %s: %s" % (name, type(e).__name__, e), 70)
        if isinstance(got, dict):
            got = (got.get("model"), got.get("inputs"), got.get("optimizer"), got.get("loss_fn"))
        if not isinstance(got, (tuple, list)) or not 2 <= len(got) <= 4:
            raise CheckpointError("%s returned %s: return (model, inputs), (model, inputs, "
                                  "optimizer) or (model, inputs, optimizer, loss_fn)"
                                  % (name, type(got).__name__), 65)
        got = list(got) + [None] * (4 - len(got))
        self.model, inputs, self.opt, self.loss_fn = got
        if not isinstance(self.model, torch.nn.Module):
            raise CheckpointError("%s returned %s as the model, not a torch.nn.Module"
                                  % (name, type(self.model).__name__), 65)
        self.inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
        if self.opt is not None and not isinstance(self.opt, torch.optim.Optimizer):
            raise CheckpointError("%s returned %s as the optimizer, not a torch.optim.Optimizer"
                                  % (name, type(self.opt).__name__), 65)
        if self.loss_fn is not None and not callable(self.loss_fn):
            raise CheckpointError("%s returned a loss_fn that is not callable" % name, 65)
        params = list(self.model.parameters())
        if not params:
            raise CheckpointError("%s: the model has no parameters to train" % name, 65)
        self.device = params[0].device
        self.model.train()

    def step(self, rec=None):
        if self.opt is not None:
            self.opt.zero_grad(set_to_none=True)
        else:
            self.model.zero_grad(set_to_none=True)
        out = self.model(*self.inputs)
        loss = self.loss_fn(out) if self.loss_fn is not None else _default_loss(out)
        del out
        if rec is not None:
            rec.mark_backward()
        loss.backward()
        if self.opt is not None:
            self.opt.step()
        return loss


def measure_spec(factory, wraps=(), repeat=3, seed=1, threads=None):
    """The argument of `python3 -m rematsim_torch _measure`: a JSON text."""
    module, _, name = str(factory).rpartition(":")
    if module.endswith(".py") or os.sep in module:
        module = os.path.abspath(module)  # the child may run elsewhere
    w = wraps.wraps if isinstance(wraps, Plan) else [[x] if isinstance(x, str) else list(x)
                                                      for x in wraps]
    return json.dumps({"factory": "%s:%s" % (module, name), "wraps": w, "repeat": repeat,
                       "seed": seed, "threads": threads})


def measure_fresh(factory, plan=(), repeat=3, seed=1, threads=None):
    """Measure PLAN (a Plan, or wraps) applied to the model FACTORY
    ("MODULE:FUNCTION") builds, in a fresh Python process of its own (so
    that torch 1.13's CPU accounting is exact for every plan, which one
    process cannot give twice): torch.manual_seed(SEED), the factory
    called, one warm-up, the wraps applied, one more warm-up, then
    `measure`. Returns (peak bytes, seconds); CheckpointError with the
    child's status and last message when it fails."""
    import sys
    load_factory(factory)  # a bad spec is answered here, before a process starts
    r = subprocess.run([sys.executable, "-m", "rematsim_torch", "_measure",
                        measure_spec(factory, plan, repeat, seed, threads)],
                       capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                           [p if p else os.getcwd() for p in sys.path])))
    if r.returncode:
        msg = r.stderr.strip().splitlines()
        raise CheckpointError(msg[-1].replace("rematsim_torch: ", "") if msg
                              else "the measuring process exited %d" % r.returncode,
                              r.returncode if r.returncode in (64, 65, 69, 70) else 70)
    m = json.loads(r.stdout.strip().splitlines()[-1])
    return m["peak"], m["seconds"]


__all__ = ["Plan", "CheckpointError", "suggest", "plans_for", "apply", "measure",
           "state_bytes", "find_rematsim", "RecorderError", "load_factory", "FactoryModel",
           "measure_fresh"]
