"""models.py: the models `python3 -m rematsim_torch record` knows, their
batches and losses, and the training step it records.

- `torchvision:NAME`: any torchvision classification model (randomly
  initialised: nothing is downloaded), images of --image pixels (299 for
  inception_v3, 224 otherwise), --classes classes, cross-entropy; models
  with auxiliary classifiers (inception_v3, googlenet) in training add 0.4
  times each auxiliary loss, as torchvision's reference training does.
- `gpt2`: a GPT-2-style decoder built from torch.nn (token and position
  embeddings, an nn.Sequential of --layers pre-norm blocks of causal
  nn.MultiheadAttention and a GELU MLP of 4x width, dropout 0.1, a final
  LayerNorm, and an output
  layer that shares the token embedding's weight), next-token
  cross-entropy on --seq tokens of a --vocab vocabulary.
- `mlp`: --layers Linear+ReLU layers of --width units on --width inputs,
  10 classes (small; the tests use it).
"""

import torch
from torch import nn
from torch.nn import functional as F


class ModelError(Exception):
    """A model that can not be built; `status` is the exit status."""

    def __init__(self, message, status=64):
        super().__init__(message)
        self.status = status


class Block(nn.Module):
    """One GPT-2 block: x + attn(ln1(x)), then x + mlp(ln2(x)), causal
    (its own copy of the mask, a buffer not saved in state_dict, so that
    the blocks are an nn.Sequential: a run of them is one checkpoint)."""

    def __init__(self, width, heads, dropout, seq):
        super().__init__()
        self.register_buffer("mask", torch.ones(seq, seq, dtype=torch.bool).triu(1),
                             persistent=False)
        self.ln1 = nn.LayerNorm(width)
        self.attn = nn.MultiheadAttention(width, heads, dropout=dropout, batch_first=True)
        self.drop = nn.Dropout(dropout)
        self.ln2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(approximate="tanh"),
                                 nn.Linear(4 * width, width), nn.Dropout(dropout))

    def forward(self, x):
        h = self.ln1(x)
        a, _ = self.attn(h, h, h, attn_mask=self.mask, need_weights=False)
        x = x + self.drop(a)
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, layers, width, heads, seq, vocab, dropout=0.1):
        super().__init__()
        self.wte = nn.Embedding(vocab, width)
        self.wpe = nn.Embedding(seq, width)
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.Sequential(*(Block(width, heads, dropout, seq) for _ in range(layers)))
        self.ln_f = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        self.head.weight = self.wte.weight  # weight tying, as in GPT-2
        self.register_buffer("pos", torch.arange(seq))
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=0.02)

    def forward(self, idx):
        x = self.drop(self.wte(idx) + self.wpe(self.pos))
        return self.head(self.ln_f(self.blocks(x)))


class Spec:
    """What the recorder needs of a model."""

    def __init__(self, module, make_batch, loss, title, desc, sizes):
        self.module = module
        self.make_batch = make_batch  # (generator) -> (inputs, target) on the CPU
        self.loss = loss  # (output, target) -> scalar
        self.title = title
        self.desc = desc
        self.sizes = sizes


def _aux_loss(out, target):
    if isinstance(out, torch.Tensor):
        return F.cross_entropy(out, target)
    main, aux = out[0], [o for o in out[1:] if o is not None]
    loss = F.cross_entropy(main, target)
    for o in aux:
        loss = loss + 0.4 * F.cross_entropy(o, target)
    return loss


def _torchvision(name, a):
    try:
        import torchvision.models as tvm
    except ImportError:
        raise ModelError("torchvision is not installed (Debian: python3-torchvision)", 69)
    known = tvm.list_models(module=tvm)
    if name not in known:
        other = [n for n in tvm.list_models() if n == name]
        why = ("is not a classification model" if other
               else "is not a torchvision model")
        raise ModelError("torchvision:%s %s; the classification models are: %s"
                         % (name, why, " ".join(known)))
    builder = tvm.get_model_builder(name)
    kw = dict(weights=None, num_classes=a.classes)
    if name in ("inception_v3", "googlenet"):
        kw.update(aux_logits=True, init_weights=True)
    image = a.image or (299 if name == "inception_v3" else 224)
    module = builder(**kw)
    batch, classes = a.batch, a.classes

    def make_batch(g):
        return (torch.randn(batch, 3, image, image, generator=g),
                torch.randint(classes, (batch,), generator=g))

    return Spec(module, make_batch, _aux_loss, name,
                "%dx%d, batch %d" % (image, image, batch),
                {"batch": batch, "image": image, "classes": classes})


def _gpt2(a):
    layers, width, heads = a.layers or 12, a.width or 256, a.heads or 8
    seq, vocab, batch = a.seq or 128, a.vocab or 8192, a.batch
    if width % heads:
        raise ModelError("gpt2: --width %d is not a multiple of --heads %d" % (width, heads))
    module = GPT(layers, width, heads, seq, vocab)

    def make_batch(g):
        return (torch.randint(vocab, (batch, seq), generator=g),
                torch.randint(vocab, (batch, seq), generator=g))

    def loss(out, target):
        return F.cross_entropy(out.reshape(-1, vocab), target.reshape(-1))

    return Spec(module, make_batch, loss, "GPT-2 decoder",
                "%d layers, width %d, %d heads, %d tokens, vocab %d, batch %d"
                % (layers, width, heads, seq, vocab, batch),
                {"batch": batch, "layers": layers, "width": width, "heads": heads,
                 "seq": seq, "vocab": vocab})


def _mlp(a):
    layers, width, batch = a.layers or 3, a.width or 64, a.batch
    mods = []
    for _ in range(layers):
        mods += [nn.Linear(width, width), nn.ReLU()]
    module = nn.Sequential(*mods, nn.Linear(width, 10))

    def make_batch(g):
        return (torch.randn(batch, width, generator=g),
                torch.randint(10, (batch,), generator=g))

    return Spec(module, make_batch, F.cross_entropy, "MLP",
                "%d x %d units, batch %d" % (layers, width, batch),
                {"batch": batch, "layers": layers, "width": width, "classes": 10})


LLM_MODELS = ("llama", "hf")


def is_llm(name):
    from . import llm
    return name in LLM_MODELS or name in llm.PRESETS


def _llm(a):
    """A decoder of llm.py: a preset (llama-7b, ...), `llama` shaped by the
    flags, or `hf` read from --config (a Hugging Face config.json)."""
    from . import llm
    m = a.model
    try:
        if getattr(a, "config", None):
            if m not in ("hf",) and m not in llm.PRESETS and m != "llama":
                raise ModelError("--config goes with --model hf")
            c = llm.from_hf(a.config)
        elif m == "hf":
            raise ModelError("--model hf reads a Hugging Face config.json: give --config FILE")
        elif m in llm.PRESETS:
            c = llm.preset(m)
        else:
            c = llm.Config(arch="llama", vocab=a.vocab or 32000, width=a.width or 256,
                           layers=a.layers or 2, heads=a.heads or 4,
                           kv_heads=getattr(a, "kv_heads", None),
                           ffn=getattr(a, "ffn", None) or None,
                           seq=a.seq or 128, tied=bool(getattr(a, "tied", False)))
            if c.ffn == 4 * c.width and getattr(a, "ffn", None) is None:
                # Llama's rule: 2/3 of 4x width, rounded up to a multiple of 256 (64 if small).
                q = 256 if c.width >= 1024 else 64
                c.ffn = -(-(8 * c.width // 3) // q) * q
        # Flags given with a preset or a config override its shape.
        for flag, field in (("layers", "layers"), ("vocab", "vocab")):
            v = getattr(a, flag, None)
            if v and m != "llama":
                setattr(c, field, v)
        seq = a.seq or min(c.seq, 4096)
        c.check()
        module = llm.build(c, seq, dtype=a.dtype, checkpoint=getattr(a, "checkpoint_blocks",
                                                                      False))
    except llm.ConfigError as e:
        raise ModelError(str(e), e.status)
    batch, vocab = a.batch, c.vocab

    def make_batch(g):
        return (torch.randint(vocab, (batch, seq), generator=g),
                torch.randint(vocab, (batch, seq), generator=g))

    spec = Spec(module, make_batch, llm.loss_fn(vocab), m if m != "hf" else c.arch,
                "%s, %d tokens, batch %d, %s" % (c.describe(), seq, batch, a.dtype),
                dict(c.as_dict(), batch=batch, seq_len=seq, parameters=c.parameters()))
    spec.typed = True  # built in its dtype (mixed: float32 parameters)
    spec.config = c
    return spec


def resolve(a):
    """Build the model named by a.model (see the module's doc)."""
    m = a.model
    if is_llm(m):
        return _llm(a)
    if m.startswith("torchvision:"):
        return _torchvision(m.split(":", 1)[1], a)
    if m == "gpt2":
        return _gpt2(a)
    if m == "mlp":
        return _mlp(a)
    raise ModelError("unknown model '%s': give torchvision:NAME (a torchvision "
                     "classification model, e.g. torchvision:resnet50), gpt2 or mlp" % m)


def train_step(model, optimizer, inputs, target, loss_fn, rec=None, step=True):
    """One training iteration: forward, loss, backward, optimizer step
    (unless STEP is false). Gradients are dropped first (set to None), so
    the previous iteration's are not alive during this one. REC, when
    given, annotates BACKWARD."""
    optimizer.zero_grad(set_to_none=True)
    out = model(inputs)
    loss = loss_fn(out, target)
    del out
    if rec is not None:
        rec.mark_backward()
    loss.backward()
    if step:
        optimizer.step()
    return loss
