"""llm-check.py: issue 41: recording under fake tensors, the decoder
family, the costs table, the time model and plan.

- fake equals real: eight small models (torchvision's ResNet-18 and
  MobileNetV2, the recorder's GPT-2, an LSTM, a module with in-place ops
  on views, weight tying and a custom autograd.Function, the Llama-shaped
  decoder with grouped-query attention, the same with checkpointed blocks,
  the GPT-2-shaped decoder of llm.py, tied, with dropout) recorded for real
  and under fake tensors: every record but TIME identical, peaks and
  floors equal to the byte;
- the four traps of torch 1.13 (fake.py), each failing without its
  handling;
- presets' parameter counts against the published ones; config.json good
  and bad;
- FLOPs and bytes of a matmul, a convolution and an attention block by
  hand; the roofline by hand; the C logger's --dry --costs;
- plan at 7B: the floor equals weights + gradients + AdamW's two states +
  its step counters + buffers + batch, computed here; bad input.
"""

import contextlib
import gzip
import importlib.util
import json
import os
import subprocess
import sys

import torch
from torch import nn

import rematsim_torch
from rematsim_torch import costs, llm, timemodel

OUT = os.environ.get("TEST_DIR", "/tmp/rematsim-torch-test")
SRC = os.environ.get("REMATSIM_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))
REMATSIM = os.environ.get("REMATSIM", os.path.join(SRC, "build", "rematsim"))
failures = []


def check(ok, what):
    print("%s %s" % ("ok" if ok else "FAIL", what))
    if not ok:
        failures.append(what)


def _fidelity():
    spec = importlib.util.spec_from_file_location(
        "fidelity", os.path.join(os.path.dirname(os.path.abspath(__file__)), "fidelity-check.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def build(name):
    if name in ("resnet18", "mobilenet_v2", "gpt2", "lstm", "custom"):
        return _fidelity().build(name)
    torch.manual_seed(0)
    if name.startswith("llama"):
        c = llm.Config(vocab=96, width=32, layers=2, heads=4, kv_heads=2, ffn=64, seq=16)
        m = llm.build(c, 16, checkpoint=name.endswith("ckpt"))
    else:  # gpt2-style decoder of llm.py: tied, learned positions, dropout
        c = llm.Config(arch="gpt2", vocab=96, width=32, layers=2, heads=4, ffn=128, seq=16,
                       norm="layer", pos="learned", mlp="gelu", tied=True, qkv_bias=True,
                       bias=True, dropout=0.1)
        m = llm.build(c, 16)
    return m, torch.randint(96, (2, 16)), torch.randint(96, (2, 16)), llm.loss_fn(96)


def record(name, fake, optimizer="adam"):
    ctx = rematsim_torch.fake_mode() if fake else contextlib.nullcontext()
    path = os.path.join(OUT, "llm-%s-%s.log" % (name, "fake" if fake else "real"))
    with ctx:
        model, x, y, loss_fn = build(name)
        model.train()
        if optimizer == "adam":
            opt = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=False)
        else:
            opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, foreach=False)

        def step(rec=None):
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            if rec:
                rec.mark_backward()
            loss.backward()
            opt.step()

        step()
        with rematsim_torch.Recorder(path, fake=fake, model=model, optimizer=opt,
                                     cost=costs.op_cost) as rec:
            rec.start(x, y)
            step(rec)
    return path, rec


def records(path):
    out = []
    with open(path) as f:
        for line in f:
            j = json.loads(line)
            j.pop("TIME", None)
            out.append(json.dumps(j, sort_keys=True))
    return out


def fake_equals_real():
    for name, opt in (("resnet18", "sgd"), ("mobilenet_v2", "adam"), ("gpt2", "adam"),
                      ("lstm", "sgd"), ("custom", "adam"), ("llama", "adam"),
                      ("llama-ckpt", "adam"), ("gpt2-llm", "sgd")):
        a, ra = record(name, False, opt)
        b, rb = record(name, True, opt)
        la, lb = records(a), records(b)
        diff = next((i for i, (x, y) in enumerate(zip(la, lb)) if x != y), None)
        same = diff is None and len(la) == len(lb)
        check(same, "fake equals real, %s %s: %d records%s" % (
            name, opt, len(la), "" if same else "; first difference at line %s: %s / %s"
            % (diff, la[diff] if diff is not None else len(la),
               lb[diff] if diff is not None else len(lb))))
        check((ra.peak_live_bytes, ra.meta_written["floor_memory"])
              == (rb.peak_live_bytes, rb.meta_written["floor_memory"]),
              "fake equals real, %s: peak %d / %d, floor %d / %d" % (
                  name, ra.peak_live_bytes, rb.peak_live_bytes,
                  ra.meta_written["floor_memory"], rb.meta_written["floor_memory"]))
        if name == "llama-ckpt":
            n = sum(1 for x in la if '"ENTER"' in x)
            check(any('"NAME": "addmm"' in x or '"NAME": "mm"' in x for x in la[la.index(
                next(x for x in la if "BACKWARD" in x)):]), "checkpointed blocks recompute "
                  "in the backward pass (%d module calls)" % n)


def traps():
    # 1. record_function: the optimizers' labels run under fake tensors.
    import torch.autograd.profiler as prof
    before = prof.record_function
    with rematsim_torch.fake_mode():
        check(prof.record_function is not before, "trap 1: record_function is stubbed in "
              "fake_mode")
        m = nn.Linear(4, 4)
        opt = torch.optim.Adam(m.parameters(), foreach=False)
        m(torch.randn(2, 4)).sum().backward()
        opt.step()
        opt.zero_grad()
    check(prof.record_function is before, "trap 1: record_function restored after fake_mode")
    # 2. foreach optimizers: the fallback is an error naming the op and where.
    with rematsim_torch.fake_mode():
        m = nn.Sequential(nn.Linear(4, 4))
        opt = torch.optim.Adam(m.parameters(), foreach=True)
        x = torch.randn(2, 4)
        path = os.path.join(OUT, "llm-foreach.log")
        err = None
        try:
            with rematsim_torch.Recorder(path, fake=True, model=m, optimizer=opt) as rec:
                rec.start(x)
                loss = m(x).sum()
                rec.backward(loss)
                opt.step()
        except rematsim_torch.RecorderError as e:
            err = str(e)
    check(err is not None and "_foreach_" in err and "optimizer step" in err
          and not os.path.exists(path),
          "trap 2: a foreach optimizer's fallback is an error naming the op: %s" % err)
    # 3. repeat_interleave: an error naming the op and the module; the
    # decoder's grouped-query attention (expand + reshape) records (above).
    class Rep(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            return self.fc(x).repeat_interleave(2, dim=0)

    with rematsim_torch.fake_mode():
        m = nn.Sequential(Rep())
        x = torch.randn(2, 4)
        err = None
        try:
            with rematsim_torch.Recorder(os.path.join(OUT, "llm-rep.log"), fake=True,
                                         model=m) as rec:
                rec.start(x)
                m(x)
        except rematsim_torch.RecorderError as e:
            err = str(e)
    check(err is not None and "repeat_interleave" in err and "module 0" in err,
          "trap 3: repeat_interleave is an error naming the op and the module: %s" % err)
    # 4. checkpointed blocks are reentrant (the non-reentrant checkpoint
    # fails in backward under fake tensors): recorded above (llama-ckpt);
    # here, that the decoder asks for the reentrant one.
    import inspect
    src = inspect.getsource(llm.Decoder.forward)
    check("use_reentrant=True" in src, "trap 4: the decoder's checkpoint is reentrant")


def presets():
    from rematsim_torch.__main__ import LLM_MODELS
    from rematsim_torch.models import LLM_MODELS as FAMILY
    check(set(LLM_MODELS) == set(FAMILY) | set(llm.PRESETS),
          "the command line knows the decoders' names: %s" % (LLM_MODELS,))
    for name, (kw, published) in sorted(llm.PRESETS.items()):
        c = llm.Config(**kw)
        with rematsim_torch.fake_mode():
            m = llm.build(c, 64)
            n = sum(p.numel() for p in m.parameters())
        check(n == published == c.parameters(),
              "preset %s: %d parameters built, %d published, %d counted"
              % (name, n, published, c.parameters()))


CONFIGS = {
    # Fields as in the published config.json files.
    "llama2-7b": ({"architectures": ["LlamaForCausalLM"], "bos_token_id": 1, "eos_token_id": 2,
                   "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
                   "intermediate_size": 11008, "max_position_embeddings": 4096,
                   "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32,
                   "num_key_value_heads": 32, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
                   "rope_scaling": None, "tie_word_embeddings": False,
                   "torch_dtype": "float16", "transformers_version": "4.31.0.dev0",
                   "use_cache": True, "vocab_size": 32000}, 6738415616),
    "mistral-7b": ({"architectures": ["MistralForCausalLM"], "bos_token_id": 1,
                    "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 4096,
                    "initializer_range": 0.02, "intermediate_size": 14336,
                    "max_position_embeddings": 32768, "model_type": "mistral",
                    "num_attention_heads": 32, "num_hidden_layers": 32,
                    "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 10000.0,
                    "sliding_window": 4096, "tie_word_embeddings": False,
                    "torch_dtype": "bfloat16", "transformers_version": "4.34.0.dev0",
                    "use_cache": True, "vocab_size": 32000}, 7241732096),
    "qwen2-0.5b": ({"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0,
                    "bos_token_id": 151643, "eos_token_id": 151643, "hidden_act": "silu",
                    "hidden_size": 896, "initializer_range": 0.02, "intermediate_size": 4864,
                    "max_position_embeddings": 131072, "max_window_layers": 24,
                    "model_type": "qwen2", "num_attention_heads": 14, "num_hidden_layers": 24,
                    "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
                    "sliding_window": 131072, "tie_word_embeddings": True,
                    "torch_dtype": "bfloat16", "transformers_version": "4.40.1",
                    "use_cache": True, "use_sliding_window": False, "vocab_size": 151936},
                   494032768),
    "gpt2": ({"activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"],
              "attn_pdrop": 0.1, "bos_token_id": 50256, "embd_pdrop": 0.1,
              "eos_token_id": 50256, "initializer_range": 0.02, "layer_norm_epsilon": 1e-05,
              "model_type": "gpt2", "n_ctx": 1024, "n_embd": 768, "n_head": 12,
              "n_layer": 12, "n_positions": 1024, "resid_pdrop": 0.1,
              "summary_activation": None, "summary_first_dropout": 0.1,
              "summary_proj_to_labels": True, "summary_type": "cls_index",
              "summary_use_proj": True, "task_specific_params": {"text-generation": {
                  "do_sample": True, "max_length": 50}}, "vocab_size": 50257}, 124439808),
}


def configs():
    for name, (j, published) in sorted(CONFIGS.items()):
        path = os.path.join(OUT, "config-%s.json" % name)
        with open(path, "w") as f:
            json.dump(j, f)
        c = llm.from_hf(path)
        check(c.parameters() == published, "config.json %s: %d parameters, published %d"
              % (name, c.parameters(), published))
    bad = [
        ("falcon", dict(CONFIGS["llama2-7b"][0], model_type="falcon",
                        architectures=["FalconForCausalLM"]), "unknown architecture"),
        ("unknown-field", dict(CONFIGS["llama2-7b"][0], moe_experts=8), '"moe_experts"'),
        ("missing", {k: v for k, v in CONFIGS["llama2-7b"][0].items()
                     if k != "hidden_size"}, '"hidden_size"'),
        ("type", dict(CONFIGS["llama2-7b"][0], num_hidden_layers="32"), "num_hidden_layers"),
        ("act", dict(CONFIGS["llama2-7b"][0], hidden_act="gelu"), "hidden_act"),
        ("heads", dict(CONFIGS["llama2-7b"][0], num_key_value_heads=5), "kv_heads"),
        ("huge", dict(CONFIGS["llama2-7b"][0], hidden_size=2 ** 40, num_attention_heads=2 ** 30,
                      num_key_value_heads=2 ** 30), "2^62"),
    ]
    for name, j, want in bad:
        path = os.path.join(OUT, "config-bad-%s.json" % name)
        with open(path, "w") as f:
            f.write(json.dumps(j) if not isinstance(j, str) else j)
        out = os.path.join(OUT, "config-bad-%s.log" % name)
        r = subprocess.run([sys.executable, "-m", "rematsim_torch", "record", "--model", "hf",
                            "--config", path, "--fake", "--layers", "1", "--out", out],
                           capture_output=True, text=True)
        check(r.returncode == 65 and want in r.stderr and path in r.stderr
              and not os.path.exists(out),
              "config.json %s: exit %d, %s" % (name, r.returncode, r.stderr.strip()[-200:]))


def by_hand():
    mm = torch.ops.aten.mm.default
    a, b = torch.zeros(8, 16), torch.zeros(16, 4)
    fl, by = costs.op_cost(mm, (a, b), {}, mm(a, b))
    check((fl, by) == (2 * 8 * 16 * 4, 4 * (8 * 16 + 16 * 4 + 8 * 4)),
          "costs of mm [8,16]x[16,4]: %d flops, %d bytes" % (fl, by))
    bmm = torch.ops.aten.bmm.default
    a3, b3 = torch.zeros(3, 8, 16, dtype=torch.bfloat16), torch.zeros(3, 16, 4,
                                                                        dtype=torch.bfloat16)
    fl, by = costs.op_cost(bmm, (a3, b3), {}, bmm(a3, b3))
    check((fl, by) == (2 * 3 * 8 * 16 * 4, 2 * 3 * (8 * 16 + 16 * 4 + 8 * 4)),
          "costs of bmm 3x[8,16]x[16,4] bf16: %d flops, %d bytes" % (fl, by))
    # A 3x3 convolution, 4 -> 6 channels, 10x10 image, batch 2, padding 1.
    conv = torch.ops.aten.convolution.default
    x, w = torch.zeros(2, 4, 10, 10), torch.zeros(6, 4, 3, 3)
    args = (x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
    y = conv(*args)
    fl, by = costs.op_cost(conv, args, {}, y)
    check((fl, by) == (2 * (2 * 6 * 10 * 10) * (4 * 3 * 3), 4 * (2 * 4 * 100 + 6 * 4 * 9
                                                                 + 2 * 6 * 100)),
          "costs of a 3x3 convolution: %d flops, %d bytes" % (fl, by))
    cb = torch.ops.aten.convolution_backward.default
    bargs = (torch.zeros_like(y), x, w, [6], [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
             [True, True, True])
    fl, _ = costs.op_cost(cb, bargs, {}, cb(*bargs))
    check(fl == 2 * 2 * (2 * 6 * 100) * 36 + 2 * 6 * 100,
          "costs of its backward (input, weight, bias): %d flops" % fl)
    # An attention block of llm.py (forward): the projections and the two
    # products of the scores, by hand.
    bsz, s, w_, h, kv = 2, 8, 32, 4, 2
    hd = w_ // h
    c = llm.Config(vocab=16, width=w_, layers=1, heads=h, kv_heads=kv, ffn=32, seq=s)
    with rematsim_torch.fake_mode():
        att = llm.Attention(c)
        dec = llm.build(c, s)
        x = torch.randn(bsz, s, w_)
        path = os.path.join(OUT, "llm-attn.log")
        with rematsim_torch.Recorder(path, fake=True, cost=costs.op_cost) as rec:
            rec.start(x)
            with torch.no_grad():
                att(x, dec.mask, (dec.cos, dec.sin))
    got = 0
    with open(path) as f:
        for line in f:
            j = json.loads(line)
            if j.get("INSTRUCTION") == "CALL" and costs.op_class(j["NAME"]) == "matmul":
                got += int(j["FLOPS"])
    want = 2 * bsz * s * w_ * (w_ + 2 * kv * hd) + 2 * bsz * s * w_ * w_ \
        + 2 * 2 * bsz * h * s * s * hd
    check(got == want, "matmul FLOPs of an attention block: %d, by hand %d" % (got, want))
    # The roofline by hand.
    tm = timemodel.TimeModel("h100-sxm")
    f, b = 2 * 4096 ** 3, 3 * 4096 * 4096 * 2
    want = round(3000 + max(f / (989.4e12 * 0.7), b / (3.35e12 * 0.8)) * 1e9)
    check(tm.time_ns("mm", f, b, "bfloat16") == want, "roofline of a 4096^3 bf16 mm on "
          "h100-sxm: %d ns, by hand %d" % (tm.time_ns("mm", f, b, "bfloat16"), want))
    f, b = 1 << 20, 12 << 20
    want = round(3000 + max(f / (67e12 * 0.5), b / (3.35e12 * 0.8)) * 1e9)
    check(tm.time_ns("add", f, b) == want, "roofline of an fp32 add: %d ns" % want)
    try:
        timemodel.device("h100")
        check(False, "an unknown device is refused")
    except timemodel.TimeModelError as e:
        check("nearest" in str(e) and "h100-" in str(e), "unknown device: %s" % e)
    # The C logger's costs (--dry --costs).
    rec_exe = os.path.join(os.path.dirname(REMATSIM), "rematsim-record")
    if os.path.exists(rec_exe):
        out = os.path.join(OUT, "logger-costs.log")
        r = subprocess.run([rec_exe, "--model", "mlp", "--batch", "4", "--width", "8",
                            "--depth", "1", "--dry", "--costs", "--out", out],
                           capture_output=True, text=True)
        first = None
        if r.returncode == 0:
            with open(out) as f:
                first = next((json.loads(x) for x in f if '"mm"' in x), None)
        check(first is not None and first["FLOPS"] == str(2 * 4 * 8 * 8)
              and first["BYTES"] == str(4 * (32 + 64 + 32)),
              "rematsim-record --dry --costs: the first mm %s" % first)
        timecheck(rec_exe)
        calibrate(rec_exe)


def calibrate(rec_exe):
    """recorders/logger/calibrate.sh, the device calibration's sweeps, run
    on the CPU (LOGGER_DEVICE=cpu) at small widths: the pipeline a lent GPU
    would run, to its calibration file, which the time model loads."""
    script = os.path.join(SRC, "recorders", "logger", "calibrate.sh")
    out = os.path.join(OUT, "calibrate")
    env = dict(os.environ, RECORD=rec_exe, LOGGER_DEVICE="cpu", WIDTHS="8 16 32",
               PYTHON=sys.executable)
    r = subprocess.run(["sh", script, "h100-sxm", out], capture_output=True, text=True, env=env)
    cal = os.path.join(out, "h100-sxm-calibration.json")
    ok = r.returncode == 0 and "all (h100-sxm)" in r.stdout and os.path.exists(cal)
    if ok:
        tm = timemodel.TimeModel("h100-sxm", cal)
        ok = all(tm.eff[c]["launch_ns"] is not None for c in ("matmul", "elementwise"))
    check(ok, "calibrate.sh on the CPU: exit %d %s" % (r.returncode, r.stderr.strip()[-300:]))
    env["WIDTHS"] = "8 x"
    r = subprocess.run(["sh", script, "h100-sxm", out], capture_output=True, text=True, env=env)
    check(r.returncode == 64 and "'x'" in r.stderr, "calibrate.sh: a bad width: exit %d %s"
          % (r.returncode, r.stderr.strip()))


def timecheck(rec_exe):
    """The time model against the H200 times of the shipped MLP log: the
    C logger's dry run of its configuration pairs op for op."""
    measured = os.path.join(SRC, "logs", "mlp-cuda-h200.log.gz")
    with open(measured.replace(".log.gz", ".meta.json")) as f:
        argv = json.load(f)["argv"]
    i = argv.index("--device")
    args = argv[1:i] + argv[i + 2:argv.index("--out")]
    cost_log = os.path.join(OUT, "mlp-costs.log.gz")
    r = subprocess.run([rec_exe] + args + ["--device", "cpu", "--dry", "--costs", "--out",
                                           cost_log], capture_output=True, text=True)
    if r.returncode:
        check(False, "rematsim-record --dry --costs %s: %s" % (" ".join(args), r.stderr))
        return
    cal = os.path.join(OUT, "h200-calibration.json")
    r = subprocess.run([sys.executable, "-m", "rematsim_torch", "timecheck", "--device", "h200",
                        "%s=%s" % (measured, cost_log), "--json", "--write-calibration", cal],
                       capture_output=True, text=True)
    ok = r.returncode == 0
    if ok:
        rep = json.loads(r.stdout)["models"]["mlp-cuda-h200"]
        u = rep["uncalibrated"]
        ok = u["step"]["ops"] == 80 and u["matmul"]["ops"] == 26 and \
            abs(u["matmul"]["sum_error"]) < 0.5 and abs(rep["calibrated_step"]["sum_error"]) < 0.5
        tm = timemodel.TimeModel("h200", cal)
        ok = ok and tm.calibration == cal and tm.eff["matmul"]["launch_ns"] is not None
    check(ok, "timecheck on the H200 MLP log: %s" % (r.stderr.strip() or "paired, calibrated"))
    other = os.path.join(SRC, "logs", "cnn-cuda-h200.log.gz")
    r = subprocess.run([sys.executable, "-m", "rematsim_torch", "timecheck", "--device", "h200",
                        "%s=%s" % (other, cost_log)], capture_output=True, text=True)
    check(r.returncode == 65 and ("not the same" in r.stderr or " but " in r.stderr),
          "timecheck of logs that do not pair: exit %d: %s" % (r.returncode, r.stderr.strip()))


def plan_7b():
    log = os.path.join(OUT, "plan-7b.log.gz")
    fig = os.path.join(OUT, "plan-7b.svg")
    seq = 256
    r = subprocess.run([sys.executable, "-m", "rematsim_torch", "plan", "--model", "llama-7b",
                        "--seq", str(seq), "--batch", "1", "--device", "h100-sxm", "--memory",
                        "80GB", "--json", "--log", log, "--figure", fig, "--points", "3",
                        "--rematsim", REMATSIM], capture_output=True, text=True)
    if r.returncode:
        check(False, "plan llama-7b: exit %d: %s" % (r.returncode, r.stderr[-500:]))
        return
    j = json.loads(r.stdout)
    n = 6738415616
    tensors = 32 * 9 + 2 + 1  # per block: q k v o, gate up down, two norms; embed, head, norm
    hd = 4096 // 32
    floor = (2 * n  # bfloat16 weights
             + 2 * n  # their gradients
             + 2 * 2 * n  # AdamW's exp_avg and exp_avg_sq, bfloat16
             + 4 * tensors  # AdamW's step counters: a float32 scalar per parameter
             + seq * seq  # the causal mask (bool)
             + 2 * seq * hd * 4  # RoPE's cos and sin (float32)
             + 2 * seq * 8)  # the batch: inputs and targets (int64)
    check(j["floor"] == floor, "plan llama-7b: floor %d, by hand %d (weights + gradients + "
          "AdamW state + counters + buffers + batch)" % (j["floor"], floor))
    check(j["memory"] == 80 * 10 ** 9 and j["fits"] == (j["peak_no_checkpointing"] <= 80e9),
          "plan llama-7b: memory and fits (peak %d)" % j["peak_no_checkpointing"])
    check(os.path.exists(fig) and open(fig).read().startswith("<svg"), "plan: the figure")
    # Memory below the floor: 65 with by how much; an unknown device: 64.
    r = subprocess.run([sys.executable, "-m", "rematsim_torch", "plan", "--model", "llama-7b",
                        "--seq", "64", "--layers", "1", "--device", "h100-sxm",
                        "--memory", "1GB", "--rematsim", REMATSIM],
                       capture_output=True, text=True)
    check(r.returncode == 65 and "exceeds --memory" in r.stderr and "by" in r.stderr,
          "plan below the floor: exit %d: %s" % (r.returncode, r.stderr.strip()[-200:]))
    r = subprocess.run([sys.executable, "-m", "rematsim_torch", "plan", "--model", "llama-7b",
                        "--device", "h100", "--rematsim", REMATSIM],
                       capture_output=True, text=True)
    check(r.returncode == 64 and "nearest" in r.stderr,
          "plan with an unknown device: exit %d: %s" % (r.returncode, r.stderr.strip()))


def cli_fake_cuda():
    out = os.path.join(OUT, "llm-cli-cuda.log.gz")
    r = subprocess.run([sys.executable, "-m", "rematsim_torch", "record", "--model", "llama",
                        "--layers", "1", "--width", "64", "--heads", "4", "--kv-heads", "2",
                        "--seq", "16", "--batch", "2", "--vocab", "128", "--dtype", "mixed",
                        "--optimizer", "adamw", "--fake", "--device", "cuda",
                        "--time-model", "h200", "--out", out], capture_output=True, text=True)
    ok = r.returncode == 0
    meta = {}
    if ok:
        with open(out.replace(".log.gz", ".meta.json")) as f:
            meta = json.load(f)
        with gzip.open(out, "rt") as f:
            calls = [json.loads(x) for x in f if '"CALL"' in x]
        # The op's time and costs go on the CALL that carries the op (an
        # op written as two CALLs: docs/log-format.md).
        ok = all("FLOPS" in c and "BYTES" in c for c in calls if int(c["TIME"])) and \
            sum(int(c["TIME"]) for c in calls) == meta["measured_op_time_ns"] > 0
        rr = subprocess.run([REMATSIM, "replay", out, "--heuristic", "DTR", "--budget", "1e18",
                             "--json"], capture_output=True, text=True)
        ok = ok and rr.returncode == 0 and \
            json.loads(rr.stdout)["peak_memory"] == meta["peak_live_bytes"]
    check(ok and meta.get("fake_device") == "cuda:0",
          "record --fake --device cuda --dtype mixed --time-model h200: %s %s"
          % (r.stderr.strip()[-300:], meta.get("fake_device")))


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.set_num_threads(1)
    which = sys.argv[1:] or ["fake", "traps", "presets", "configs", "hand", "cuda", "plan"]
    steps = {"fake": fake_equals_real, "traps": traps, "presets": presets,
             "configs": configs, "hand": by_hand, "cuda": cli_fake_cuda, "plan": plan_7b}
    for w in which:
        steps[w]()
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
