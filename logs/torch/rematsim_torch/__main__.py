"""python3 -m rematsim_torch record ...: record one training iteration of
a torchvision model, a GPT-2-style decoder or a small MLP as an op log.
Run with --help for the options and exit statuses."""

import argparse
import os
import signal
import sys
import time

USAGE_EXIT, DATA_EXIT, UNAVAILABLE_EXIT, SOFTWARE_EXIT, CANTCREAT_EXIT, IOERR_EXIT = \
    64, 65, 69, 70, 73, 74

EPILOG = """\
models:
  torchvision:NAME   a torchvision classification model with random weights
                     (resnet50, densenet121, inception_v3, mobilenet_v2, ...);
                     --image (default 224, inception_v3 299), --classes
  gpt2               a GPT-2-style decoder from torch.nn (tied embedding);
                     --layers (12) --width (256) --heads (8) --seq (128) --vocab (8192)
  mlp                --layers (3) Linear+ReLU of --width (64) units, 10 classes

The step: zero_grad(set_to_none=True), forward, loss, backward, SGD
(plain, as the C logger's demos; --momentum adds a buffer per weight) or
Adam. One warm-up iteration runs unrecorded, then the log gets START and
the measured iteration, with BACKWARD before the backward pass. Every
in-place update is a MUTATE, which a replay counts as a new storage while
the old version, a constant, stays pinned: optimizer state adds to the
replay's memory at the end of the step.

FILE gets the log (gzip if it ends in .gz) and FILE's .meta.json (FILE
without .gz/.log): device, versions, arguments, loss, peak_live_bytes and
baseline_memory (the peaks an unbounded rematsim replay reports). What is
recorded and what is not: logs/torch/README.md.

exit statuses:
  0   success
  64  bad command line, or a model name that does not resolve
  69  unavailable: --device cuda without CUDA, torchvision missing
  70  the model or its training step raised (the message says what)
  73  the log can not be created (its folder is missing or unwritable)
  74  an I/O error while writing the log
Nothing is left under FILE or its meta file's name unless the status is 0.
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


def _parser():
    p = _Parser(prog="python3 -m rematsim_torch",
                description="Record PyTorch training iterations as rematsim op logs.")
    sub = p.add_subparsers(dest="command", metavar="record", parser_class=_Parser)
    r = sub.add_parser("record", help="record one training iteration of a model",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG,
                       description="Record one training iteration of a model as an op log.")
    r.add_argument("--model", required=True, help="torchvision:NAME, gpt2 or mlp")
    r.add_argument("--out", required=True, metavar="FILE", help="the log (.log or .log.gz)")
    r.add_argument("--batch", type=_positive, default=16, help="batch size (16)")
    r.add_argument("--device", default="cpu", help="cpu or cuda[:N] (cpu)")
    r.add_argument("--dtype", default="float32",
                   choices=["float32", "float64", "float16", "bfloat16"],
                   help="parameter and input type (float32)")
    r.add_argument("--seed", type=int, default=1, help="seed of weights and batch (1)")
    r.add_argument("--threads", type=_positive, help="torch CPU threads (torch's default)")
    r.add_argument("--optimizer", default="sgd", choices=["sgd", "adam"], help="(sgd)")
    r.add_argument("--lr", type=float, default=0.01, help="learning rate (0.01)")
    r.add_argument("--momentum", type=float, default=0.0, help="SGD momentum (0)")
    r.add_argument("--image", type=_positive, help="image side in pixels (torchvision)")
    r.add_argument("--classes", type=_positive, default=1000, help="classes (torchvision: 1000)")
    r.add_argument("--layers", type=_positive, help="layers (gpt2 12, mlp 3)")
    r.add_argument("--width", type=_positive, help="units per layer (gpt2 256, mlp 64)")
    r.add_argument("--heads", type=_positive, help="attention heads (gpt2 8)")
    r.add_argument("--seq", type=_positive, help="tokens per sequence (gpt2 128)")
    r.add_argument("--vocab", type=_positive, help="vocabulary (gpt2 8192)")
    return p


def _fail(status, msg):
    sys.stderr.write("rematsim_torch: %s\n" % msg)
    return status


def record(a, argv):
    if not (a.model.startswith("torchvision:") or a.model in ("gpt2", "mlp")):
        # Said before torch is imported (seconds): models.resolve says the same.
        return _fail(USAGE_EXIT, "unknown model '%s': give torchvision:NAME (a torchvision "
                     "classification model, e.g. torchvision:resnet50), gpt2 or mlp" % a.model)
    import torch

    from . import models
    from .recorder import Recorder, RecorderError

    if a.threads:
        torch.set_num_threads(a.threads)
    if a.device.startswith("cuda") and not torch.cuda.is_available():
        return _fail(UNAVAILABLE_EXIT, "--device %s: this torch (%s) has no CUDA device"
                     % (a.device, torch.__version__))
    try:
        device = torch.device(a.device)
    except RuntimeError as e:
        return _fail(USAGE_EXIT, "--device %s: %s" % (a.device, e))
    if device.type not in ("cpu", "cuda"):
        return _fail(USAGE_EXIT, "--device %s: give cpu or cuda[:N]" % a.device)
    dtype = getattr(torch, a.dtype)

    torch.manual_seed(a.seed)
    try:
        spec = models.resolve(a)
    except models.ModelError as e:
        return _fail(e.status, str(e))
    except Exception as e:  # a builder that raises on these sizes
        return _fail(SOFTWARE_EXIT, "building %s raised %s: %s" % (a.model, type(e).__name__, e))

    meta = {
        "argv": ["python3", "-m", "rematsim_torch"] + list(argv),
        "model": a.model,
        "title": spec.title,
        "desc": spec.desc,
        "sizes": spec.sizes,
        "seed": a.seed,
        "dtype": a.dtype,
        "optimizer": "%s lr %g%s" % (a.optimizer, a.lr, " momentum %g" % a.momentum
                                      if a.optimizer == "sgd" and a.momentum else ""),
        "step": "zero_grad(set_to_none=True), forward, loss, backward, optimizer.step()",
    }
    try:
        rec = Recorder(a.out, device=device, meta=meta)  # 73 before any work
    except RecorderError as e:
        return _fail(e.status, str(e))

    t0 = time.perf_counter()
    try:
        g = torch.Generator().manual_seed(a.seed)
        inputs, target = spec.make_batch(g)
        model = spec.module.to(device=device, dtype=dtype).train()
        if inputs.is_floating_point():
            inputs = inputs.to(dtype)
        inputs, target = inputs.to(device), target.to(device)
        params = list(model.parameters())
        if a.optimizer == "sgd":
            opt = torch.optim.SGD(params, lr=a.lr, momentum=a.momentum)
        else:
            opt = torch.optim.Adam(params, lr=a.lr)
        loss_warmup = float(models.train_step(model, opt, inputs, target, spec.loss))
    except Exception as e:
        rec.abort()
        return _fail(SOFTWARE_EXIT, "the training step of %s raised %s: %s; no log written"
                     % (a.model, type(e).__name__, e))
    except BaseException:
        rec.abort()
        raise
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        at_start = torch.cuda.memory_allocated(device)
    t1 = time.perf_counter()

    try:
        with rec:
            rec.start()
            loss = models.train_step(model, opt, inputs, target, spec.loss, rec)
            with rec.paused():
                rec.meta["loss"] = float(loss)
                rec.meta["loss_warmup"] = loss_warmup
                rec.meta["parameter_bytes"] = sum(p.numel() * p.element_size()
                                                  for p in params)
                if device.type == "cuda":
                    rec.meta["cuda_memory_allocated_at_start"] = at_start
                    rec.meta["cuda_max_memory_allocated"] = \
                        torch.cuda.max_memory_allocated(device)
            del loss
    except RecorderError as e:
        return _fail(e.status, str(e))
    except Exception as e:
        return _fail(SOFTWARE_EXIT, "the training step of %s raised %s: %s; no log written"
                     % (a.model, type(e).__name__, e))
    t2 = time.perf_counter()
    c = rec.counts
    size = os.path.getsize(rec.path)
    print("%s: %d records, %d calls, %d mutates, %d releases, peak_live_bytes %d, "
          "%d bytes; warm-up %.1f s, recorded iteration %.1f s"
          % (a.out, rec.records, c["calls"], c["mutates"], c["releases"],
             rec.peak_live_bytes, size, t1 - t0, t2 - t1))
    return 0


def _terminated(signum, frame):
    raise SystemExit(128 + signum)  # unwinds through the Recorder: no file left


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    signal.signal(signal.SIGTERM, _terminated)
    p = _parser()
    a = p.parse_args(argv)
    if a.command != "record":
        p.print_help(sys.stderr)
        return USAGE_EXIT
    try:
        return record(a, argv)
    except KeyboardInterrupt:
        return _fail(130, "interrupted; no log written")


if __name__ == "__main__":
    sys.exit(main())
