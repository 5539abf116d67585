"""python3 -m rematsim_torch record|checkpoint ...: record one training
iteration of a torchvision model, a GPT-2-style decoder or a small MLP as
an op log; or plan checkpoints on module boundaries with rematsim, apply
them to the real model and measure it. Run with --help for the options
and exit statuses."""

import argparse
import json
import math
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time

from .oplog import check_output

USAGE_EXIT, DATA_EXIT, UNAVAILABLE_EXIT, SOFTWARE_EXIT, MEMORY_EXIT, CANTCREAT_EXIT, \
    IOERR_EXIT = 64, 65, 69, 70, 71, 73, 74

# The largest sizes taken (checked by argparse, before torch is imported:
# issue 40, H13): past them torch spends minutes or all memory before any
# message (--threads 100000 made a process that ignored SIGTERM and
# SIGINT; a huge --layers crashed under a memory cap).
LIMITS = {"batch": 1 << 20, "image": 16384, "classes": 1 << 20, "layers": 10000,
          "width": 1 << 16, "heads": 1 << 16, "seq": 1 << 16, "vocab": 1 << 24,
          "kv-heads": 1 << 16, "ffn": 1 << 20}


def max_threads():
    """--threads at most: 4 per CPU, at least 64."""
    return max(64, 4 * (os.cpu_count() or 1))

MODELS_HELP = """\
models:
  torchvision:NAME   a torchvision classification model with random weights
                     (resnet50, densenet121, inception_v3, mobilenet_v2, ...);
                     --image (default 224, inception_v3 299), --classes
  gpt2               a GPT-2-style decoder from torch.nn (tied embedding);
                     --layers (12) --width (256) --heads (8) --seq (128) --vocab (8192)
  mlp                --layers (3) Linear+ReLU of --width (64) units, 10 classes
  llama-1b llama-7b llama-13b llama-70b gpt2-xl
                     presets: the shapes of Llama 3.2 1B, Llama 2 7B/13B/70B and
                     GPT-2 XL (docs/llm.md); --seq (the model's positions, at
                     most 4096), --layers and --vocab override the preset
  llama              a Llama-shaped decoder (RMSNorm, rotary embeddings, SwiGLU,
                     grouped-query attention): --layers (2) --width (256) --heads (4)
                     --kv-heads (= heads) --ffn (Llama's rule) --vocab (32000)
                     --seq (128) --tied
  hf --config FILE   a decoder shaped by a Hugging Face config.json (Llama,
                     Mistral, Qwen2, GPT-2; no weight is read)
  The decoders take --dtype mixed (float32 parameters, bfloat16 compute),
  --checkpoint-blocks (each block under a reentrant checkpoint) and
  --optimizer adamw.
"""

RECORD_EPILOG = MODELS_HELP + """
The step: zero_grad(set_to_none=True), forward, loss, backward, and the
optimizer's step (SGD, plain as the C logger's demos or with --momentum,
or Adam; --no-step leaves it out, as the DTR paper's logs do). One warm-up
iteration runs unrecorded (it makes the optimizer's state), then the log
gets START, the parameters, buffers, optimizer state and batch as
CONSTANTs (held from the start, as torch holds them), and the measured
iteration: BACKWARD before the backward pass, each module call between
ANNOTATE ENTER and EXIT, each in-place update a view of the tensor it
writes (no new bytes, as in torch: docs/log-format.md).

Times: --clock thread (the default) is the CPU time of the recording
thread around each op (time.thread_time_ns), which does not count time
spent waiting for a core on a loaded machine; torch then runs on one
thread unless --threads says more (the other threads' work would not be
counted). --clock wall is the elapsed time. On CUDA, CUDA events. The
recorder's own share (the median time of an op doing no work) is taken
out of each time.

FILE gets the log (gzip if it ends in .gz) and FILE's .meta.json (FILE
without .gz/.log): device, versions, clock, arguments, loss,
peak_live_bytes and baseline_memory (the peaks an unbounded rematsim
replay reports), floor_memory (what it holds at the end). What is
recorded and what is not: recorders/torch/README.md.

exit statuses:
  0   success
  64  bad command line, or a model name that does not resolve
  69  unavailable: this Python has no torch, --device cuda without CUDA,
      torchvision missing
  70  the model or its training step raised (the message says what)
  73  the log can not be created (its folder is missing or unwritable, or
      FILE or its meta file is a folder, a symbolic link or not a regular
      file: both are written under temporary names and renamed into place)
  74  an I/O error while writing the log
Nothing is left under FILE or its meta file's name unless the status is 0.
"""

CHECKPOINT_EPILOG = MODELS_HELP + """
What it does: records one training iteration of the model (as `record`,
with its module calls), asks `rematsim solve LOG --modules` for plans
whose split points are module boundaries (-k: dp with K checkpoints, any
number of them, comma-separated; --budget: dp's fewest checkpoints whose
replayed peak fits B bytes), and for the plan without checkpoints and
each plan: builds the same model in a fresh process, wraps the modules
the plan names with torch.utils.checkpoint (non-reentrant, the RNG state
preserved), runs the iteration, and measures its peak with torch's own
accounting (torch.profiler with profile_memory on the CPU, whose tally of
allocations carries over between profiled runs in one process: hence a
process each; torch.cuda.max_memory_allocated on CUDA) and its time (the
fastest of --repeat runs). It prints per plan: the modules wrapped,
predicted and measured peak and their difference, predicted compute
overhead and measured time overhead (time varies with the machine's load:
it is reported, never checked).

Your own model: --factory MODULE:FUNCTION instead of --model. MODULE is a
module this Python imports (mypkg.models) or a .py file; FUNCTION, called
with no arguments after torch.manual_seed(--seed), returns (model, inputs),
(model, inputs, optimizer) or (model, inputs, optimizer, loss_fn), or a
dict with those keys. One iteration is: zero the gradients, model(*inputs),
the loss (loss_fn(output); without one, the output if it is one number,
else its sum), backward, optimizer.step() when there is an optimizer. The
model stays on the device the function puts it on. Every plan is measured
in a fresh process that imports MODULE and calls FUNCTION again (torch
1.13's CPU accounting is right only in a process's first profiled run), so
FUNCTION must build the same model each time. --threads and --seed apply;
the other model options (--batch, --dtype, ...) are the function's own.

exit statuses:
  0   success
  64  bad command line, a model name that does not resolve (--factory: no
      MODULE, no FUNCTION in it, not MODULE:FUNCTION), or a budget
      rematsim solve refuses at once (below the log's floor: its message
      names both numbers)
  65  no plan: no dp plan on module boundaries fits the budget, or the
      model has no module a checkpoint can wrap; --factory's FUNCTION
      returned something else than the above
  69  unavailable: this Python has no torch, rematsim is not built,
      --device cuda without CUDA, torchvision missing
  70  the model, its training step, a wrapped module, or --factory's
      MODULE or FUNCTION raised
  73  --log FILE can not be created
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        sys.stderr.write("%s: %s\n" % (self.prog, message))
        sys.exit(USAGE_EXIT)


def _positive(s):
    try:
        v = int(s)
    except ValueError:
        raise argparse.ArgumentTypeError("'%s' is not a whole number" % s)
    if v < 1:
        raise argparse.ArgumentTypeError("'%s' must be at least 1" % s)
    return v


def _upto(name):
    """A whole number from 1 to LIMITS[name]."""
    def parse(s):
        v = _positive(s)
        if v > LIMITS[name]:
            raise argparse.ArgumentTypeError("'%s' is more than %d, the largest --%s taken"
                                             % (s, LIMITS[name], name))
        return v
    return parse


def _threads(s):
    v = _positive(s)
    if v > max_threads():
        raise argparse.ArgumentTypeError("'%s' is more than %d threads (4 per CPU of this "
                                         "machine, at least 64)" % (s, max_threads()))
    return v


def _seed(s):
    try:
        v = int(s)
    except ValueError:
        raise argparse.ArgumentTypeError("'%s' is not a whole number" % s)
    if not 0 <= v < 2 ** 63:
        raise argparse.ArgumentTypeError("'%s' is outside 0 .. 2^63-1 (torch.manual_seed's "
                                         "range)" % s)
    return v


def _finite(lo_open=False, lo=0.0, hi=None):
    def parse(s):
        try:
            v = float(s)
        except ValueError:
            raise argparse.ArgumentTypeError("'%s' is not a number" % s)
        if not math.isfinite(v) or v < lo or (lo_open and v == lo) or (hi is not None and v >= hi):
            what = "a finite number %s %g%s" % (">" if lo_open else ">=", lo,
                                                 "" if hi is None else " and < %g" % hi)
            raise argparse.ArgumentTypeError("'%s' is not %s" % (s, what))
        return v
    return parse


def _counts(s):
    out = []
    for part in s.split(","):
        try:
            v = int(part)
        except ValueError:
            raise argparse.ArgumentTypeError("'%s' is not a list of whole numbers" % s)
        if v < 0:
            raise argparse.ArgumentTypeError("'%s': a count of checkpoints is 0 or more" % s)
        out.append(v)
    return out


def _byte_list(s):
    units = {"": 1, "B": 1, "KB": 10 ** 3, "MB": 10 ** 6, "GB": 10 ** 9, "KIB": 2 ** 10,
             "MIB": 2 ** 20, "GIB": 2 ** 30}
    out = []
    for part in s.split(","):
        p = part.strip().upper()
        num = p.rstrip("BKMGI")
        unit = p[len(num):]
        try:
            v = float(num) * units[unit]
        except (ValueError, KeyError):
            raise argparse.ArgumentTypeError("'%s' is not a byte count (8e9, 60MB, 2GiB)" % part)
        if not math.isfinite(v) or v < 1:
            raise argparse.ArgumentTypeError("'%s' is not a byte count of 1 or more" % part)
        out.append(int(v))
    return out


def _model_args(r, model_required=True):
    r.add_argument("--model", required=model_required,
                   help="torchvision:NAME, gpt2, mlp, llama, hf or a preset (below)")
    r.add_argument("--batch", type=_upto("batch"), default=16, help="batch size (16)")
    r.add_argument("--device", default="cpu", help="cpu or cuda[:N] (cpu)")
    r.add_argument("--dtype", default="float32",
                   choices=["float32", "float64", "float16", "bfloat16", "mixed"],
                   help="parameter and input type (float32); mixed: float32 parameters "
                        "with bfloat16 compute (the decoders)")
    r.add_argument("--seed", type=_seed, default=1, help="seed of weights and batch (1)")
    r.add_argument("--threads", type=_threads,
                   help="torch CPU threads (1 for the CPU clocks; torch's default on CUDA)")
    r.add_argument("--optimizer", default="sgd", choices=["sgd", "adam", "adamw"],
                   help="(sgd)")
    r.add_argument("--lr", type=_finite(lo_open=True), default=0.01,
                   help="learning rate, > 0 (0.01)")
    r.add_argument("--momentum", type=_finite(hi=1.0), default=0.0,
                   help="SGD momentum, in [0, 1) (0)")
    r.add_argument("--image", type=_upto("image"), help="image side in pixels (torchvision)")
    r.add_argument("--classes", type=_upto("classes"), default=1000, help="classes (torchvision: 1000)")
    r.add_argument("--layers", type=_upto("layers"), help="layers (gpt2 12, mlp 3)")
    r.add_argument("--width", type=_upto("width"), help="units per layer (gpt2 256, mlp 64)")
    r.add_argument("--heads", type=_upto("heads"), help="attention heads (gpt2 8)")
    r.add_argument("--seq", type=_upto("seq"), help="tokens per sequence (gpt2 128)")
    r.add_argument("--vocab", type=_upto("vocab"), help="vocabulary (gpt2 8192)")
    r.add_argument("--kv-heads", type=_upto("kv-heads"), help="key/value heads (llama: = --heads)")
    r.add_argument("--ffn", type=_upto("ffn"), help="MLP width (llama: Llama's rule)")
    r.add_argument("--tied", action="store_true",
                   help="llama: the output layer shares the embedding's weight")
    r.add_argument("--config", metavar="FILE",
                   help="a Hugging Face config.json shaping the decoder (--model hf)")
    r.add_argument("--checkpoint-blocks", action="store_true",
                   help="decoders: each block under a reentrant torch.utils.checkpoint")
    r.add_argument("--fake", action="store_true",
                   help="record under fake tensors: no memory, no kernel; any size on a "
                        "CPU (--device cuda: fake CUDA tensors); op times from "
                        "--time-model, else 0")
    r.add_argument("--time-model", metavar="DEVICE",
                   help="with --fake: each op's TIME from the roofline model of DEVICE "
                        "(h100-sxm, h100-pcie, h200, a100-40gb, a100-80gb, l4; "
                        "docs/llm.md)")
    r.add_argument("--calibration", metavar="FILE",
                   help="per-op-class efficiencies for --time-model (docs/llm.md)")
    r.add_argument("--costs", action="store_true",
                   help="write each op's FLOPS and BYTES on its CALL (always with --fake)")


def _parser():
    p = _Parser(prog="python3 -m rematsim_torch",
                description="Record PyTorch training iterations as rematsim op logs, and "
                            "apply rematsim's checkpoint plans to the real model.")
    sub = p.add_subparsers(dest="command", metavar="record|checkpoint", parser_class=_Parser)
    r = sub.add_parser("record", help="record one training iteration of a model",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog=RECORD_EPILOG,
                       description="Record one training iteration of a model as an op log.")
    _model_args(r)
    r.add_argument("--out", required=True, metavar="FILE", help="the log (.log or .log.gz)")
    r.add_argument("--no-step", action="store_true",
                   help="leave the optimizer step out (forward, loss, backward)")
    r.add_argument("--clock", choices=["thread", "wall"], default=None,
                   help="CPU op times: thread CPU time (default) or elapsed time")
    c = sub.add_parser("checkpoint", help="plan checkpoints with rematsim, apply and measure",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog=CHECKPOINT_EPILOG,
                       description="Plan checkpoints on module boundaries (rematsim solve "
                                   "--modules), wrap the modules with "
                                   "torch.utils.checkpoint, and measure the real iteration.")
    _model_args(c, model_required=False)
    c.add_argument("--factory", metavar="MODULE:FUNCTION",
                   help="your own model instead of --model: FUNCTION (in MODULE, a module "
                        "or a .py file) returns (model, inputs[, optimizer[, loss_fn]]); "
                        "each plan is measured in a fresh process that calls it")
    c.add_argument("-k", type=_counts, metavar="K[,K...]",
                   help="dp plans with K checkpoints each")
    c.add_argument("--budget", type=_byte_list, metavar="B[,B...]",
                   help="dp's plan with the fewest checkpoints that fits B bytes")
    c.add_argument("--planner", default="dp", choices=["dp"], help="(dp)")
    c.add_argument("--depth", type=_counts, metavar="N",
                   help="plans of the module calls at depth N only (0: the model's "
                        "children, 1: theirs): whole blocks")
    c.add_argument("--min-peak", action="store_true",
                   help="also the plan of the k whose replayed peak is the smallest")
    c.add_argument("--repeat", type=_positive, default=3,
                   help="time each iteration this many times, keep the fastest (3)")
    c.add_argument("--log", metavar="FILE", help="keep the recorded log there (default: "
                   "a temporary file, removed)")
    c.add_argument("--rematsim", metavar="PATH", help="the rematsim executable (default: "
                   "$REMATSIM, this tree's build/rematsim, then PATH)")
    c.add_argument("--json", action="store_true", help="one JSON object per plan")
    _llm_parsers(sub)
    m = sub.add_parser("_measure")  # a plan measured in a fresh process (checkpoint's)
    m.add_argument("spec")
    return p


TIMECHECK_EPILOG = """
MEASURED is a log whose op TIMEs were measured on a GPU (the C logger's
logs/*-cuda-h200.log.gz); COSTS the same configuration recorded with
FLOPS and BYTES (build/rematsim-record ... --device cpu --dry --costs:
the same ops, not run). Give them as MEASURED=COSTS pairs, as many as
you like. The report: per op class and for the whole step, the error of
the summed time and the median per-op error, first uncalibrated on every
op, then with efficiencies fitted on every other op of each class (all
pairs together) and measured on the ops left out. docs/llm.md.

exit statuses: 0 success, 64 bad command line or device, 65 logs that do
not pair (different ops) or lack FLOPS/BYTES, 66 a log missing, 73
--write-calibration cannot be written.
"""


def _llm_parsers(sub):
    """The subcommands of issue 41: timecheck and plan."""
    t = sub.add_parser("timecheck", help="hold the time model against measured op times",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog=TIMECHECK_EPILOG,
                       description="Compare the roofline time model with op times measured "
                                   "on a GPU, uncalibrated and calibrated.")
    t.add_argument("pairs", nargs="+", metavar="MEASURED=COSTS")
    t.add_argument("--device", required=True, help="the device of the measured times (h200)")
    t.add_argument("--json", action="store_true", help="the report as JSON")
    t.add_argument("--write-calibration", metavar="FILE",
                   help="write the fitted calibration there (for --calibration)")
    from .plan import add_parser as _plan_parser
    _plan_parser(sub, _Parser)


def timecheck(a):
    from . import timecheck as tc, timemodel
    pairs = []
    for p in a.pairs:
        if "=" not in p:
            return _fail(USAGE_EXIT, "'%s': give MEASURED=COSTS" % p)
        m, c = p.split("=", 1)
        for f in (m, c):
            if not os.path.isfile(f):
                return _fail(66, "%s: no such file" % f)
        pairs.append((os.path.basename(m).split(".")[0], m, c))
    if a.write_calibration:
        err = check_output(a.write_calibration)
        if err:
            return _fail(CANTCREAT_EXIT, err)
    try:
        rep = tc.check(pairs, a.device, a.write_calibration)
    except timemodel.TimeModelError as e:
        return _fail(e.status, str(e))
    except (OSError, ValueError, KeyError) as e:
        return _fail(DATA_EXIT, "reading the logs: %s" % e)
    if a.json:
        print(json.dumps(rep, indent=1, sort_keys=True))
    else:
        tc.print_report(rep)
    return 0


def _fail(status, msg):
    sys.stderr.write("rematsim_torch: %s\n" % msg)
    return status


def _import_torch():
    """torch, or None after the message (69) when this Python lacks it."""
    try:
        import torch
        return torch
    except ImportError as e:
        _fail(UNAVAILABLE_EXIT,
              "this Python (%s, Python %s) has no torch (%s): run it with a Python that "
              "has it (Debian's /usr/bin/python3 with python3-torch and "
              "python3-torchvision; scripts/setup installs them)"
              % (sys.executable, platform.python_version(), e))
        return None


def _memory_limit():
    """The bytes this process may have: its address-space limit, else the
    machine's memory; None when neither is known."""
    try:
        import resource
        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            return soft
    except (ImportError, ValueError, OSError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _parameter_bytes(a):
    """About the bytes of the parameters of gpt2 or mlp at these sizes (a
    torchvision model's are fixed), or 0."""
    elem = {"float64": 8, "float32": 4}.get(a.dtype, 2)
    if a.model == "gpt2":
        w, layers = a.width or 256, a.layers or 12
        n = layers * (12 * w * w + 13 * w) + ((a.vocab or 8192) + (a.seq or 128)) * w
    elif a.model == "mlp":
        w, layers = a.width or 64, a.layers or 3
        n = layers * (w * w + w) + 11 * w
    else:
        return 0
    return n * elem


# The decoders of llm.py (models.is_llm): named here so that a bad command
# line is answered before torch is imported (llm-check.py holds the two
# lists equal).
LLM_MODELS = ("llama", "hf", "llama-1b", "llama-7b", "llama-13b", "llama-70b", "gpt2-xl")


def _check_model_name(a):
    if a.model in LLM_MODELS:
        return 0
    if not (a.model.startswith("torchvision:") or a.model in ("gpt2", "mlp")):
        return _fail(USAGE_EXIT, "unknown model '%s': give torchvision:NAME (a torchvision "
                     "classification model, e.g. torchvision:resnet50), gpt2 or mlp" % a.model)
    # the parameters, their gradients and the optimizer's state (Adam: two
    # more) must fit, or torch is not even imported (71, as rematsim's
    # memory limit); fake tensors hold no memory
    if getattr(a, "fake", False):
        return 0
    need = _parameter_bytes(a) * (4 if a.optimizer in ("adam", "adamw") else 3)
    limit = _memory_limit()
    if limit is not None and need > limit:
        return _fail(MEMORY_EXIT, "%s at these sizes needs about %.3g GB for its parameters, "
                     "gradients and optimizer state, more than the %.3g GB this process may "
                     "have; give smaller --layers or --width" % (a.model, need / 1e9,
                                                                   limit / 1e9))
    return 0


class _Setup:
    """The model, its batch, optimizer and loss, built from the arguments."""

    def __init__(self, torch, a):
        from . import models
        self.models = models
        if a.threads:
            torch.set_num_threads(a.threads)
        elif not a.device.startswith("cuda"):
            torch.set_num_threads(1)  # the CPU clocks count the calling thread
        fake = getattr(a, "fake", False)
        if fake:
            from .fake import active
            a.device = str(active().device)  # cuda stands on fake CPU tensors (fake.py)
        if a.device.startswith("cuda") and not torch.cuda.is_available() and not fake:
            raise models.ModelError("--device %s: this torch (%s) has no CUDA device"
                                    % (a.device, torch.__version__), UNAVAILABLE_EXIT)
        try:
            self.device = torch.device(a.device)
        except RuntimeError as e:
            raise models.ModelError("--device %s: %s" % (a.device, e), USAGE_EXIT)
        if self.device.type not in ("cpu", "cuda"):
            raise models.ModelError("--device %s: give cpu or cuda[:N]" % a.device, USAGE_EXIT)
        dtype = getattr(torch, a.dtype) if a.dtype != "mixed" else torch.float32
        if a.dtype == "mixed" and not models.is_llm(a.model):
            raise models.ModelError("--dtype mixed: the decoders only (llama, hf, presets)")
        torch.manual_seed(a.seed)
        self.spec = models.resolve(a)  # ModelError, or what the builder raised
        g = torch.Generator().manual_seed(a.seed)
        inputs, target = self.spec.make_batch(g)
        if fake:
            from .fake import active
            fm = active()
            model = self.spec.module
            if not getattr(self.spec, "typed", False):
                model = model.to(dtype=dtype)
            self.model = fm.move(model).train()
            if inputs.is_floating_point():
                inputs = inputs.to(dtype)
            if inputs.device != self.device:
                inputs, target = fm.tensor(inputs), fm.tensor(target)
            self.inputs, self.target = inputs, target
        else:
            self.model = self.spec.module.to(device=self.device, dtype=dtype).train()
            if inputs.is_floating_point():
                inputs = inputs.to(dtype)
            self.inputs, self.target = inputs.to(self.device), target.to(self.device)
        self.params = list(self.model.parameters())
        # foreach=False under fake tensors: the _foreach_ ops have no fake
        # kernels in torch 1.13 (fake.py, trap 2).
        kw = {"foreach": False} if fake else {}
        if a.optimizer == "sgd":
            self.opt = torch.optim.SGD(self.params, lr=a.lr, momentum=a.momentum, **kw)
        elif a.optimizer == "adamw":
            self.opt = torch.optim.AdamW(self.params, lr=a.lr, foreach=False)
        else:
            self.opt = torch.optim.Adam(self.params, lr=a.lr, **kw)

    def step(self, rec=None, no_step=False):
        return self.models.train_step(self.model, self.opt, self.inputs, self.target,
                                      self.spec.loss, rec, step=not no_step)


def _build(torch, a):
    """A _Setup, or an exit status after the message."""
    from . import models
    try:
        return _Setup(torch, a)
    except models.ModelError as e:
        return _fail(e.status, str(e))
    except Exception as e:  # a builder that raises on these sizes
        return _fail(SOFTWARE_EXIT, "building %s raised %s: %s" % (a.model, type(e).__name__, e))


def _declared(st):
    """The batch an iteration holds from its start: (inputs, target), or
    a factory's inputs."""
    return st.inputs if isinstance(st, _FactorySetup) else (st.inputs, st.target)


class _FactorySetup:
    """checkpoint --factory: the model a user's function builds, seeded as
    --seed says, with _Setup's face (model, opt, device, params, step)."""

    def __init__(self, torch, factory, seed, threads):
        from . import checkpoint as ck
        if threads:
            torch.set_num_threads(threads)
        torch.manual_seed(seed)
        fm = ck.FactoryModel(ck.load_factory(factory), factory)
        self.fm = fm
        self.model, self.opt, self.device = fm.model, fm.opt, fm.device
        if self.device.type != "cuda" and not threads:
            torch.set_num_threads(1)  # the CPU clocks count the calling thread
        self.inputs, self.target = fm.inputs, None
        self.params = list(self.model.parameters())

    def step(self, rec=None, no_step=False):
        return self.fm.step(rec)


def _record_to(torch, a, st, path, meta, clock=None, no_step=False, **rec_kw):
    """Warm up, then record one iteration of st into path: the Recorder,
    or an exit status after the message. REC_KW: more Recorder arguments
    (fake=, cost=, op_time=)."""
    from .recorder import Recorder, RecorderError
    fake = rec_kw.get("fake", False)
    try:
        rec = Recorder(path, device=st.device, meta=meta, clock=clock, model=st.model,
                       optimizer=st.opt, **rec_kw)  # 73 before any work
    except RecorderError as e:
        return _fail(e.status, str(e))
    t0 = time.perf_counter()

    def value(loss):
        return None if fake else float(loss)  # a fake loss has no value
    try:
        loss_warmup = value(st.step(no_step=no_step))
    except Exception as e:
        rec.abort()
        return _fail(SOFTWARE_EXIT, "the training step of %s raised %s: %s; no log written"
                     % (a.model, type(e).__name__, e))
    except BaseException:
        rec.abort()
        raise
    if st.device.type == "cuda" and not fake:
        torch.cuda.synchronize(st.device)
        torch.cuda.reset_peak_memory_stats(st.device)
        at_start = torch.cuda.memory_allocated(st.device)
    t1 = time.perf_counter()
    try:
        with rec:
            rec.start(*_declared(st))
            loss = st.step(rec, no_step=no_step)
            with rec.paused():
                rec.meta["loss"] = value(loss)
                rec.meta["loss_warmup"] = loss_warmup
                rec.meta["parameter_bytes"] = sum(p.numel() * p.element_size()
                                                  for p in st.params)
                if st.device.type == "cuda" and not fake:
                    rec.meta["cuda_memory_allocated_at_start"] = at_start
                    rec.meta["cuda_max_memory_allocated"] = \
                        torch.cuda.max_memory_allocated(st.device)
            del loss
    except RecorderError as e:
        return _fail(e.status, str(e))
    except Exception as e:
        return _fail(SOFTWARE_EXIT, "the training step of %s raised %s: %s; no log written"
                     % (a.model, type(e).__name__, e))
    rec.seconds = (t1 - t0, time.perf_counter() - t1)
    return rec


def record(a, argv):
    rc = _check_model_name(a)
    if rc:
        return rc
    # Where the log goes is checked before any work (seconds of torch
    # import, minutes of recording).
    err = check_output(a.out)
    if err:
        return _fail(CANTCREAT_EXIT, err)
    torch = _import_torch()
    if torch is None:
        return UNAVAILABLE_EXIT
    if a.fake or a.time_model or a.costs:
        return _record_llm(torch, a, argv)
    st = _build(torch, a)
    if isinstance(st, int):
        return st
    meta = {
        "argv": ["python3", "-m", "rematsim_torch"] + list(argv),
        "model": a.model,
        "title": st.spec.title,
        "desc": st.spec.desc,
        "sizes": st.spec.sizes,
        "seed": a.seed,
        "dtype": a.dtype,
        "optimizer": "%s lr %g%s" % (a.optimizer, a.lr, " momentum %g" % a.momentum
                                      if a.optimizer == "sgd" and a.momentum else ""),
        "step": ("zero_grad(set_to_none=True), forward, loss, backward"
                 + ("" if a.no_step else ", optimizer.step()")),
    }
    rec = _record_to(torch, a, st, a.out, meta, clock=a.clock, no_step=a.no_step)
    if isinstance(rec, int):
        return rec
    _summary(a, rec)
    return 0


def _summary(a, rec):
    """The recording's summary line, then the reserved peak that rematsim's
    model of PyTorch's caching allocator predicts for its unbounded replay
    (`rematsim info`, docs/allocator.md), where a rematsim is found."""
    c = rec.counts
    size = os.path.getsize(rec.path)
    print("%s: %d records, %d calls (%d writes in place), %d releases, %d module calls, "
          "peak_live_bytes %d, floor %d, %d bytes; warm-up %.1f s, recorded iteration %.1f s"
          % (a.out, rec.records, c["calls"], c["writes"], c["releases"], c["modules"],
             rec.peak_live_bytes, rec.meta_written["floor_memory"], size, rec.seconds[0],
             rec.seconds[1]))
    from .checkpoint import CheckpointError, find_rematsim
    try:
        rematsim = find_rematsim()
    except CheckpointError:
        print("  (reserved memory not predicted: no rematsim found; `rematsim info %s` "
              "prints it)" % a.out)
        return
    r = subprocess.run([rematsim, "info", "--json", "--", a.out], capture_output=True,
                       text=True)
    try:
        j = json.loads(r.stdout) if r.returncode == 0 else None
    except ValueError:
        j = None
    if not j or j.get("reserved_peak") is None:
        print("  (reserved memory not predicted: `rematsim info` exited %d)" % r.returncode)
        return
    print("  predicted reserved peak %d bytes (%.1f MiB; fragmentation at it %d): the "
          "unbounded replay through the model of PyTorch's caching allocator, its default "
          "settings (rematsim info; docs/allocator.md)"
          % (j["reserved_peak"], j["reserved_peak"] / 2 ** 20,
             j.get("fragmentation_at_reserved_peak") or 0))


def _record_llm(torch, a, argv):
    """record --fake / --time-model / --costs: under fake tensors when
    --fake, with each op's FLOPS and BYTES (costs.py) and, with
    --time-model, its TIME from the roofline (timemodel.py)."""
    import contextlib
    from . import costs, timemodel
    if a.time_model and not a.fake:
        return _fail(USAGE_EXIT, "--time-model times a fake recording (--fake); a real one "
                     "is timed by its clock")
    if a.calibration and not a.time_model:
        return _fail(USAGE_EXIT, "--calibration goes with --time-model")
    if a.fake and a.clock:
        return _fail(USAGE_EXIT, "--clock: a fake recording runs no kernel to time")
    model = None
    if a.time_model:
        try:
            model = timemodel.TimeModel(a.time_model, a.calibration)
        except timemodel.TimeModelError as e:
            return _fail(e.status, str(e))
    if a.fake:
        from .fake import fake_mode
        try:
            ctx = fake_mode(a.device)
        except (ValueError, RuntimeError) as e:
            return _fail(USAGE_EXIT, "--device %s: %s" % (a.device, e))
    else:
        ctx = contextlib.nullcontext()
    with ctx as fm:
        if fm is not None:
            stands_for = str(fm.stands_for)
        st = _build(torch, a)
        if isinstance(st, int):
            return st
        meta = {
            "argv": ["python3", "-m", "rematsim_torch"] + list(argv),
            "model": a.model, "title": st.spec.title, "desc": st.spec.desc,
            "sizes": st.spec.sizes, "seed": a.seed, "dtype": a.dtype,
            "optimizer": "%s lr %g%s" % (a.optimizer, a.lr, " momentum %g" % a.momentum
                                          if a.optimizer == "sgd" and a.momentum else ""),
            "step": ("zero_grad(set_to_none=True), forward, loss, backward"
                     + ("" if a.no_step else ", optimizer.step()")),
            "costs": "each CALL's FLOPS and BYTES: docs/llm.md (costs.py %s)"
                     % costs.VERSION,
        }
        kw = {"cost": costs.op_cost}
        if a.fake:
            kw["fake"] = True
            meta["fake_device"] = stands_for
            if stands_for != str(st.device):
                meta["fake_device_note"] = (
                    "recorded on fake %s tensors standing for %s: torch %s has no CUDA, "
                    "and autograd cannot run on fake CUDA tensors without it (docs/llm.md)"
                    % (st.device, stands_for, torch.__version__))
        if model is not None:
            meta["time_model"] = model.describe()
            kw["op_time"] = model.op_time_ns
        rec = _record_to(torch, a, st, a.out, meta, clock=a.clock, no_step=a.no_step, **kw)
    if isinstance(rec, int):
        return rec
    _summary(a, rec)
    return 0


def _measure_child(spec_text):
    """`_measure SPEC`: build the model of SPEC's argv, warm up, apply its
    wraps, warm up again, measure; print one JSON line."""
    spec = json.loads(spec_text)
    torch = _import_torch()
    if torch is None:
        return UNAVAILABLE_EXIT
    from . import checkpoint as ck
    if "factory" in spec:
        name = spec["factory"]
        try:
            st = _FactorySetup(torch, name, spec["seed"], spec["threads"])
        except ck.CheckpointError as e:
            return _fail(e.status, str(e))
    else:
        a = _parser().parse_args(spec["argv"])
        name = a.model
        st = _build(torch, a)
        if isinstance(st, int):
            return st
    try:
        st.step()
        with ck.apply(st.model, spec["wraps"]):
            st.step()
            peak, sec = ck.measure(st.step, model=st.model, optimizer=st.opt,
                                   inputs=_declared(st), device=st.device,
                                   repeat=spec["repeat"])
    except ck.CheckpointError as e:
        return _fail(e.status, str(e))
    except Exception as e:
        return _fail(SOFTWARE_EXIT, "the checkpointed step of %s raised %s: %s"
                     % (name, type(e).__name__, e))
    print(json.dumps({"peak": peak, "seconds": sec}))
    return 0


def checkpoint(a, argv):
    if (a.model is None) == (a.factory is None):
        return _fail(USAGE_EXIT, "give --model NAME (a model this command knows) or --factory "
                     "MODULE:FUNCTION (your own), one of them")
    rc = 0 if a.factory else _check_model_name(a)
    if rc:
        return rc
    if a.fake or a.time_model or a.costs:
        return _fail(USAGE_EXIT, "checkpoint measures the real model: --fake, --time-model "
                     "and --costs belong to record")
    if not a.k and not a.budget and not a.min_peak:
        return _fail(USAGE_EXIT, "give the plans: -k K[,K...] (dp with K checkpoints), "
                     "--budget B[,B...] or --min-peak")
    if a.depth is not None and len(a.depth) != 1:
        return _fail(USAGE_EXIT, "--depth takes one depth")
    depth = a.depth[0] if a.depth is not None else None
    if a.log:
        err = check_output(a.log)
        if err:
            return _fail(CANTCREAT_EXIT, err)
    torch = _import_torch()
    if torch is None:
        return UNAVAILABLE_EXIT
    from . import checkpoint as ck
    try:
        rematsim = ck.find_rematsim(a.rematsim)
    except ck.CheckpointError as e:
        return _fail(e.status, str(e))
    if a.factory:
        try:
            st = _FactorySetup(torch, a.factory, a.seed, a.threads)
        except ck.CheckpointError as e:
            return _fail(e.status, str(e))
        a.model, a.device = "factory %s" % a.factory, str(st.device)
        if not any(True for _ in st.model.children()):
            return _fail(65, "the model of %s (%s) has no submodules: a checkpoint wraps a "
                         "module's call, and it has none to wrap"
                         % (a.factory, type(st.model).__name__))
    else:
        st = _build(torch, a)
        if isinstance(st, int):
            return st
    tmpdir = None
    log = a.log
    if not log:
        tmpdir = tempfile.mkdtemp(prefix="rematsim-checkpoint-")
        log = os.path.join(tmpdir, "model.log.gz")
    try:
        if a.factory:
            meta = {"argv": ["python3", "-m", "rematsim_torch"] + list(argv), "model": a.model,
                    "title": a.factory, "seed": a.seed}
        else:
            meta = {"argv": ["python3", "-m", "rematsim_torch"] + list(argv), "model": a.model,
                    "title": st.spec.title, "desc": st.spec.desc, "sizes": st.spec.sizes,
                    "seed": a.seed}
        rec = _record_to(torch, a, st, log, meta)
        if isinstance(rec, int):
            return rec
        try:
            plans = ck.plans_for(log, a.k or [], a.budget or [], a.planner, rematsim,
                                 depth=depth, min_peak=a.min_peak)
            curve = None if a.json else ck.peak_curve(log, rematsim, depth)
        except ck.CheckpointError as e:
            return _fail(e.status, str(e))
        if curve:
            print("\n".join(ck.curve_text(*curve)))
        model_argv = [x for x in argv if x != "--json"]
        rows = []
        t_none = None
        for plan in plans:
            if a.factory:
                spec = ck.measure_spec(a.factory, plan, a.repeat, a.seed, a.threads)
            else:
                spec = json.dumps({"argv": ["record", "--out", os.devnull]
                                   + _model_only(model_argv),
                                   "wraps": plan.wraps, "repeat": a.repeat})
            r = subprocess.run([sys.executable, "-m", "rematsim_torch", "_measure", spec],
                               capture_output=True, text=True,
                               env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                                   [p if p else os.getcwd() for p in sys.path])))
            if r.returncode:
                msg = r.stderr.strip().splitlines()
                return _fail(r.returncode if r.returncode in (64, 65, 69, 70) else SOFTWARE_EXIT,
                             "measuring plan %s: %s" % (plan.label, msg[-1] if msg else
                                                        "exit %d" % r.returncode))
            m = json.loads(r.stdout.strip().splitlines()[-1])
            if t_none is None:
                t_none = m["seconds"]
            rows.append((plan, m))
        _print_plans(a, rows, t_none, rec)
    finally:
        if tmpdir:
            import shutil
            shutil.rmtree(tmpdir, ignore_errors=True)
    return 0


def _model_only(argv):
    """The model's options of a checkpoint command line (for `record`'s
    parser in the measuring process)."""
    out, skip = [], False
    drop = {"-k", "--budget", "--planner", "--repeat", "--log", "--rematsim", "--depth"}
    for i, x in enumerate(argv):
        if skip:
            skip = False
            continue
        if x in ("checkpoint", "--min-peak"):
            continue
        name = x.split("=", 1)[0]
        if name in drop:
            skip = "=" not in x
            continue
        out.append(x)
    return out


def _print_plans(a, rows, t_none, rec):
    for plan, m in rows:
        diff = (plan.predicted_peak - m["peak"]) / m["peak"] if m["peak"] else float("nan")
        if a.json:
            print(json.dumps({
                "model": a.model, "plan": plan.label, "wraps": plan.wraps,
                "split_modules": plan.split_modules,
                "predicted_peak": plan.predicted_peak, "measured_peak": m["peak"],
                "difference": diff, "predicted_overhead": plan.predicted_overhead,
                "measured_seconds": m["seconds"],
                "measured_overhead": m["seconds"] / t_none if t_none else None,
                "baseline_memory": plan.baseline_memory,
                "unwrapped_ops": plan.unwrapped_ops, "device": a.device}))
        else:
            names = ", ".join("+".join(w) for w in plan.wraps) or "(none)"
            print("plan %s: wrap %s" % (plan.label, names))
            measured = m["seconds"] / t_none if t_none else float("nan")
            print("  peak: predicted %d bytes, measured %d (%+.2f%%); compute overhead "
                  "predicted %.3f, time measured %.3f (%.3f s)%s"
                  % (plan.predicted_peak, m["peak"], 100 * diff, plan.predicted_overhead,
                     measured, m["seconds"],
                     " (below 1: the machine's noise, not a saving)"
                     if measured < 1 and plan.label != "none" else ""))
    if not a.json:
        print("(peaks by torch's own accounting on %s; times are the fastest of %d runs on "
              "this machine, as loaded as it is)" % (a.device, a.repeat))


def _terminated(signum, frame):
    raise SystemExit(128 + signum)  # unwinds through the Recorder: no file left


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    signal.signal(signal.SIGTERM, _terminated)
    p = _parser()
    a = p.parse_args(argv)
    try:
        if a.command == "record":
            return record(a, argv)
        if a.command == "checkpoint":
            return checkpoint(a, argv)
        if a.command == "_measure":
            return _measure_child(a.spec)
        if a.command == "timecheck":
            return timecheck(a)
        if a.command == "plan":
            from .plan import run as plan_run
            return plan_run(a, argv)
        p.print_help(sys.stderr)
        return USAGE_EXIT
    except KeyboardInterrupt:
        return _fail(130, "interrupted; no log written")


if __name__ == "__main__":
    sys.exit(main())
