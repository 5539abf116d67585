"""fake.py: recording under fake tensors (torch._subclasses.fake_tensor).

A fake tensor has a shape, a dtype, a device and a storage of a size, but
no data: ops run their meta kernels, which compute the shapes of the
results and allocate nothing. A training step of a model of any size runs
so in seconds on a CPU, and a Recorder records it as it records a real
one (the same records but op times: docs/llm.md).

    import rematsim_torch
    with rematsim_torch.fake_mode(device="cuda") as fm:
        model = build_model()                # parameters are fake
        opt = torch.optim.AdamW(model.parameters(), foreach=False)
        x = torch.randint(vocab, (1, 4096), device=fm.device)
        step()                                # warm-up: the optimizer's state
        with rematsim_torch.Recorder("m.log.gz", fake=True, device=fm.device,
                                     model=model, optimizer=opt) as rec:
            ...

torch 1.13's traps, and what this module does about each:

1. `optimizer.step()` and `zero_grad()` run inside
   `torch.autograd.profiler.record_function`, whose ops (profiler::
   _record_function_enter) fail under a fake mode: while the session is
   active, record_function is a context that does nothing.
2. The `_foreach_*` ops (foreach=True optimizers) have no meta kernels,
   and FakeTensorMode's fallback runs the real CPU kernel on real zeros
   (real allocations, silently): the session's mode refuses fallbacks
   (allow_fallback_kernels=False), so such an op is an error naming the
   op (FakeOpError; the Recorder adds the module it ran in). Build
   optimizers with foreach=False.
3. `repeat_interleave` has a data-dependent output shape, which fake
   tensors refuse (DynamicOutputShapeException): the decoder of llm.py
   repeats key/value heads by expand + reshape.
4. `torch.utils.checkpoint(..., use_reentrant=False)` fails in backward
   under any dispatch mode in 1.13 (its saved-tensor hooks meet the
   mode's): the decoder checkpoints blocks with use_reentrant=True.

device "cuda": fake tensors can carry the device cuda:0 on a torch built
without CUDA, but autograd cannot run on them there (its AccumulateGrad
asks for a CUDA device guard, and the process aborts). The session then
makes fake CPU tensors (fm.device is cpu) and says it stands for CUDA
(fm.stands_for): the ops and their shapes are the same on both devices
except where an operator picks its kernel by device (torch 1.13's dropout
keeps a one-byte mask on CUDA, a mask of the input's type on the CPU;
the Llama-shaped presets have no dropout). docs/llm.md.
"""

import contextlib

import torch
from torch import nn
from torch._subclasses.fake_tensor import (DataDependentOutputException,
                                           DynamicOutputShapeException, FakeTensor,
                                           FakeTensorMode, UnsupportedFakeTensorException)


class FakeOpError(RuntimeError):
    """An op that cannot run on fake tensors (no meta kernel, a
    data-dependent shape, a real tensor among fake ones)."""

    def __init__(self, op, why):
        super().__init__("op %s cannot run on fake tensors: %s" % (op, why))
        self.op = op
        self.why = why


class _NoRecordFunction:
    """Stands in for torch.autograd.profiler.record_function (trap 1)."""

    def __init__(self, name, args=None):
        self.name = name
        # torch's own makes a placeholder tensor here (torch.zeros(1), on
        # the default device) that entering replaces by the profiler's
        # handle: made and dropped the same, so that the records match a
        # real recording's.
        self.handle = torch.zeros(1)

    def __enter__(self):
        self.handle = None
        return self

    def __exit__(self, *exc):
        return False


_active = []  # the sessions entered, innermost last


def active():
    """The innermost fake session entered, or None."""
    return _active[-1] if _active else None


def is_fake(t):
    return isinstance(t, FakeTensor)


class FakeSession:
    """A context in which tensors made are fake (see the module's doc)."""

    def __init__(self, device="cpu"):
        dev = torch.device(device)
        if dev.type == "cuda" and dev.index is None:
            dev = torch.device("cuda", 0)
        if dev.type not in ("cpu", "cuda"):
            raise ValueError("device %s: fake tensors here are cpu or cuda" % device)
        self.stands_for = dev
        self.device = dev if dev.type == "cpu" or torch.cuda.is_available() \
            else torch.device("cpu")
        _register_meta_impls()
        self.mode = FakeTensorMode(allow_fallback_kernels=False)
        self._saved = None
        self._stack = contextlib.ExitStack()

    def __enter__(self):
        import torch.autograd.profiler as prof
        self._saved = prof.record_function
        prof.record_function = _NoRecordFunction
        try:
            self.mode.__enter__()
        except BaseException:
            self._restore()
            raise
        _active.append(self)
        return self

    def __exit__(self, *exc):
        _active.remove(self)
        try:
            self.mode.__exit__(*exc)
        finally:
            self._restore()
        return False

    def _restore(self):
        import torch.autograd.profiler as prof
        if self._saved is not None:
            prof.record_function = self._saved
            self._saved = None

    def move(self, module):
        """Put MODULE's parameters and buffers on the session's device (in
        place; returns MODULE). module.to("cuda") leaves fake tensors where
        they were in torch 1.13: each is replaced by a fake tensor of the
        same shape and type on the device, a parameter shared by two
        modules (tied weights) by one."""
        if all(t.device == self.device for t in
               list(module.parameters()) + list(module.buffers())):
            return module
        done = {}
        for m in module.modules():
            for name, p in list(m._parameters.items()):
                if p is None:
                    continue
                if id(p) not in done:
                    done[id(p)] = nn.Parameter(self.tensor(p), requires_grad=p.requires_grad)
                m._parameters[name] = done[id(p)]
            for name, b in list(m._buffers.items()):
                if b is None:
                    continue
                if id(b) not in done:
                    done[id(b)] = self.tensor(b)
                m._buffers[name] = done[id(b)]
        return module

    def tensor(self, t):
        """A fake copy of real tensor T on the session's device."""
        from torch.utils._mode_utils import no_dispatch
        with no_dispatch():
            meta = torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta")
        return FakeTensor(self.mode, meta, self.device)


_registered = []


def _register_meta_impls():
    """Fake implementations of the ops torch 1.13 has no meta kernel for
    and that training steps need (once per process; FakeTensorMode's own
    registry, so only fake tensors see them)."""
    if _registered:
        return
    from torch._subclasses import fake_tensor as ft
    aten = torch.ops.aten

    def fake_like(mode, t, shape=None, dtype=None):
        meta = torch.empty(t.shape if shape is None else shape,
                           dtype=t.dtype if dtype is None else dtype, device="meta")
        return FakeTensor(mode, meta, t.fake_device)

    @ft.register_op_impl(aten.convolution_backward.default)
    def convolution_backward(mode, func, grad_output, input, weight, bias_sizes, stride,
                             padding, dilation, transposed, output_padding, groups,
                             output_mask):
        # Each gradient has its tensor's shape (the bias's: bias_sizes),
        # as the CPU and CUDA kernels make them.
        gi = fake_like(mode, input) if output_mask[0] else None
        gw = fake_like(mode, weight) if output_mask[1] else None
        gb = None
        if output_mask[2]:
            gb = fake_like(mode, grad_output, shape=[grad_output.shape[1]])
        return gi, gw, gb

    _registered.append(convolution_backward)


def fake_mode(device="cpu"):
    """A FakeSession: `with fake_mode("cuda") as fm:` makes the tensors
    built inside it fake, on fm.device."""
    return FakeSession(device)


def why_not_fake(exc):
    """A readable reason for an exception a fake op raised, or None when
    the exception is not about fake tensors."""
    if isinstance(exc, DynamicOutputShapeException):
        return ("its output's shape depends on the data (DynamicOutputShapeException); "
                "fake tensors have none (repeat_interleave with a tensor of repeats, "
                "nonzero, boolean indexing: write it with shapes known in advance, e.g. "
                "expand + reshape)")
    if isinstance(exc, DataDependentOutputException):
        return "its output depends on the data (.item(), a comparison's answer)"
    if isinstance(exc, UnsupportedFakeTensorException):
        return "fake tensors do not support it (%s)" % exc
    if isinstance(exc, NotImplementedError):
        return ("it has no meta kernel, and a fallback to the real kernel would allocate "
                "real memory (foreach=True optimizers: build them with foreach=False); "
                "torch says: %s" % str(exc).splitlines()[0] if str(exc) else "no meta kernel")
    return None
