"""fidelity-check.py: the whole training iteration of five models, each
with an SGD-momentum and an Adam step, recorded while torch.profiler
(profile_memory=True) watches the CPU allocator; the log's unbounded
replay against torch's own accounting of the same iteration:

- the replay's peak (peak_memory: constants pinned, as a run under a
  budget counts them) is within 2 % of torch's peak of tensor memory,
  which is the bytes the iteration holds when it starts (parameters,
  buffers, optimizer state, batch: what the profiler does not see being
  allocated) plus the profiler's peak since, less kernel scratch: a block
  allocated and freed inside one call of an ATen op (the profiler's event
  tree gives each allocation its address and its enclosing op), which the
  log, one record per op, cannot see. Scratch depends on the CPU and the
  kernel library: oneDNN's convolution backward on an AVX2 CPU with one
  thread takes three 37.8 MB buffers on ResNet-18, 23 MB over the peak
  of its tensors, where an AVX-512 machine took none; so torch's peak
  with scratch is printed beside it, and must not be below the replay's
  (scratch can only add);
- the log's floor (floor_memory of `rematsim info`: what the replay holds
  pinned at the end) equals, to the byte, what torch holds after the
  step: parameters, gradients, optimizer state, and the buffers and batch
  (all held by the program).

The models: torchvision's ResNet-18 and MobileNetV2 (2 images of 64x64),
the recorder's GPT-2-style decoder (2 layers, width 64, weight tying), an
nn.LSTM model (in-place ops on views of its gates inside ATen's LSTM), and
a small model with in-place ops on views of one tensor (one reading a
parameter), a weight used twice and a custom autograd.Function.

torch 1.13's CPU allocator keeps the sizes of the blocks a profiled run
allocates, and a later profiled run in the same process can count a free
with a stale size: each case runs in a process of its own
(`fidelity-check.py --one CASE`).
"""

import json
import os
import subprocess
import sys

CASES = [(m, o) for m in ("resnet18", "mobilenet_v2", "gpt2", "lstm", "custom")
         for o in ("sgd-momentum", "adam")]
TOLERANCE = 0.02


def build(name):
    import torch
    from torch import nn
    from torch.nn import functional as F

    torch.manual_seed(0)
    if name in ("resnet18", "mobilenet_v2"):
        import torchvision.models as tvm
        m = getattr(tvm, name)(num_classes=10)
        return m, torch.randn(2, 3, 64, 64), torch.randint(10, (2,)), F.cross_entropy
    if name == "gpt2":
        from rematsim_torch.models import GPT
        m = GPT(2, 64, 4, 32, 512)

        def loss(o, t):
            return F.cross_entropy(o.reshape(-1, 512), t.reshape(-1))

        return m, torch.randint(512, (2, 32)), torch.randint(512, (2, 32)), loss
    if name == "lstm":
        class LSTMNet(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(256, 64)
                self.lstm = nn.LSTM(64, 128, num_layers=2, batch_first=True)
                self.head = nn.Linear(128, 10)

            def forward(self, x):
                h, _ = self.lstm(self.emb(x))
                return self.head(h[:, -1])

        return LSTMNet(), torch.randint(256, (4, 16)), torch.randint(10, (4,)), F.cross_entropy

    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return x * w

        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            return g * w, (g * x).sum(0)

    class Custom(nn.Module):
        def __init__(self, width=64):
            super().__init__()
            self.fc1 = nn.Linear(width, 2 * width)
            self.fc2 = nn.Linear(2 * width, 2 * width)
            self.scale = nn.Parameter(torch.ones(2 * width))
            self.shift = nn.Parameter(torch.zeros(width))
            self.out = nn.Linear(2 * width, 10)

        def forward(self, x):
            h = self.fc1(x)
            w = h.shape[1] // 2
            h[:, :w].mul_(2)  # in-place ops on views of one tensor
            h[:, w:].add_(self.shift)  # ... one of them reading a parameter
            h = self.fc2(h)
            h = F.linear(torch.relu(h), self.fc2.weight)  # fc2's weight used again
            h = Scale.apply(h, self.scale)  # a custom autograd.Function
            h.mul_(0.5)
            return self.out(h)

    return Custom(), torch.randn(8, 64), torch.randint(10, (8,)), F.cross_entropy



def profiled_peaks(prof):
    """The CPU allocations torch.profiler saw, in time order: the bytes held
    at the end, the peak, the peak without kernel scratch (a block whose
    allocation and free fall inside one call of one outermost ATen op), and
    the scratch's total bytes."""
    allocs = []  # (time, bytes, address, the outermost aten:: call around it)
    stack = [(r, None) for r in reversed(prof.profiler.kineto_results.experimental_event_tree())]
    while stack:
        node, op = stack.pop()
        if op is None and node.name.startswith("aten::"):
            op = node.id
        f = node.extra_fields
        if type(f).__name__ == "_ExtraFields_Allocation" and f.device.type == "cpu":
            allocs.append((node.start_time_ns, f.alloc_size, f.ptr, op))
        stack.extend((c, op) for c in reversed(node.children))
    allocs.sort(key=lambda a: a[0])
    live, scratch = {}, set()
    for i, (_, size, ptr, op) in enumerate(allocs):
        if size > 0:
            live[ptr] = i
        elif ptr in live:
            j = live.pop(ptr)
            if op is not None and allocs[j][3] == op:
                scratch.update((i, j))
    cur = top = cur_t = top_t = 0
    for i, a in enumerate(allocs):
        cur += a[1]
        top = max(top, cur)
        if i not in scratch:
            cur_t += a[1]
            top_t = max(top_t, cur_t)
    return cur, top, top_t, sum(allocs[i][1] for i in scratch if allocs[i][1] > 0)

def one(name, optimizer, out):
    import torch
    from torch.profiler import ProfilerActivity, profile

    import rematsim_torch
    from rematsim_torch.checkpoint import state_bytes

    model, x, y, loss_fn = build(name)
    model.train()
    if optimizer == "adam":
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    else:
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def step(rec=None):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        if rec:
            rec.mark_backward()
        loss.backward()
        opt.step()

    step()
    step()
    opt.zero_grad(set_to_none=True)  # the iteration's own zero_grad then frees nothing
    start = state_bytes(model, opt, (x, y))
    log = os.path.join(out, "fidelity-%s-%s.log.gz" % (name, optimizer))
    with rematsim_torch.Recorder(log, model=model, optimizer=opt) as rec:
        rec.start(x, y)
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            step(rec)
    cur, top, top_tensors, scratch = profiled_peaks(prof)
    held = state_bytes(model, opt, [x, y] + [p.grad for p in model.parameters()
                                             if p.grad is not None])
    parts = {
        "parameters": state_bytes(model, None, ()) - state_bytes(None, None, list(model.buffers())),
        "gradients": state_bytes(None, None, [p.grad for p in model.parameters()]),
        "optimizer_state": state_bytes(None, opt, ()),
        "buffers_and_batch": state_bytes(None, None, list(model.buffers()) + [x, y]),
    }
    print(json.dumps({"log": log, "torch_peak": start + top_tensors,
                      "torch_peak_with_scratch": start + top, "scratch": scratch,
                      "torch_start": start,
                      "torch_end": held, "profiler_end": start + cur, "parts": parts,
                      "floor_meta": rec.meta_written["floor_memory"],
                      "peak_meta": rec.peak_live_bytes}))


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "--one":
        out = os.environ.get("TEST_DIR", "/tmp/rematsim-torch-test")
        os.makedirs(out, exist_ok=True)
        one(sys.argv[2], sys.argv[3], out)
        return 0
    rematsim = os.environ["REMATSIM"]
    failures = []
    for name, opt in CASES:
        r = subprocess.run([sys.executable, __file__, "--one", name, opt],
                           capture_output=True, text=True)
        if r.returncode:
            failures.append(name)
            print("FAIL %s %s: %s" % (name, opt, r.stderr[-2000:]))
            continue
        j = json.loads(r.stdout.strip().splitlines()[-1])
        rp = subprocess.run([rematsim, "replay", j["log"], "--heuristic", "DTR", "--budget",
                             "1e18", "--json"], capture_output=True, text=True)
        info = subprocess.run([rematsim, "info", j["log"], "--json"], capture_output=True,
                              text=True)
        if rp.returncode or info.returncode:
            failures.append(name)
            print("FAIL %s %s: rematsim: %s%s" % (name, opt, rp.stderr, info.stderr))
            continue
        peak = json.loads(rp.stdout)["peak_memory"]
        floor = json.loads(info.stdout)["floor_memory"]
        diff = (peak - j["torch_peak"]) / j["torch_peak"]
        problems = []
        if abs(diff) > TOLERANCE:
            problems.append("replay peak %d is %+.2f%% off torch's %d" % (peak, 100 * diff,
                                                                          j["torch_peak"]))
        if peak > j["torch_peak_with_scratch"] * (1 + TOLERANCE):
            problems.append("replay peak %d over torch's with its kernel scratch, %d"
                            % (peak, j["torch_peak_with_scratch"]))
        if floor != j["torch_end"]:
            problems.append("floor %d, torch holds %d at the end" % (floor, j["torch_end"]))
        if (peak, floor) != (j["peak_meta"], j["floor_meta"]):
            problems.append("meta file: peak %d floor %d" % (j["peak_meta"], j["floor_meta"]))
        p = j["parts"]
        line = ("%s %s: replay peak %d, torch %d (%+.3f%%; %d with kernel scratch, %d bytes "
                "of it in all); floor %d = torch's end %d "
                "(parameters %d + gradients %d + optimizer state %d + buffers and batch %d)"
                % (name, opt, peak, j["torch_peak"], 100 * diff, j["torch_peak_with_scratch"],
                   j["scratch"], floor, j["torch_end"],
                   p["parameters"], p["gradients"], p["optimizer_state"],
                   p["buffers_and_batch"]))
        if problems:
            failures.append(name)
            print("FAIL %s: %s" % (line, "; ".join(problems)))
        else:
            print("ok " + line)
    if failures:
        print("%d failed" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
