"""timemodel.py: an op's time on a named GPU from its FLOPs and bytes (a
roofline with per-op-class efficiencies), the device table it reads, and
the check of the model against measured op times (docs/llm.md).

    time = launch + max(flops / (peak * e_flops), bytes / (bandwidth * e_bytes))

peak is the device's dense peak for the op's type on the units the op
uses: tensor cores for matmul and conv in bfloat16/float16, the plain
FP32 rate for float32 (PyTorch's default: no TF32 for matmuls, and the C
logger's cuBLAS runs with CUBLAS_DEFAULT_MATH) and for every other class.
A view costs nothing (no kernel). `--calibration FILE` replaces the
efficiencies (and launch) of the classes it names:

    {"device": "h200", "launch_ns": 2500,
     "classes": {"matmul": {"e_flops": 0.62, "e_bytes": 0.7, "launch_ns": 3000}, ...}}
"""

import gzip
import json
import math

from .costs import CLASSES, op_class


class TimeModelError(Exception):
    def __init__(self, message, status=64):
        super().__init__(message)
        self.status = status


# Dense (no sparsity) peak FLOP/s, memory bandwidth (bytes/s), memory
# (bytes), host link (bytes/s, one direction), from the datasheets named.
DEVICES = {
    "h100-sxm": dict(
        name="NVIDIA H100 SXM5 80GB", fp32=67e12, tf32=494.7e12, bf16=989.4e12,
        fp16=989.4e12, fp64=34e12, bandwidth=3.35e12, memory=80e9, link=64e9,
        source="NVIDIA H100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h100, "
               "2023): FP32 67 TF, TF32 989 TF and BF16/FP16 1979 TF with sparsity (half "
               "dense), HBM3 3.35 TB/s, 80 GB, PCIe Gen5 128 GB/s (64 each way)"),
    "h100-pcie": dict(
        name="NVIDIA H100 PCIe 80GB", fp32=51e12, tf32=378e12, bf16=756e12, fp16=756e12,
        fp64=26e12, bandwidth=2.0e12, memory=80e9, link=64e9,
        source="NVIDIA H100 Tensor Core GPU datasheet: H100 PCIe FP32 51 TF, TF32 756 TF "
               "and BF16/FP16 1513 TF with sparsity (half dense), HBM2e 2.0 TB/s, 80 GB, "
               "PCIe Gen5 128 GB/s"),
    "h200": dict(
        name="NVIDIA H200 SXM 141GB", fp32=67e12, tf32=494.7e12, bf16=989.4e12,
        fp16=989.4e12, fp64=34e12, bandwidth=4.8e12, memory=141e9, link=64e9,
        source="NVIDIA H200 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h200, "
               "2024): FP32 67 TF, BF16/FP16 1979 TF with sparsity (half dense), HBM3e "
               "4.8 TB/s, 141 GB, PCIe Gen5 128 GB/s"),
    "a100-40gb": dict(
        name="NVIDIA A100 SXM4 40GB", fp32=19.5e12, tf32=156e12, bf16=312e12, fp16=312e12,
        fp64=9.7e12, bandwidth=1.555e12, memory=40e9, link=32e9,
        source="NVIDIA A100 Tensor Core GPU datasheet (2021): FP32 19.5 TF, TF32 156 TF, "
               "BF16/FP16 312 TF dense, HBM2 1,555 GB/s, 40 GB, PCIe Gen4 64 GB/s"),
    "a100-80gb": dict(
        name="NVIDIA A100 SXM4 80GB", fp32=19.5e12, tf32=156e12, bf16=312e12, fp16=312e12,
        fp64=9.7e12, bandwidth=2.039e12, memory=80e9, link=32e9,
        source="NVIDIA A100 Tensor Core GPU datasheet (2021): FP32 19.5 TF, BF16/FP16 312 TF "
               "dense, HBM2e 2,039 GB/s, 80 GB, PCIe Gen4 64 GB/s"),
    "l4": dict(
        name="NVIDIA L4 24GB", fp32=30.3e12, tf32=60e12, bf16=121e12, fp16=121e12,
        fp64=0.47e12, bandwidth=300e9, memory=24e9, link=32e9,
        source="NVIDIA L4 Tensor Core GPU datasheet (2023): FP32 30.3 TF, TF32 120 TF and "
               "BF16/FP16 242 TF with sparsity (half dense), GDDR6 300 GB/s, 24 GB, "
               "PCIe Gen4 x16 64 GB/s"),
}

# Per-class efficiencies before any calibration: the fraction of the peak
# FLOP/s and of the bandwidth an op of the class reaches, and the fixed
# time of one kernel. Plausible round numbers, not fitted: docs/llm.md
# reports how far they are from measured times, and --calibration
# replaces them by fitted ones.
DEFAULT_LAUNCH_NS = 3000
DEFAULT_EFFICIENCY = {
    "matmul": (0.7, 0.8), "conv": (0.6, 0.8), "softmax": (0.5, 0.6), "norm": (0.5, 0.6),
    "embedding": (0.5, 0.5), "reduction": (0.5, 0.6), "elementwise": (0.5, 0.8),
    "copy": (0.5, 0.7), "fill": (0.5, 0.9), "view": (1.0, 1.0),
}


def device(name):
    """The table row of device NAME, or a TimeModelError naming the nearest."""
    key = name.lower()
    if key in DEVICES:
        return key, DEVICES[key]
    import difflib
    near = sorted(k for k in DEVICES if k.startswith(key)) or \
        difflib.get_close_matches(key, DEVICES, n=1, cutoff=0)
    raise TimeModelError("unknown device '%s'%s (the devices: %s)"
                         % (name, "; the nearest is '%s'" % near[0] if near else "",
                            ", ".join(sorted(DEVICES))), 64)


class TimeModel:
    def __init__(self, device_name, calibration=None):
        self.key, self.dev = device(device_name)
        self.launch_ns = DEFAULT_LAUNCH_NS
        self.eff = {c: {"e_flops": f, "e_bytes": b, "launch_ns": None}
                    for c, (f, b) in DEFAULT_EFFICIENCY.items()}
        self.op_eff = {}  # op name -> as eff's values (a calibration's "ops")
        self.calibration = None
        if calibration:
            self.load_calibration(calibration)

    def load_calibration(self, path):
        try:
            with open(path) as f:
                j = json.load(f)
        except OSError as e:
            raise TimeModelError("%s: cannot read: %s" % (path, e.strerror or e), 66)
        except ValueError as e:
            raise TimeModelError("%s: not JSON: %s" % (path, e), 65)
        if not isinstance(j, dict) or not isinstance(j.get("classes", {}), dict):
            raise TimeModelError("%s: a calibration is an object with \"classes\"" % path, 65)
        for k in j:
            if k not in ("device", "launch_ns", "classes", "ops", "note"):
                raise TimeModelError("%s: unknown field \"%s\"" % (path, k), 65)
        if "launch_ns" in j:
            self.launch_ns = _num(path, "launch_ns", j["launch_ns"], 0)
        for c, v in j.get("classes", {}).items():
            if c not in CLASSES:
                raise TimeModelError("%s: unknown op class \"%s\" (the classes: %s)"
                                     % (path, c, ", ".join(CLASSES)), 65)
            if not isinstance(v, dict):
                raise TimeModelError("%s: class %s: an object is expected" % (path, c), 65)
            for k, x in v.items():
                if k not in ("e_flops", "e_bytes", "launch_ns"):
                    raise TimeModelError("%s: class %s: unknown field \"%s\"" % (path, c, k),
                                         65)
                self.eff[c][k] = _num(path, "%s.%s" % (c, k), x, 0 if k == "launch_ns"
                                      else 1e-9)
        ops = j.get("ops", {})
        if not isinstance(ops, dict):
            raise TimeModelError("%s: \"ops\" is an object of op names" % path, 65)
        for name, v in ops.items():
            if not isinstance(v, dict) or set(v) - {"e_flops", "e_bytes", "launch_ns"}:
                raise TimeModelError("%s: op %s: an object of e_flops, e_bytes, launch_ns "
                                     "is expected" % (path, name), 65)
            e = {"e_flops": 1.0, "e_bytes": 1.0, "launch_ns": None}
            for k, x in v.items():
                e[k] = _num(path, "%s.%s" % (name, k), x, 0 if k == "launch_ns" else 1e-9)
            self.op_eff[name] = e
        self.calibration = path

    def describe(self):
        return {"device": self.key, "device_name": self.dev["name"],
                "source": self.dev["source"], "calibration": self.calibration,
                "launch_ns": self.launch_ns,
                "efficiency": {c: dict(v) for c, v in self.eff.items()}}

    def peak(self, cls, dtype):
        d = self.dev
        if cls in ("matmul", "conv") and dtype == "bfloat16":
            return d["bf16"]
        if cls in ("matmul", "conv") and dtype == "float16":
            return d["fp16"]
        if dtype == "float64":
            return d["fp64"]
        return d["fp32"]

    def time_ns(self, name, flops, nbytes, dtype="float32"):
        cls = op_class(name)
        e = self.op_eff.get(name.split("::")[-1]) or self.eff[cls]
        if cls == "view" and e["launch_ns"] is None:
            return 0
        launch = e["launch_ns"] if e["launch_ns"] is not None else self.launch_ns
        t = max(flops / (self.peak(cls, dtype) * e["e_flops"]),
                nbytes / (self.dev["bandwidth"] * e["e_bytes"]))
        return int(round(launch + t * 1e9))

    def op_time_ns(self, func, args, kwargs, out, cost):
        """The Recorder's op_time: the time of aten op FUNC of COST."""
        from .costs import dtype_of
        if cost is None:
            return 0
        dt = dtype_of(func, args, out)
        return self.time_ns(func._schema.name, cost[0], cost[1],
                            str(dt).replace("torch.", "") if dt is not None else "float32")


def _num(path, what, v, lo):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
            or v < lo:
        raise TimeModelError("%s: %s is %r, not a number >= %g" % (path, what, v, lo), 65)
    return v


# ---- checking the model against measured times ----

def read_ops(path):
    """The ops after START of log PATH: (name, time_ns, flops, bytes) each
    (flops and bytes None where the record has none)."""
    opener = gzip.open if _is_gzip(path) else open
    ops = []
    with opener(path, "rt") as f:
        for line in f:
            if '"START"' in line:
                ops = []
                continue
            if '"CALL"' not in line and '"MUTATE"' not in line:
                continue
            j = json.loads(line)
            if j.get("INSTRUCTION") not in ("CALL", "MUTATE"):
                continue
            fl = j.get("FLOPS")
            by = j.get("BYTES")
            ops.append((j["NAME"], int(j["TIME"]), int(fl) if fl is not None else None,
                        int(by) if by is not None else None))
    return ops


def _is_gzip(path):
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


def fit(model, rows, by_op=False):
    """Fit each class's (BY_OP: each op name's) efficiency and launch to
    ROWS (name, measured_ns, flops, bytes, dtype): measured = launch +
    ideal / e, ideal the roofline time at full efficiency, by least squares
    on relative error (weights 1/measured^2). Returns the calibration (a
    dict as the file holds)."""
    by = {}
    for name, t, fl, b, dt in rows:
        cls = op_class(name)
        if t <= 0:
            continue
        ideal = max(fl / model.peak(cls, dt), b / model.dev["bandwidth"]) * 1e9
        by.setdefault(name.split("::")[-1] if by_op else cls, []).append((ideal, t))
    out = {}
    for cls, pts in sorted(by.items()):
        # Minimise sum ((L + s x - t) / t)^2 over L >= 0, s > 0 (s = 1/e).
        sw = swx = swxx = swt = swxt = 0.0
        for x, t in pts:
            w = 1.0 / (t * t)
            sw += w
            swx += w * x
            swxx += w * x * x
            swt += w * t
            swxt += w * x * t
        det = sw * swxx - swx * swx
        if det > 0:
            s = (sw * swxt - swx * swt) / det
            L = (swt - s * swx) / sw
        else:
            s, L = 0.0, swt / sw
        if L < 0 or s <= 0:
            if L < 0:
                L = 0.0
                s = swxt / swxx if swxx > 0 else 1.0
            if s <= 0:
                s, L = 1e-9, swt / sw
        e = min(1.0 / s, 1.0) if s > 1e-9 else 1.0
        out[cls] = {"e_flops": e, "e_bytes": e, "launch_ns": L}
    return {"device": model.key, "ops" if by_op else "classes": out,
            "note": "fitted by rematsim_torch timecheck on %d ops" % len(rows)}


def errors(model, rows):
    """Per class and for the whole step: (ops, measured ns, predicted ns,
    error of the sum, median absolute per-op relative error)."""
    per = {}
    for name, t, fl, b, dt in rows:
        cls = op_class(name)
        p = model.time_ns(name, fl, b, dt)
        per.setdefault(cls, []).append((t, p))
    per["step"] = [x for v in list(per.values()) for x in v]
    out = {}
    for cls, pts in per.items():
        m = sum(t for t, _ in pts)
        p = sum(q for _, q in pts)
        rel = sorted(abs(q - t) / t for t, q in pts if t > 0)
        out[cls] = {"ops": len(pts), "measured_ns": m, "predicted_ns": p,
                    "sum_error": (p - m) / m if m else None,
                    "median_op_error": rel[len(rel) // 2] if rel else None}
    return out
