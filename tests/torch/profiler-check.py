"""profiler-check.py: an independent check of what the recorder counts.

One training iteration of a small MLP on the CPU is recorded and, at the
same time, watched by torch.profiler (profile_memory=True), which sees every
allocation and free of the CPU allocator. The log's unbounded baseline
replay (`rematsim replay`, V1: the `baseline_memory` budgets are taken
from) minus its constants' bytes is compared with the profiler's peak of
bytes allocated since the iteration began.

Why these two should agree, and what may part them:
- The recorded and profiled part is forward, loss and backward; the
  optimizer step runs after both have stopped. An in-place update is a
  MUTATE in the log, which by the format's rule makes a new storage before
  the old one goes (the reference simulator's semantics), where torch
  allocates nothing: with every gradient alive at the end of backward,
  that transient copy of a weight would be the replay's peak, a rule of
  the format rather than memory the profiler could confirm (the
  hand-written MUTATE tests check it instead).
- The profiler starts after zero_grad(set_to_none=True), so what is alive
  when it starts is exactly the log's constants (weights, batch, labels).
- Memory the log cannot see: scratch space an op allocates and frees
  inside its kernel (a scalar turned into a tensor, a reduction's buffer),
  which the profiler counts while it lives. It can only make the
  profiler's peak larger, by at most the scratch of the op running at the
  peak: TOLERANCE below bounds it (a few hundred bytes for these ops,
  measured: see the printed difference), against peaks of megabytes.
- The model has no in-place op (nn.ReLU without inplace=True).
"""

import json
import os
import subprocess
import sys

import torch
from torch import nn
from torch.nn import functional as F
from torch.profiler import ProfilerActivity, profile

import rematsim_torch

TOLERANCE = 4096  # bytes of kernel scratch allowed at the peak (see above)


def main():
    out = os.environ.get("TEST_DIR", "/tmp")
    os.makedirs(out, exist_ok=True)
    log = os.path.join(out, "profiler-mlp.log.gz")
    torch.manual_seed(3)
    model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                          nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(128, 256), torch.randint(10, (128,))

    def step(rec=None):
        out = model(x)
        loss = F.cross_entropy(out, y)
        del out
        if rec:
            rec.mark_backward()
        loss.backward()
        return loss

    step()  # warm-up
    opt.step()
    opt.zero_grad(set_to_none=True)
    with rematsim_torch.Recorder(log) as rec:
        rec.start()
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            loss = step(rec)
            del loss
    opt.step()

    cur = peak = 0
    for e in prof.profiler.kineto_results.events():
        if e.name() == "[memory]" and e.device_type() == torch.autograd.DeviceType.CPU:
            cur += e.nbytes()
            peak = max(peak, cur)

    rematsim = os.environ["REMATSIM"]
    r = subprocess.run([rematsim, "replay", log, "--heuristic", "DTR", "--budget",
                        "1000000000000000", "--json"], capture_output=True, text=True)
    if r.returncode:
        print("rematsim replay failed:", r.stderr)
        return 1
    j = json.loads(r.stdout)
    replayed = j["baseline_memory"] - j["baseline_const_memory"]
    diff = peak - replayed
    print("profiler peak since START: %d bytes; replay baseline_memory %d - constants %d = %d;"
          " difference %d bytes (tolerance 0..%d)"
          % (peak, j["baseline_memory"], j["baseline_const_memory"], replayed, diff, TOLERANCE))
    if j["peak_memory"] != rec.peak_live_bytes or j["baseline_memory"] != \
            rec.meta_written["baseline_memory"]:
        print("FAIL: replay peak %d / baseline %d, recorder %d / %d"
              % (j["peak_memory"], j["baseline_memory"], rec.peak_live_bytes,
                 rec.meta_written["baseline_memory"]))
        return 1
    if not 0 <= diff <= TOLERANCE:
        print("FAIL: outside the tolerance")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
