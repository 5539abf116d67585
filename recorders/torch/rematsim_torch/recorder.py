"""recorder.py: record a PyTorch training iteration as a rematsim op log.

A `Recorder` is a context manager. While it is active, every ATen op that
reaches the Python dispatch key (a TorchDispatchMode, below autograd, so
the backward pass's ops are seen too) is run, timed and written to the log:

- a tensor first seen as an op's argument is a CONSTANT of its storage's
  bytes, or a COPY of a live handle when it shares that handle's storage;
- an op's results that share the storage of one of its arguments are
  views of it (ALIAS k); every other result owns a new storage (ALIAS -1,
  MEMORY its storage's bytes);
- arguments the op writes (schema `alias_info.is_write`, plus the running
  statistics of the batch-norm kernels in training, which torch 1.13's
  schemas do not mark) are a MUTATE; other handles holding the same tensor
  are then re-pointed at the new version (COPY_FROM);
- each handle's death is a RELEASE. A handle is one TensorImpl (one Python
  tensor object: torch keeps the object alive as long as C++ holds the
  TensorImpl), watched with a weakref; deaths are queued by the weakref
  callback and written, in the order they happened, before the next record.

Storages are identified by their data pointer only while one of our live
handles holds them (a live handle keeps the storage alive, so no other
storage can have that address meanwhile); when the last one goes the
storage is forgotten, so an address the allocator hands out again is a new
storage.

Autograd keeps the tensors it saves for backward in C++ (for an op's own
output as a hidden shallow copy): a saved-tensors hook makes that copy
visible, as a COPY handle released when autograd frees it.

See recorders/torch/README.md for what is and is not recorded.
"""

import gc
import os
import platform
import statistics
import sys
import time
import weakref
from collections import deque

import torch

# The torch the recorder is written and tested against (issue 44): 1.13
# (Debian bookworm's python3-torch). Older ones lack the dispatch mode it
# relies on (1.12's TorchDispatchMode is entered differently): refused at
# import. Newer ones have it, but ops, schemas and the saved-tensor and
# fake-tensor internals it leans on have moved: recorded with a warning,
# which says to check a log's peak against a measured one.
SUPPORTED_TORCH = (1, 13)


def torch_version_problem(version):
    """What the recorder does with torch `version` (a torch.__version__
    string): (None, None) on 1.13.x; ("refuse", message) before it;
    ("warn", message) after it or when the version cannot be read."""
    parts = str(version).split("+")[0].split(".")
    try:
        major, minor = int(parts[0]), int("".join(c for c in parts[1] if c.isdigit()) or "x")
    except (ValueError, IndexError):
        return ("warn", "rematsim_torch: cannot read torch's version %r; the recorder is "
                "written for torch 1.13: check the peaks it gives" % (version,))
    if (major, minor) == SUPPORTED_TORCH:
        return (None, None)
    if (major, minor) < SUPPORTED_TORCH:
        return ("refuse", "rematsim_torch needs torch 1.13 (this is torch %s): older ones lack "
                "the dispatch mode it records with; install torch 1.13 (Debian: "
                "python3-torch)" % version)
    return ("warn", "rematsim_torch is written and tested for torch 1.13; this is torch %s: "
            "it records, but ops and internals it relies on may have changed, so check a "
            "log's peak against a measured one before trusting it" % version)


_KIND, _MESSAGE = torch_version_problem(torch.__version__)
if _KIND == "refuse":
    raise ImportError(_MESSAGE)
if _KIND == "warn":
    import warnings
    warnings.warn(_MESSAGE, RuntimeWarning, stacklevel=2)

from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402
from torch.utils._pytree import tree_flatten  # noqa: E402

from .oplog import VERSION, OpLog, OutputError  # noqa: E402

# Ops whose schema (torch 1.13) does not mark an argument they write: the
# batch-norm kernels update running_mean and running_var in place when
# training. Key: op name; value: the names of those arguments.
SCHEMA_GAPS = {
    "aten::native_batch_norm": ("running_mean", "running_var"),
    "aten::cudnn_batch_norm": ("running_mean", "running_var"),
    "aten::miopen_batch_norm": ("running_mean", "running_var"),
    "aten::batch_norm_gather_stats": ("running_mean", "running_var"),
    "aten::batch_norm_gather_stats_with_counts": ("running_mean", "running_var"),
}

# In-place ops that change a tensor's metadata (shape, strides, autograd
# state) but no data: the schema marks `self` as written, the log records
# nothing. resize_ and resize_as_ belong here only while the storage stays
# (a storage that grows is handled as any changed storage, see _rebind).
METADATA_INPLACE = frozenset(
    "aten::" + n
    for n in ("detach_", "squeeze_", "unsqueeze_", "transpose_", "t_", "as_strided_",
              "swapaxes_", "swapdims_", "resize_", "resize_as_", "_coalesced_"))


# The clocks of CPU op times (Recorder's clock=), and how the meta file
# describes them. "thread", the default: the CPU time of the calling
# thread, which keeps counting only while the op computes on it, so time
# spent waiting for a core on a loaded machine is not counted (torch's
# intra-op worker threads are not counted either: record with one torch
# thread). "wall": the elapsed time, waits included.
CLOCKS = {"thread": time.thread_time_ns, "wall": time.perf_counter_ns}
CLOCK_TEXT = {
    "thread": "thread CPU time (time.thread_time_ns) around each op, less timer_overhead_ns",
    "wall": "time.perf_counter_ns around each op, less timer_overhead_ns",
    "cuda": "CUDA events, synchronized per op, less timer_overhead_ns",
    "fake": "none: fake tensors run no kernel; each op's TIME is the time model's "
            "(time_model in this file) or 0",
}


class RecorderError(Exception):
    """A problem with the recording itself; `status` is the exit status."""

    def __init__(self, message, status=70):
        super().__init__(message)
        self.status = status


def _storage_of(t):
    f = getattr(t, "untyped_storage", None) or t._storage
    return f()


class _Handle:
    __slots__ = ("ref", "name", "key")

    def __init__(self, ref, name, key):
        self.ref = ref
        self.name = name
        self.key = key


class _Mode(TorchDispatchMode):
    def __init__(self, rec):
        super().__init__()
        self.rec = rec

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return self.rec._dispatch(func, args, kwargs or {})


class Recorder:
    """Record the ops run inside `with Recorder(path) as rec:` to PATH.

    PATH ending in .gz is gzip-compressed. The log and PATH's meta file
    (PATH without .gz/.log, plus .meta.json) are written under temporary
    names and moved into place when the block ends without an exception;
    if it raises, nothing is left under either name.

    device: the device whose tensors are recorded ("cpu", "cuda", "cuda:1");
        tensors elsewhere (a CPU scalar in a CUDA program) are not.
    meta: extra fields for the meta file (also `rec.meta[...] = ...`).
    """

    def __init__(self, path, device="cpu", meta=None, clock=None, model=None, optimizer=None,
                 fake=False, cost=None, op_time=None):
        self.device = torch.device(device)
        self.fake = bool(fake)
        # cost(func, args, kwargs, out) -> (flops, bytes) or None: written
        # as the CALL's FLOPS and BYTES (costs.py). op_time(func, args,
        # kwargs, out, flops, bytes) -> ns: the TIME of a fake op (0 without).
        self._cost = cost
        self._op_time_fn = op_time
        self._fake_session = None
        if self.fake:
            from . import fake as _fake
            self._fake_session = _fake.active()
            if self._fake_session is None:
                raise RecorderError("Recorder(fake=True) records inside rematsim_torch."
                                    "fake_mode(): build the model, optimizer and batch in "
                                    "it, then record", 64)
            if self.device.type == "cuda" and self._fake_session.device.type == "cpu":
                # CUDA stands on fake CPU tensors where torch has no CUDA (fake.py).
                self.device = self._fake_session.device
            if self.device.type == "cuda" and self.device.index is None:
                self.device = torch.device("cuda", 0)
            if self.device.type not in ("cpu", "cuda"):
                raise RecorderError("device %s: only cpu and cuda are supported" % device, 64)
            clock = clock or "fake"
            if clock != "fake":
                raise RecorderError("clock %s: a fake recording runs no kernel: its op times "
                                    "are 0 or the time model's (clock \"fake\")" % clock, 64)
        elif self.device.type == "cuda":
            if not torch.cuda.is_available():
                raise RecorderError("CUDA is not available to this torch (%s)"
                                    % torch.__version__, 69)
            if self.device.index is None:
                self.device = torch.device("cuda", torch.cuda.current_device())
        elif self.device.type != "cpu":
            raise RecorderError("device %s: only cpu and cuda are supported" % device, 64)
        if self.fake:
            pass
        elif self.device.type == "cuda":
            clock = clock or "cuda"
            if clock != "cuda":
                raise RecorderError("clock %s: on CUDA ops are timed by CUDA events "
                                    "(clock \"cuda\")" % clock, 64)
        elif (clock or "thread") not in CLOCKS:
            raise RecorderError("clock %s: give one of %s" % (clock, ", ".join(CLOCKS)), 64)
        self.clock = clock or "thread"
        self._now = CLOCKS.get(self.clock)
        self._fake_cost = {"flops": 0, "bytes": 0}
        try:
            self._log = OpLog(path)
        except OutputError as e:
            raise RecorderError(str(e), 73)
        except OSError as e:
            raise RecorderError("%s: cannot create the log: %s" % (path, e.strerror or e), 73)
        self.path = self._log.path
        self.meta = dict(meta or {})
        self._by_id = {}  # id(tensor) -> _Handle, live handles only
        self._on_key = {}  # storage key -> names of live handles on it, oldest first
        self._dead = deque()  # (id, name) of handles that died, not yet written
        self._passthrough = 0  # > 0: ops run unrecorded
        self._active = False
        self._done = False
        self._unpacked = None  # weakref to the tensor the unpack hook just gave
        self._ops = 0  # ops recorded (CALL or MUTATE) since the last START
        self._op_time = 0
        self._skipped_ops = 0  # ops with no result or write on the device
        self._skipped_time = 0
        self.overhead_ns = 0
        self._cuda = self.device.type == "cuda" and not self.fake
        if self._cuda:
            self._ev = (torch.cuda.Event(enable_timing=True),
                        torch.cuda.Event(enable_timing=True))
        self._modules = []  # hook handles of watch()
        self._models = []  # the watched models
        self._optimizer = optimizer
        self._open = []  # module calls entered and not exited, innermost last
        self._in_backward = False
        if model is not None:
            self.watch(model)

    # ---- the public API ----

    def __enter__(self):
        if self._done or self._active:
            raise RecorderError("a Recorder records once")
        self.overhead_ns = 0 if self.fake else self._calibrate()
        self._gc_was_enabled = gc.isenabled()
        gc.collect()
        gc.disable()  # deaths by reference count only: a deterministic order
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack)
        self._hooks.__enter__()
        self._mode = _Mode(self)
        self._mode.__enter__()
        self._active = True
        self._t_enter = time.perf_counter()
        return self

    def __exit__(self, exc_type, exc, tb):
        self._stop()
        if exc_type is not None:
            self._log.abort()
            return False
        try:
            self._finish()
        except BaseException:
            self._log.abort()
            raise
        return False

    def watch(self, model):
        """Annotate MODEL's module calls in the forward pass: each call of a
        submodule is an ENTER (its name as model.named_modules() gives it,
        and its class) before its first op and an EXIT after its last,
        nested as the calls are. The model itself is not annotated, nor
        calls after BACKWARD (a checkpoint's recomputation). Given as
        Recorder(model=...), or called before the block. Returns self."""
        self._models.append(model)
        for name, m in model.named_modules():
            if name:
                self._modules.append(m.register_forward_pre_hook(
                    self._enter_hook(name, type(m).__name__)))
                self._modules.append(m.register_forward_hook(self._exit_hook(name)))
        return self

    def _enter_hook(self, name, kind):
        def hook(module, inputs):
            if self._active and not self._passthrough and not self._in_backward:
                self._flush_dead()
                self._log.annotate("ENTER", name, kind)
                self._open.append(name)
        return hook

    def _exit_hook(self, name):
        def hook(module, inputs, output):
            if self._active and self._open and self._open[-1] == name:
                self._flush_dead()
                self._log.annotate("EXIT", name)
                self._open.pop()
        return hook

    def start(self, *tensors):
        """Annotate START: the measured iteration begins. Everything alive is
        forgotten: a tensor used after START is declared again when first
        seen, as a replay skips what came before. What the iteration holds
        from its start is declared at once, so that a replay counts it from
        there as torch does: the parameters and buffers of the watched
        models (model=, watch()), the optimizer's state (optimizer=), and
        TENSORS (the batch); anything else is declared when first used."""
        self._flush_dead()
        self._open.clear()  # calls entered before START are not exited after it
        self._in_backward = False
        self._by_id.clear()  # dropping the weakrefs drops their callbacks
        self._on_key.clear()
        self._dead.clear()
        self._ops = self._op_time = self._skipped_ops = self._skipped_time = 0
        self._log.annotate("START")
        for t in self._held(tensors):
            if self._on_device(t) and self._known(t) is None:
                self._declare(t)

    def _held(self, tensors):
        """The tensors start() declares, in a fixed order."""
        for m in self._models:
            yield from m.parameters()
            yield from m.buffers()
        opt = self._optimizer
        if opt is not None and not (isinstance(opt, tuple) and not opt):  # () : none
            for group in opt.param_groups:
                yield from group["params"]
            for group in opt.param_groups:
                for p in group["params"]:
                    st = opt.state.get(p, {})
                    for k in sorted(st, key=str):
                        if isinstance(st[k], torch.Tensor):
                            yield st[k]
        for t in tensors:
            if isinstance(t, torch.Tensor):
                yield t

    def mark_backward(self):
        """Annotate BACKWARD: the backward pass begins (call it just before
        loss.backward(); `backward` does both)."""
        self._flush_dead()
        self._in_backward = True
        self._log.annotate("BACKWARD")

    def backward(self, loss, *args, **kwargs):
        """mark_backward(), then loss.backward(*args, **kwargs)."""
        self.mark_backward()
        loss.backward(*args, **kwargs)

    def paused(self):
        """A context in which ops run unrecorded (printing a loss, metrics).
        Tensors made there and used later are first seen then."""
        rec = self

        class _Paused:
            def __enter__(self):
                rec._passthrough += 1

            def __exit__(self, *exc):
                rec._passthrough -= 1
                return False

        return _Paused()

    def abort(self):
        """Give up: stop recording and remove the unfinished log."""
        self._stop()
        self._log.abort()

    @property
    def peak_live_bytes(self):
        return self._log.peak_live_bytes

    @property
    def records(self):
        return self._log.records

    @property
    def counts(self):
        return dict(self._log.counts, ops=self._ops, skipped_ops=self._skipped_ops)

    # ---- lifetime ----

    def _stop(self):
        for h in self._modules:
            h.remove()
        self._modules = []
        if self._active:
            self._active = False
            try:
                self._mode.__exit__(None, None, None)
            finally:
                self._hooks.__exit__(None, None, None)
                if self._gc_was_enabled:
                    gc.enable()
        self._done = True

    def _finish(self):
        self._flush_dead()
        # Handles alive at the end stay alive: the replay pins them.
        self._by_id.clear()
        self._on_key.clear()
        meta = {
            "recorder": "rematsim_torch %s" % VERSION,
            "device": self.device.type,
            "device_name": "" if self.fake else _device_name(self.device),
            "driver_version": "" if self.fake else _driver_version(self.device),
            "runtime_version": "" if self.fake else _runtime_version(self.device),
            "torch_version": torch.__version__,
            "python_version": platform.python_version(),
            "clock": CLOCK_TEXT[self.clock],
            "threads": torch.get_num_threads(),
            "timer_overhead_ns": self.overhead_ns,
            "measured_ops": self._ops,
            "measured_op_time_ns": self._op_time,
            "unrecorded_ops": self._skipped_ops,
            "unrecorded_op_time_ns": self._skipped_time,
            "has_start": self._log.counts["starts"] > 0,
            "record_seconds": round(time.perf_counter() - self._t_enter, 3),
        }
        if self.fake:
            meta["fake"] = True
            meta["device_name"] = "fake %s (no kernel ran; torch %s)" % (
                self.device, torch.__version__)
            meta["driver_version"] = ""
            meta["runtime_version"] = _runtime_version(torch.device("cpu"))
        if self._cost is not None:
            meta["op_flops"] = self._fake_cost["flops"]
            meta["op_bytes"] = self._fake_cost["bytes"]
        meta["timer"] = self.clock
        for k in ("writes", "mutates", "constants", "copies", "copy_froms", "releases",
                  "modules"):
            meta[k] = self._log.counts[k]
        meta.update(self.meta)
        try:
            self.meta_written = self._log.close(meta)
        except OSError as e:
            raise RecorderError("%s: cannot write the log: %s" % (self.path, e), 74)

    # ---- timing ----

    def _run_fake(self, func, args, kwargs):
        """Run FUNC on fake tensors (no kernel, no time); an op that cannot
        run so is a RecorderError naming the op and where it ran."""
        from . import fake as _fake
        try:
            return func(*args, **kwargs), 0
        except RecorderError:
            raise
        except Exception as e:
            why = _fake.why_not_fake(e)
            if why is None:
                raise
            raise RecorderError("op %s cannot run on fake tensors, in %s: %s"
                                % (func._schema.name, self._where(), why), 70) from None

    def _where(self):
        if self._open:
            return "module %s" % self._open[-1]
        if self._in_backward:
            return "the backward pass or the optimizer step (after BACKWARD)"
        return "no module of the watched model (before the first or between modules)"

    def _timed(self, func, args, kwargs):
        """Run FUNC; its time in ns, the recorder's overhead taken out."""
        if self._cuda:
            s = torch.cuda.current_stream(self.device)
            self._ev[0].record(s)
            out = func(*args, **kwargs)
            self._ev[1].record(s)
            self._ev[1].synchronize()
            ns = round(self._ev[0].elapsed_time(self._ev[1]) * 1e6)
        else:
            now = self._now
            t0 = now()
            out = func(*args, **kwargs)
            ns = now() - t0
        return out, max(ns - self.overhead_ns, 0)

    def _calibrate(self):
        """The recorder's own share of a timed op: the median time of an op
        that does no work (aten::is_same_size, a boolean answer from the
        tensors' sizes), called through the same timing code. It is what
        each measured time holds besides the kernel: reading the clock (or
        recording the events) and calling the op from Python."""
        op = torch.ops.aten.is_same_size.default
        a = torch.zeros(1, device=self.device)
        self.overhead_ns = 0
        if self._cuda:
            torch.cuda.synchronize(self.device)
        samples = []
        for _ in range(2000 if not self._cuda else 200):
            samples.append(self._timed(op, (a, a), {})[1])
        return int(statistics.median(samples[len(samples) // 10:]))

    # ---- handles ----

    def _on_device(self, t):
        d = t.device
        return d.type == self.device.type and (d.index == self.device.index
                                               or self.device.index is None)

    def _known(self, t):
        h = self._by_id.get(id(t))
        if h is not None and h.ref() is t:
            return h.name
        return None

    def _storage_key(self, t):
        """(key, bytes): key identifies the storage among live handles'
        (None for a storage of 0 bytes or a tensor without one)."""
        try:
            st = _storage_of(t)
            nbytes = st.nbytes()
            # A fake tensor's storage has no data (pointer 0): it is known
            # by its StorageImpl, which views share and which lives as
            # long as a live handle holds it, as a real storage's address.
            ptr = st._cdata if self.fake else st.data_ptr()
        except (RuntimeError, NotImplementedError):
            return None, t.numel() * t.element_size()
        return (ptr if nbytes and ptr else None), nbytes

    def _register(self, t, name, key):
        tid = id(t)
        dead = self._dead

        def died(_ref, tid=tid, name=name):
            dead.append((tid, name))

        self._by_id[tid] = _Handle(weakref.ref(t, died), name, key)
        if key is not None:
            self._on_key.setdefault(key, []).append(name)

    def _flush_dead(self):
        while self._dead:
            tid, name = self._dead.popleft()
            h = self._by_id.get(tid)
            if h is None or h.name != name:
                # Forgotten (START), or the id already belongs to a newer
                # tensor, whose handle replaced this one: find the key by name.
                h = None
            else:
                del self._by_id[tid]
            key = h.key if h is not None else self._key_of_dead(name)
            if key is not None:
                names = self._on_key.get(key)
                if names is not None and name in names:
                    names.remove(name)
                    if not names:
                        del self._on_key[key]
            if self._log.is_defined(name):
                self._log.release(name)

    def _key_of_dead(self, name):
        for key, names in self._on_key.items():
            if name in names:
                return key
        return None

    def _declare(self, t):
        """Name a tensor seen for the first time: a COPY of a live handle
        on its storage, else a CONSTANT."""
        key, nbytes = self._storage_key(t)
        name = self._log.new_name()
        live = self._on_key.get(key) if key is not None else None
        if live:
            self._log.copy(name, live[0])
        else:
            self._log.constant(name, nbytes)
        self._register(t, name, key)
        return name

    # ---- saved tensors ----

    def _pack(self, x):
        """Autograd saves X for backward. A leaf (weights, inputs) or a
        tensor outside autograd is kept as it is: the saved reference keeps
        our handle alive. A tensor with history is kept as a detached
        handle of its own (what autograd itself keeps is such a shallow
        copy), a COPY of X's handle; keeping X itself would tie X to its
        own grad_fn in a cycle that outlives a graph never run backward."""
        if not self._active or self._passthrough or x.grad_fn is None:
            return x
        self._flush_dead()
        self._passthrough += 1
        try:
            d = x.detach()
        finally:
            self._passthrough -= 1
        name = self._known(x)
        if name is not None and self._on_device(x):
            dn = self._log.new_name()
            self._log.copy(dn, name)
            self._register(d, dn, self._by_id[id(x)].key)
        return d

    def _unpack(self, d):
        # Autograd detaches what it unpacks: that detach is no op of the
        # program (without the hook it makes the copy itself), so
        # _dispatch records it as a COPY.
        self._unpacked = weakref.ref(d)
        return d

    # ---- the ops ----

    def _args(self, schema, args, kwargs):
        """The op's tensor arguments in schema order, flattened (lists of
        tensors), with whether each is written; and the argument values
        by name."""
        values = {}
        pos = 0
        for a in schema.arguments:
            if not a.kwarg_only and pos < len(args):
                values[a.name] = args[pos]
                pos += 1
            elif a.name in kwargs:
                values[a.name] = kwargs[a.name]
        gap = SCHEMA_GAPS.get(schema.name, ())
        if gap and not values.get("training", False):
            gap = ()
        out = []
        for a in schema.arguments:
            v = values.get(a.name)
            if v is None:
                continue
            w = (a.alias_info is not None and a.alias_info.is_write) or a.name in gap
            if isinstance(v, torch.Tensor):
                out.append((v, w))
            elif isinstance(v, (list, tuple)):
                out.extend((e, w) for e in v if isinstance(e, torch.Tensor))
        return out

    def _dispatch(self, func, args, kwargs):
        if (args and not isinstance(args[0], torch.Tensor) and isinstance(args[0], (int, float))
                and func._schema.name in ("aten::detach", "aten::alias")):
            # torch 1.13 hands a mode a wrapped number (a scalar autograd
            # saved) as a Python number, which the op refuses: the tensor
            # it stood for, a number of no device's memory (when a
            # checkpoint's recomputation detaches what it saves).
            v = args[0]
            return torch.tensor(v, dtype=torch.float64 if isinstance(v, float) else None)
        if (self.fake and args and isinstance(args[0], torch.Tensor)
                and func._schema.name in ("aten::detach", "aten::alias")
                and not _is_fake(args[0])):
            # The same wrapped number under fake tensors: a real tensor (C++
            # makes it from the scalar), which the fake mode refuses; it is
            # no tensor of the program's either.
            from torch.utils._mode_utils import no_dispatch
            with no_dispatch():
                return torch.Tensor.detach(args[0])
        if self._passthrough or not self._active or func.namespace == "profiler":
            # profiler::_record_function_enter/_exit: the labels that
            # torch.autograd.profiler.record_function puts around code (the
            # optimizers use it), no computation of the program.
            return _fix_scalar(func, args, func(*args, **kwargs))
        self._flush_dead()
        schema = func._schema
        targs = [(t, w) for t, w in self._args(schema, args, kwargs) if self._on_device(t)]
        meta_only = schema.name in METADATA_INPLACE
        if self._in_backward and self._optimizer is None and not meta_only:
            for t, w in targs:
                if w and isinstance(t, torch.nn.Parameter):
                    # An optimizer step with no optimizer declared (issue
                    # 44, item 5): its state (momentum, Adam's moments)
                    # lived before START but was never declared, so the
                    # log's peak would be low by its size.
                    raise RecorderError(
                        "%s writes a parameter in place after BACKWARD (an optimizer "
                        "step), but the Recorder was given no optimizer=: the "
                        "optimizer's state, held from before START, would be missing "
                        "and the peak low; pass Recorder(..., model=MODEL, "
                        "optimizer=OPTIMIZER) (a hand-written update with no state: "
                        "optimizer=() says so)" % schema.name, 65)
        before = {id(t): self._storage_key(t) for t, w in targs if w}

        if (self._unpacked is not None and schema.name == "aten::detach"
                and args and self._unpacked() is args[0]):
            self._unpacked = None
            out = func(*args, **kwargs)
            if not isinstance(out, torch.Tensor):
                return _fix_scalar(func, args, out)  # a wrapped number: no tensor of ours
            self._flush_dead()
            if self._on_device(args[0]):
                src = self._known(args[0]) or self._declare(args[0])
                if self._known(out) is None:
                    name = self._log.new_name()
                    self._log.copy(name, src)
                    self._register(out, name, self._storage_key(out)[0])
            return out

        if self.fake:
            out, ns = self._run_fake(func, args, kwargs)
        else:
            out, ns = self._timed(func, args, kwargs)
        out = _fix_scalar(func, args, out)
        self._flush_dead()
        cost = self._cost(func, args, kwargs, out) if self._cost is not None else None
        if self.fake and self._op_time_fn is not None:
            ns = self._op_time_fn(func, args, kwargs, out, cost)

        names = [self._known(t) or self._declare(t) for t, _ in targs]

        # Written arguments: a write in place (below), unless the op gave the
        # tensor another storage (resize_, set_, an out= argument that had to
        # grow): then a new tensor that the argument's handle takes over.
        written, rebound, seen = [], [], set()
        for i, (t, w) in enumerate(targs):
            if not w or self._log.tensor_id(names[i]) in seen:
                continue  # one tensor written through two arguments
            seen.add(self._log.tensor_id(names[i]))
            if self._storage_key(t) != before[id(t)]:
                rebound.append(i)
            elif not meta_only:
                written.append(i)

        # Results: new tensors only (an in-place op returns its argument).
        results, copies, new, new_keys = [], [], [], {}
        arg_keys = [self._storage_key(t)[0] for t, _ in targs]
        for o in tree_flatten(out)[0]:
            if not isinstance(o, torch.Tensor) or not self._on_device(o):
                continue
            if self._known(o) is not None or any(o is n for n, _, _ in new):
                continue
            key, nbytes = self._storage_key(o)
            name = self._log.new_name()
            new.append((o, name, key))
            if key is not None and key in arg_keys:
                results.append((name, nbytes, arg_keys.index(key)))
            elif key is not None and key in new_keys:
                copies.append((name, new_keys[key]))  # shares an earlier result's storage
            elif key is not None and self._on_key.get(key):
                copies.append((name, self._on_key[key][0]))  # a live handle's storage
            else:
                results.append((name, nbytes, -1))
            if key is not None:
                new_keys.setdefault(key, name)

        # Writes in place: the new version of a written tensor is a view of
        # it (no new bytes: torch allocates none), made by the op, listed in
        # the CALL's WRITES; the argument's handle takes the new version's
        # name and every other handle of the tensor is re-pointed at it.
        others = {names[i]: self._log.same_tensor_names(names[i]) for i in written}
        views = [r for r in results if r[2] >= 0]
        results = [r for r in results if r[2] < 0]
        split = len(names) > 1 and (views or written)
        token = self._log.new_name() if split and not results else None
        versions = {}
        for i in written:
            versions[i] = self._log.new_name()
            views.append((versions[i], self._storage_key(targs[i][0])[1], i))

        op = _op_name(schema.name)
        recorded = bool(results or views)
        if not split:
            if recorded:
                self._log.call(op, names, results + views, ns, writes=written, cost=cost)
        else:
            # A view made by an op of several arguments would join a storage
            # that other storages now feed, which the reference simulator's
            # regions do not follow (docs/semantics.md, Regions): the op is
            # written as a CALL of all its arguments (its new results, or a
            # result of 0 bytes when it has none), then one CALL per view of
            # that argument alone. The time goes to the op's new results, or
            # to its first view (what recomputing the view's storage costs).
            if token is not None:
                results = [(token, 0, -1)]
            self._log.call(op, names, results, ns if token is None else 0,
                           cost=cost if token is None else None)
            for j, (name, nbytes, k) in enumerate(views):
                timed = token is not None and j == 0
                self._log.call(op, [names[k]], [(name, nbytes, 0)], ns if timed else 0,
                               writes=[0] if versions.get(k) == name else None,
                               cost=cost if timed else None)
            if token is not None:
                self._log.release(token)
        for i in written:
            for n in others[names[i]]:
                if self._log.is_defined(n):
                    self._log.copy_from(n, versions[i])
            self._log.release(names[i])
            self._rename(targs[i][0], names[i], versions[i])
        for i in rebound:
            # The argument now holds another storage: a new tensor, which the
            # argument's handle takes over.
            t = targs[i][0]
            key, nbytes = self._storage_key(t)
            tmp = self._log.new_name()
            alias = next((j for j, k in enumerate(arg_keys) if k == key and j != i
                          and key is not None), -1)
            self._log.call(op, names, [(tmp, nbytes, alias)], 0 if recorded else ns,
                           cost=None if recorded else cost)
            recorded = True
            self._log.copy_from(names[i], tmp)
            self._log.release(tmp)
            self._move_key(names[i], before[id(t)][0], key)
        for name, src in copies:
            self._log.copy(name, src)
        for o, name, key in new:
            self._register(o, name, key)

        if recorded:
            self._ops += 1
            self._op_time += ns
            if cost is not None:
                self._fake_cost["flops"] += cost[0]
                self._fake_cost["bytes"] += cost[1]
        else:
            self._skipped_ops += 1
            self._skipped_time += ns
        return out

    def _rename(self, t, old, new):
        """Tensor T's handle OLD is called NEW from now on (its new version)."""
        h = self._by_id.pop(id(t), None)  # its weakref, and so its callback, go too
        key = h.key if h is not None else None
        names = self._on_key.get(key) if key is not None else None
        if names is not None and old in names:
            names[names.index(old)] = new  # keeps its place: live[0] is the oldest
        self._register(t, new, None)
        self._by_id[id(t)].key = key

    def _move_key(self, name, old, new):
        if old is not None and name in self._on_key.get(old, ()):
            self._on_key[old].remove(name)
            if not self._on_key[old]:
                del self._on_key[old]
        for h in self._by_id.values():
            if h.name == name:
                h.key = new
        if new is not None:
            self._on_key.setdefault(new, []).append(name)


def _is_fake(t):
    from torch._subclasses.fake_tensor import FakeTensor
    return isinstance(t, FakeTensor)


def _op_name(schema_name):
    return schema_name[6:] if schema_name.startswith("aten::") else schema_name


def _fix_scalar(func, args, out):
    """torch 1.13 gives a Python number for detach/alias of a wrapped
    number (a scalar autograd saved, unpacked by our hook): hand C++ the
    tensor it expects."""
    if (not isinstance(out, torch.Tensor) and args and isinstance(args[0], torch.Tensor)
            and func._schema.name in ("aten::detach", "aten::alias")):
        return torch.Tensor.detach(args[0])
    return out


def _device_name(device):
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    return "cpu: %s %s, %d cores" % (platform.system(), platform.machine(), os.cpu_count() or 0)


def _driver_version(device):
    if device.type == "cuda":
        try:
            v = torch._C._cuda_getDriverVersion()
            return "%d.%d" % (v // 1000, v % 1000 // 10)
        except (AttributeError, RuntimeError):
            return ""
    return ""


def _runtime_version(device):
    if device.type == "cuda":
        return "torch %s, CUDA %s, cuDNN %s" % (torch.__version__, torch.version.cuda,
                                                torch.backends.cudnn.version())
    return "torch %s, %d threads, Python %s" % (torch.__version__, torch.get_num_threads(),
                                                sys.version.split()[0])
