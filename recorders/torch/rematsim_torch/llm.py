"""llm.py: the decoder-only language models people train, in plain torch.nn,
shaped by flags, a preset or a Hugging Face config.json (weights are never
read). One family covers Llama, Mistral, Qwen2 and GPT-2:

- token embedding; learned position embedding (GPT-2) or rotary position
  embeddings (RoPE, applied to queries and keys: the others);
- `layers` pre-norm blocks (`layers.N`), each x + attn(norm1(x)) then
  x + mlp(norm2(x)); norms are RMSNorm or LayerNorm;
- attention with `heads` query heads and `kv_heads` key/value heads
  (grouped-query attention; kv_heads == heads is multi-head attention),
  causal, computed as torch 1.13 computes it eagerly: the (seq x seq)
  scores of each head, a softmax, a product with the values. Key/value
  heads are repeated by expand + reshape (fake tensors refuse
  repeat_interleave, trap 3 of fake.py);
- MLP: SwiGLU (down(silu(gate(x)) * up(x)), `ffn` wide) or GELU (GPT-2);
- a final norm and the output layer, tied to the token embedding or not;
- biases as the architecture has them (GPT-2 everywhere, Qwen2 on q/k/v).

Precision: float32, bfloat16, float16 (parameters and compute in that
type), or "mixed": float32 parameters (the optimizer's master weights)
with bfloat16 compute, the casts written out as autocast makes them on
a GPU (each matmul's weight cast to bfloat16 per use, norms and softmax
and the loss in float32). torch 1.13's autocast does not reach fake
tensors, hence explicit casts.

Checkpointed blocks: `checkpoint=True` runs each block under
torch.utils.checkpoint with use_reentrant=True (the non-reentrant one
fails in backward under a dispatch mode in 1.13: trap 4).
"""

import json
import math

import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.checkpoint import checkpoint as _checkpoint


class ConfigError(Exception):
    """A config that cannot shape a model; `status` is the exit status."""

    def __init__(self, message, status=65):
        super().__init__(message)
        self.status = status


class Config:
    """The shape of a decoder. Fields (defaults are Llama's):
    vocab, width, layers, heads, kv_heads, ffn, seq (positions),
    norm "rms"|"layer", eps, pos "rope"|"learned", rope_theta,
    mlp "swiglu"|"gelu", tied, qkv_bias, bias (every other linear and the
    norms' bias: GPT-2), dropout (GPT-2's 0.1; 0 leaves dropout out)."""

    FIELDS = ("vocab", "width", "layers", "heads", "kv_heads", "ffn", "seq", "norm", "eps",
              "pos", "rope_theta", "mlp", "tied", "qkv_bias", "bias", "dropout", "arch")

    def __init__(self, **kw):
        self.vocab = 32000
        self.width = 4096
        self.layers = 32
        self.heads = 32
        self.kv_heads = None
        self.ffn = None
        self.seq = 4096
        self.norm = "rms"
        self.eps = 1e-5
        self.pos = "rope"
        self.rope_theta = 10000.0
        self.mlp = "swiglu"
        self.tied = False
        self.qkv_bias = False
        self.bias = False
        self.dropout = 0.0
        self.arch = "llama"
        for k, v in kw.items():
            if k not in self.FIELDS:
                raise ConfigError("unknown decoder field '%s'" % k, 64)
            setattr(self, k, v)
        if self.kv_heads is None:
            self.kv_heads = self.heads
        if self.ffn is None:
            self.ffn = 4 * self.width
        self.check()

    def check(self):
        for k in ("vocab", "width", "layers", "heads", "kv_heads", "ffn", "seq"):
            v = getattr(self, k)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ConfigError("%s must be a whole number of 1 or more, not %r" % (k, v))
        if self.width % self.heads:
            raise ConfigError("width %d is not a multiple of heads %d"
                              % (self.width, self.heads))
        if self.heads % self.kv_heads:
            raise ConfigError("heads %d is not a multiple of kv_heads %d"
                              % (self.heads, self.kv_heads))
        if self.pos == "rope" and (self.width // self.heads) % 2:
            raise ConfigError("rotary embeddings need an even head size, not %d"
                              % (self.width // self.heads))
        if self.norm not in ("rms", "layer") or self.pos not in ("rope", "learned") \
                or self.mlp not in ("swiglu", "gelu"):
            raise ConfigError("norm/pos/mlp: %s/%s/%s is not a known kind"
                              % (self.norm, self.pos, self.mlp))
        if not 0 <= self.dropout < 1:
            raise ConfigError("dropout %r is not in [0, 1)" % self.dropout)
        # Weights, gradients and two optimizer states in float32, and the
        # (seq x seq) scores of a head: their bytes must stay below 2^63
        # (the log's sizes are 64-bit; the format allows up to 2^62).
        if 16 * self.parameters() >= 2 ** 62 or 8 * self.seq * self.seq * self.heads >= 2 ** 62:
            raise ConfigError("sizes too large: %d parameters, %d positions, %d heads make "
                              "tensors or a state of 2^62 bytes or more (the log's limit)"
                              % (self.parameters(), self.seq, self.heads))

    @property
    def head_dim(self):
        return self.width // self.heads

    def parameters(self):
        """The parameter count, from the shapes (the tests hold the model's
        own count and the published ones to it)."""
        w, hd = self.width, self.head_dim
        kv = self.kv_heads * hd
        attn = w * w + 2 * w * kv + w * w
        attn += (w + 2 * kv) if self.qkv_bias or self.bias else 0
        attn += w if self.bias else 0
        if self.mlp == "swiglu":
            mlp = 3 * w * self.ffn + ((2 * self.ffn + w) if self.bias else 0)
        else:
            mlp = 2 * w * self.ffn + ((self.ffn + w) if self.bias else 0)
        norm = w * (2 if self.norm == "layer" and self.bias else 1)
        block = attn + mlp + 2 * norm
        total = self.layers * block + norm + self.vocab * w
        if self.pos == "learned":
            total += self.seq * w
        if not self.tied:
            total += self.vocab * w
        return total

    def as_dict(self):
        return {k: getattr(self, k) for k in self.FIELDS}

    def describe(self):
        return ("%s: %d layers, width %d, %d heads (%d kv), ffn %d, vocab %d, %s%s"
                % (self.arch, self.layers, self.width, self.heads, self.kv_heads, self.ffn,
                   self.vocab, "tied" if self.tied else "untied",
                   ", %s params" % _human(self.parameters())))


def _human(n):
    for unit, d in (("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= d:
            return "%.2f%s" % (n / d, unit)
    return str(n)


# Presets: the shapes of published models, with their published parameter
# counts (tests/torch/llm-check.py holds Config.parameters() and the built
# model to them).
PRESETS = {
    # Llama 3.2 1B (meta-llama/Llama-3.2-1B config.json): 1,235,814,400.
    "llama-1b": (dict(arch="llama", vocab=128256, width=2048, layers=16, heads=32,
                      kv_heads=8, ffn=8192, seq=131072, rope_theta=500000.0, tied=True),
                 1235814400),
    # Llama 2 7B (meta-llama/Llama-2-7b-hf): 6,738,415,616.
    "llama-7b": (dict(arch="llama", vocab=32000, width=4096, layers=32, heads=32,
                      ffn=11008, seq=4096), 6738415616),
    # Llama 2 13B: 13,015,864,320.
    "llama-13b": (dict(arch="llama", vocab=32000, width=5120, layers=40, heads=40,
                       ffn=13824, seq=4096), 13015864320),
    # Llama 2 70B (grouped-query attention, 8 kv heads): 68,976,648,192.
    "llama-70b": (dict(arch="llama", vocab=32000, width=8192, layers=80, heads=64,
                       kv_heads=8, ffn=28672, seq=4096), 68976648192),
    # GPT-2 XL (openai-community/gpt2-xl): 1,557,611,200.
    "gpt2-xl": (dict(arch="gpt2", vocab=50257, width=1600, layers=48, heads=25, ffn=6400,
                     seq=1024, norm="layer", pos="learned", mlp="gelu", tied=True,
                     qkv_bias=True, bias=True, dropout=0.1), 1557611200),
}


def preset(name):
    if name not in PRESETS:
        raise ConfigError("unknown preset '%s' (the presets: %s)"
                          % (name, ", ".join(sorted(PRESETS))), 64)
    return Config(**PRESETS[name][0])


# ---- config.json ----

# Fields of a Hugging Face config.json that do not change the shapes or the
# memory of a training step (ids of special tokens, initialisation, the
# inference cache, bookkeeping): accepted and ignored.
_IGNORED = frozenset((
    "architectures", "model_type", "transformers_version", "torch_dtype", "bos_token_id",
    "eos_token_id", "pad_token_id", "initializer_range", "use_cache", "pretraining_tp",
    "rope_scaling", "_name_or_path", "output_attentions", "output_hidden_states",
    "return_dict", "is_decoder", "id2label", "label2id", "tokenizer_class", "name_or_path",
))
_IGNORED_BY_ARCH = {
    "llama": frozenset(("attention_dropout",)),
    "mistral": frozenset(("attention_dropout", "sliding_window")),
    "qwen2": frozenset(("attention_dropout", "sliding_window", "use_sliding_window",
                        "max_window_layers")),
    "gpt2": frozenset((
        "n_ctx", "summary_activation", "summary_first_dropout", "summary_proj_to_labels",
        "summary_type", "summary_use_proj", "task_specific_params", "scale_attn_weights",
        "scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn", "attn_pdrop",
        "n_special", "predict_special_tokens", "gradient_checkpointing")),
}
_ARCHS = {"LlamaForCausalLM": "llama", "MistralForCausalLM": "mistral",
          "Qwen2ForCausalLM": "qwen2", "GPT2LMHeadModel": "gpt2"}


def from_hf(path):
    """A Config from a Hugging Face config.json (Llama, Mistral, Qwen2,
    GPT-2). A field that would shape the model in a way this family does
    not build, or one this reader does not know, is a ConfigError naming
    it (status 65); so is an unknown architecture."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise ConfigError("%s: cannot read: %s" % (path, e.strerror or e), 66)
    try:
        j = json.loads(text)
    except ValueError as e:
        raise ConfigError("%s: not JSON: %s" % (path, e))
    if not isinstance(j, dict):
        raise ConfigError("%s: a config.json is a JSON object" % path)
    mt = j.get("model_type")
    archs = j.get("architectures") or []
    arch = mt if mt in _IGNORED_BY_ARCH else None
    if arch is None:
        for a in archs if isinstance(archs, list) else []:
            arch = _ARCHS.get(a, arch)
    if arch is None:
        raise ConfigError("%s: unknown architecture (model_type %r, architectures %r): "
                          "this reader knows llama, mistral, qwen2 and gpt2"
                          % (path, mt, archs))
    known = _IGNORED | _IGNORED_BY_ARCH[arch]

    def take(name, kind, default=None, required=True):
        if name not in j:
            if required and default is None:
                raise ConfigError("%s: %s config lacks \"%s\"" % (path, arch, name))
            return default
        v = j[name]
        ok = (isinstance(v, bool) if kind is bool else
              isinstance(v, int) and not isinstance(v, bool) if kind is int else
              isinstance(v, (int, float)) and not isinstance(v, bool) if kind is float else
              isinstance(v, kind))
        if not ok:
            raise ConfigError("%s: \"%s\" is %r, not %s" % (
                path, name, v, {bool: "true or false", int: "a whole number",
                                float: "a number", str: "a string"}[kind]))
        return v

    used = set()

    def field(name, kind, default=None, required=True):
        used.add(name)
        return take(name, kind, default, required)

    if arch == "gpt2":
        width = field("n_embd", int)
        act = field("activation_function", str, "gelu_new")
        if act not in ("gelu_new", "gelu", "gelu_pytorch_tanh"):
            raise ConfigError("%s: activation_function %r: this family builds GELU MLPs"
                              % (path, act))
        drop = [field(n, float, 0.1) for n in ("resid_pdrop", "embd_pdrop")]
        if drop[0] != drop[1]:
            raise ConfigError("%s: resid_pdrop and embd_pdrop differ (%r, %r): this family "
                              "has one dropout" % (path, drop[0], drop[1]))
        ffn = field("n_inner", int, None, required=False)
        cfg = dict(arch="gpt2", vocab=field("vocab_size", int), width=width,
                   layers=field("n_layer", int), heads=field("n_head", int),
                   ffn=ffn if ffn is not None else 4 * width, seq=field("n_positions", int),
                   norm="layer", eps=float(field("layer_norm_epsilon", float, 1e-5)),
                   pos="learned", mlp="gelu",
                   tied=field("tie_word_embeddings", bool, True), qkv_bias=True, bias=True,
                   dropout=float(drop[0]))
    else:
        act = field("hidden_act", str, "silu")
        if act != "silu":
            raise ConfigError("%s: hidden_act %r: this family builds SwiGLU (silu) MLPs"
                              % (path, act))
        width = field("hidden_size", int)
        heads = field("num_attention_heads", int)
        hd = field("head_dim", int, width // heads if heads else 1, required=False)
        if hd != width // max(heads, 1):
            raise ConfigError("%s: head_dim %d is not hidden_size / num_attention_heads "
                              "(%d): this family does not build it" % (path, hd, width // heads))
        if field("mlp_bias", bool, False, required=False):
            raise ConfigError("%s: mlp_bias true: this family builds MLPs without bias" % path)
        qkv_bias = arch == "qwen2"
        if field("attention_bias", bool, False, required=False):
            raise ConfigError("%s: attention_bias true (biases on q, k, v and o): this "
                              "family puts biases on q, k and v only (Qwen2)" % path)
        cfg = dict(arch=arch, vocab=field("vocab_size", int), width=width,
                   layers=field("num_hidden_layers", int), heads=heads,
                   kv_heads=field("num_key_value_heads", int, heads, required=False),
                   ffn=field("intermediate_size", int),
                   seq=field("max_position_embeddings", int),
                   eps=float(field("rms_norm_eps", float, 1e-6)),
                   rope_theta=float(field("rope_theta", float, 10000.0)),
                   tied=field("tie_word_embeddings", bool, False), qkv_bias=qkv_bias)
    extra = sorted(k for k in j if k not in known and k not in used)
    if extra:
        raise ConfigError("%s: unknown field%s %s for %s: this reader does not know what "
                          "%s would change" % (path, "s" if len(extra) > 1 else "",
                                               ", ".join('"%s"' % k for k in extra), arch,
                                               "they" if len(extra) > 1 else "it"))
    try:
        return Config(**cfg)
    except ConfigError as e:
        raise ConfigError("%s: %s" % (path, e))


# ---- the model ----

class RMSNorm(nn.Module):
    """x / sqrt(mean(x^2) + eps) * weight, computed in float32 (as Llama's
    reference does), the result in x's type."""

    def __init__(self, width, eps, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(width, dtype=dtype))

    def forward(self, x):
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        w = self.weight if self.weight.dtype == x.dtype else self.weight.to(x.dtype)
        return w * h.to(x.dtype)


class _Linear(nn.Linear):
    """nn.Linear whose weight (and bias) are cast to the compute type per
    use when it differs from theirs (mixed precision)."""

    def forward(self, x):
        if x.dtype == self.weight.dtype:
            return F.linear(x, self.weight, self.bias)
        b = self.bias.to(x.dtype) if self.bias is not None else None
        return F.linear(x, self.weight.to(x.dtype), b)


def _rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        hd = c.head_dim
        self.heads, self.kv_heads, self.hd = c.heads, c.kv_heads, hd
        qb = c.qkv_bias or c.bias
        self.q = _Linear(c.width, c.heads * hd, bias=qb)
        self.k = _Linear(c.width, c.kv_heads * hd, bias=qb)
        self.v = _Linear(c.width, c.kv_heads * hd, bias=qb)
        self.o = _Linear(c.width, c.width, bias=c.bias)
        self.dropout = c.dropout

    def forward(self, x, mask, rope):
        b, s, _ = x.shape
        q = self.q(x).view(b, s, self.heads, self.hd).transpose(1, 2)
        k = self.k(x).view(b, s, self.kv_heads, self.hd).transpose(1, 2)
        v = self.v(x).view(b, s, self.kv_heads, self.hd).transpose(1, 2)
        if rope is not None:
            cos, sin = rope
            cos, sin = cos[:s].to(q.dtype), sin[:s].to(q.dtype)
            q = q * cos + _rotate_half(q) * sin
            k = k * cos + _rotate_half(k) * sin
        if self.kv_heads != self.heads:
            # Repeat each key/value head for its group of query heads:
            # expand (a view) + reshape (a copy), as repeat_interleave would.
            r = self.heads // self.kv_heads
            k = k[:, :, None].expand(b, self.kv_heads, r, s, self.hd).reshape(
                b, self.heads, s, self.hd)
            v = v[:, :, None].expand(b, self.kv_heads, r, s, self.hd).reshape(
                b, self.heads, s, self.hd)
        scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.hd)
        scores = scores.masked_fill(mask[:s, :s], float("-inf"))
        p = F.softmax(scores.float(), dim=-1).to(q.dtype)
        if self.dropout:
            p = F.dropout(p, self.dropout, self.training)
        out = torch.matmul(p, v).transpose(1, 2).reshape(b, s, -1)
        out = self.o(out)
        if self.dropout:
            out = F.dropout(out, self.dropout, self.training)
        return out


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.swiglu = c.mlp == "swiglu"
        if self.swiglu:
            self.gate = _Linear(c.width, c.ffn, bias=c.bias)
            self.up = _Linear(c.width, c.ffn, bias=c.bias)
            self.down = _Linear(c.ffn, c.width, bias=c.bias)
        else:
            self.up = _Linear(c.width, c.ffn, bias=c.bias)
            self.down = _Linear(c.ffn, c.width, bias=c.bias)
        self.dropout = c.dropout

    def forward(self, x):
        if self.swiglu:
            h = self.down(F.silu(self.gate(x)) * self.up(x))
        else:
            h = self.down(F.gelu(self.up(x), approximate="tanh"))
        if self.dropout:
            h = F.dropout(h, self.dropout, self.training)
        return h


def _norm(c):
    if c.norm == "rms":
        return RMSNorm(c.width, c.eps)
    return nn.LayerNorm(c.width, eps=c.eps, elementwise_affine=True)


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.norm1 = _norm(c)
        self.attn = Attention(c)
        self.norm2 = _norm(c)
        self.mlp = MLP(c)

    def forward(self, x, mask, rope):
        x = x + self.attn(_apply_norm(self.norm1, x), mask, rope)
        return x + self.mlp(_apply_norm(self.norm2, x))


def _apply_norm(norm, x):
    if isinstance(norm, nn.LayerNorm) and x.dtype != norm.weight.dtype:
        # Mixed precision: LayerNorm in float32 (autocast's rule).
        return norm(x.float()).to(x.dtype)
    return norm(x)


class Decoder(nn.Module):
    """A decoder of Config C; COMPUTE the compute type when it differs from
    the parameters' (mixed precision); CHECKPOINT: each block under a
    reentrant torch.utils.checkpoint."""

    def __init__(self, c, compute=None, checkpoint=False):
        super().__init__()
        self.config = c
        self.compute = compute
        self.checkpoint = checkpoint
        self.embed = nn.Embedding(c.vocab, c.width)
        self.pos = nn.Embedding(c.seq, c.width) if c.pos == "learned" else None
        self.layers = nn.ModuleList(Block(c) for _ in range(c.layers))
        self.norm = _norm(c)
        self.head = _Linear(c.width, c.vocab, bias=False)
        if c.tied:
            self.head.weight = self.embed.weight
        self.dropout = c.dropout

    def setup_buffers(self, seq):
        """The causal mask and RoPE tables for SEQ tokens (buffers, not
        saved in state_dict)."""
        c = self.config
        dev = self.embed.weight.device
        self.register_buffer("mask", torch.ones(seq, seq, dtype=torch.bool, device=dev).triu(1),
                             persistent=False)
        if c.pos == "rope":
            hd = c.head_dim
            inv = 1.0 / (c.rope_theta ** (torch.arange(0, hd, 2, device=dev).float() / hd))
            ang = torch.outer(torch.arange(seq, device=dev).float(), inv)
            ang = torch.cat((ang, ang), dim=-1)
            self.register_buffer("cos", ang.cos(), persistent=False)
            self.register_buffer("sin", ang.sin(), persistent=False)
        else:
            self.register_buffer("positions", torch.arange(seq, device=dev), persistent=False)

    def forward(self, idx):
        s = idx.shape[1]
        x = self.embed(idx)
        if self.pos is not None:
            x = x + self.pos(self.positions[:s])
        if self.compute is not None:
            x = x.to(self.compute)
        if self.dropout:
            x = F.dropout(x, self.dropout, self.training)
        rope = (self.cos, self.sin) if self.config.pos == "rope" else None
        for blk in self.layers:
            if self.checkpoint and self.training:
                x = _checkpoint(blk, x, self.mask, rope, use_reentrant=True)
            else:
                x = blk(x, self.mask, rope)
        x = _apply_norm(self.norm, x)
        return self.head(x)


def build(c, seq, dtype="float32", checkpoint=False):
    """The Decoder of Config C for SEQ tokens, its parameters in DTYPE
    (float32, bfloat16, float16, or mixed: float32 parameters with
    bfloat16 compute)."""
    if seq > c.seq:
        raise ConfigError("--seq %d is longer than the model's %d positions" % (seq, c.seq), 64)
    compute = torch.bfloat16 if dtype == "mixed" else None
    m = Decoder(c, compute=compute, checkpoint=checkpoint)
    if dtype not in ("float32", "mixed"):
        m = m.to(getattr(torch, dtype))
    m.setup_buffers(seq)
    return m


def loss_fn(vocab):
    def loss(out, target):
        # The logits in float32, as the Hugging Face models compute the loss.
        return F.cross_entropy(out.float().reshape(-1, vocab), target.reshape(-1))
    return loss

