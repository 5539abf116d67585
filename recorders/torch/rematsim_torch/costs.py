"""costs.py: each op's floating-point operations and the bytes it moves,
from the shapes of its tensors alone (so a fake recording and a real one
give the same numbers). The table, by op class (docs/llm.md has it too):

| class       | ops (aten)                                    | FLOPs                         |
|-------------|-----------------------------------------------|-------------------------------|
| matmul      | mm, addmm, bmm, baddbmm, addbmm, mv, addmv, dot | 2 M N K per product (+ M N for the add of addmm/baddbmm) |
| conv        | convolution, convolution_backward             | 2 x out x Cin/g x kernel (forward; transposed: per input); backward: the same per gradient asked, the bias's = its grad_output |
| softmax     | _softmax, _log_softmax and their backwards    | 5 per element (max, sub, exp, sum, div) |
| norm        | native_layer_norm, native_batch_norm, and backwards | 8 per input element    |
| embedding   | embedding, embedding_dense_backward, index_select, gather, scatter_add | 0 (forward) / 1 per grad element (backward) |
| reduction   | sum, mean, amax, max, min, nll_loss*, var, std, norm, ... | 1 per input element |
| copy        | _to_copy, copy_, clone, cat, stack, ... (permuting, casting) | 0           |
| fill        | zeros, ones, full, fill_, zero_, empty*       | 0                             |
| view        | view, t, transpose, expand, slice, select, ... | 0 (and 0 bytes)              |
| elementwise | everything else (add, mul, silu, gelu, rsqrt, the optimizers' add_, addcdiv_, ...) | 1 per output element (per written element for in-place) |

Bytes: each tensor argument read once, counting its distinct elements (a
broadcast dimension, stride 0, counts once), plus each result written
once (a view's result: nothing); empty* write nothing; embedding reads
the rows it gathers (the result's size), not the whole table; a written
argument (in place) counts once more, as written.
"""

import torch

VERSION = "1"

_MATMUL = {"mm", "addmm", "bmm", "baddbmm", "addbmm", "mv", "addmv", "dot", "vdot",
           "_addmm_activation"}
_CONV = {"convolution", "convolution_backward", "_convolution", "conv2d", "conv1d",
         "cudnn_convolution", "mkldnn_convolution"}
_SOFTMAX = {"_softmax", "_log_softmax", "_softmax_backward_data",
            "_log_softmax_backward_data", "softmax", "log_softmax"}
_NORM = {"native_layer_norm", "native_layer_norm_backward", "native_batch_norm",
         "native_batch_norm_backward", "_native_batch_norm_legit", "native_group_norm",
         "native_group_norm_backward", "cudnn_batch_norm", "cudnn_batch_norm_backward"}
_EMBED = {"embedding", "embedding_dense_backward", "index_select", "gather", "scatter_add",
          "scatter_add_", "index_add_", "index", "index_put_", "_index_put_impl_"}
_REDUCE = {"sum", "mean", "amax", "amin", "max", "min", "var", "std", "norm", "prod",
           "nll_loss_forward", "nll_loss_backward", "nll_loss2d_forward",
           "nll_loss2d_backward", "linalg_vector_norm", "var_mean", "std_mean", "argmax",
           "argmin", "all", "any", "logsumexp", "cumsum", "_fused_sdp_choice"}
_COPY = {"_to_copy", "copy_", "clone", "cat", "stack", "contiguous", "_copy_from",
         "_copy_from_and_resize", "repeat", "flip", "roll", "constant_pad_nd", "tril", "triu",
         "masked_fill", "masked_fill_", "where", "_reshape_alias_copy", "expand_copy",
         "col2im", "im2col", "max_pool2d_with_indices", "max_pool2d_with_indices_backward",
         "avg_pool2d", "avg_pool2d_backward", "_adaptive_avg_pool2d",
         "_adaptive_avg_pool2d_backward", "lift_fresh", "lift_fresh_copy", "tril_", "triu_"}
_FILL = {"zeros", "ones", "full", "fill_", "zero_", "zeros_like", "ones_like", "full_like",
         "new_zeros", "new_ones", "new_full", "scalar_tensor", "arange", "empty",
         "empty_like", "empty_strided", "new_empty", "new_empty_strided", "randint",
         "randn", "rand", "normal_", "uniform_", "bernoulli_", "random_"}
_EMPTY = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided"}
_VIEW = {"view", "_unsafe_view", "t", "transpose", "permute", "expand", "slice", "select",
         "unsqueeze", "squeeze", "as_strided", "alias", "detach", "split", "split_with_sizes",
         "chunk", "unbind", "diagonal", "narrow", "view_as", "reshape", "_reshape_alias",
         "unfold", "expand_as", "squeeze_", "unsqueeze_", "t_", "transpose_", "detach_",
         "as_strided_", "numpy_T", "movedim", "swapaxes", "_neg_view", "_conj",
         "view_as_real", "view_as_complex", "resize_", "set_"}
_PER_ELEMENT = {"softmax": 5, "norm": 8}

CLASSES = ("matmul", "conv", "softmax", "norm", "embedding", "reduction", "elementwise",
           "copy", "fill", "view")


def op_class(name):
    """The class of op NAME (aten's name without namespace or overload, or
    a C logger's op name: docs/llm.md)."""
    n = name.split("::")[-1].split(".")[0]
    if n in _MATMUL:
        return "matmul"
    if n in _CONV:
        return "conv"
    if n in _SOFTMAX or n in ("softmax_backward",):
        return "softmax"
    if n in _NORM or n in ("layer_norm", "layer_norm_backward"):
        return "norm"
    if n in _EMBED:
        return "embedding"
    if n in _REDUCE or n in ("sum_rows", "cross_entropy", "cross_entropy_backward"):
        return "reduction"
    if n in _COPY or n in ("permute0213",):
        return "copy"
    if n in _FILL:
        return "fill"
    if n in _VIEW:
        return "view"
    return "elementwise"


def _numel(t):
    n = 1
    for s in t.shape:
        n *= s
    return n


def phys_bytes(t):
    """The bytes of T's distinct elements: stride-0 (broadcast) dimensions
    count once."""
    n = 1
    for s, st in zip(t.shape, t.stride()):
        if st != 0:
            n *= s
    if any(s == 0 for s in t.shape):
        n = 0
    return n * t.element_size()


def _tensors(x):
    if isinstance(x, torch.Tensor):
        yield x
    elif isinstance(x, (list, tuple)):
        for e in x:
            yield from _tensors(e)


def _arg(args, kwargs, i, name, default=None):
    if len(args) > i:
        return args[i]
    return kwargs.get(name, default)


def _matmul_flops(n, args, kwargs, out):
    if n in ("mm", "bmm"):
        a = args[0]
        return 2 * _numel(a) * out.shape[-1]
    if n in ("addmm", "baddbmm", "_addmm_activation"):
        a = args[1]
        return 2 * _numel(a) * out.shape[-1] + _numel(out)
    if n == "addbmm":
        b1, b2 = args[1], args[2]
        return 2 * _numel(b1) * b2.shape[-1] + _numel(out)
    if n in ("mv", "dot", "vdot"):
        return 2 * _numel(args[0])
    if n == "addmv":
        return 2 * _numel(args[1]) + _numel(out)
    return 0


def _conv_flops(n, args, kwargs, out):
    if n == "convolution_backward":
        grad_out, inp, weight = args[0], args[1], args[2]
        transposed = _arg(args, kwargs, 7, "transposed", False)
        mask = _arg(args, kwargs, 10, "output_mask", [True, True, True])
        per_w = 1
        for s in weight.shape[1:]:
            per_w *= s
        fwd = 2 * (_numel(inp) if transposed else _numel(grad_out)) * per_w
        return fwd * (int(bool(mask[0])) + int(bool(mask[1]))) + \
            (_numel(grad_out) if mask[2] else 0)
    inp, weight = args[0], args[1]
    transposed = _arg(args, kwargs, 6, "transposed", False)
    per_w = 1
    for s in weight.shape[1:]:
        per_w *= s
    o = out if isinstance(out, torch.Tensor) else out[0]
    return 2 * (_numel(inp) if transposed else _numel(o)) * per_w


def op_cost(func, args, kwargs, out):
    """(flops, bytes) of aten op FUNC run on ARGS, KWARGS giving OUT."""
    schema = func._schema
    n = schema.name.split("::")[-1]
    cls = op_class(n)
    if cls == "view":
        return (0, 0)
    ins = []
    written = []
    pos = 0
    for a in schema.arguments:
        v = None
        if not a.kwarg_only and pos < len(args):
            v = args[pos]
            pos += 1
        elif a.name in kwargs:
            v = kwargs[a.name]
        if v is None:
            continue
        w = a.alias_info is not None and a.alias_info.is_write
        for t in _tensors(v):
            (written if w else ins).append(t)
    outs = [t for t in _tensors(out) if not any(t is w for w in written)]
    out_bytes = sum(phys_bytes(t) for t in outs)
    if cls == "fill":
        if n in _EMPTY:
            return (0, 0)
        return (0, out_bytes + sum(phys_bytes(t) for t in written))
    in_bytes = sum(phys_bytes(t) for t in ins)
    if cls == "embedding" and n == "embedding":
        # Reads the rows it gathers (the result's size) and the indices.
        in_bytes = out_bytes + phys_bytes(args[1])
    wbytes = sum(phys_bytes(t) for t in written)
    # A written tensor is read and written, except by a copy or a fill,
    # which only write it.
    total = in_bytes + out_bytes + (1 if cls in ("copy", "fill") else 2) * wbytes
    elems = max([_numel(t) for t in outs + written] or [0])
    if cls == "matmul":
        o = outs[0] if outs else written[0]
        flops = _matmul_flops(n, args, kwargs, o)
    elif cls == "conv":
        flops = _conv_flops(n, args, kwargs, out)
    elif cls in ("copy", "fill"):
        flops = 0
    elif cls == "embedding":
        flops = 0 if n == "embedding" else elems
    elif cls == "reduction":
        flops = max([_numel(t) for t in ins] or [elems])
    elif cls in _PER_ELEMENT:
        flops = _PER_ELEMENT[cls] * max([_numel(t) for t in ins] or [elems])
    else:
        flops = elems
    return (int(flops), int(total))


def dtype_of(func, args, out):
    """The compute type of an op: its first floating-point tensor argument's
    (its result's when it has none)."""
    for t in list(_tensors(args)) + list(_tensors(out)):
        if t.is_floating_point():
            return t.dtype
    return None
