#!/usr/bin/env python3
"""PyTorch side of the softmax benchmark (issue 6): times torch's softmax ops
on the shapes and dtypes of cmd/softmax-bench and writes the same JSON record
schema, so that cmd/bench-merge can join the two runs.

Run on the GPU machine:  python3 bench/torch_bench.py --out $OUT/torch.json
Smoke test:              python3 bench/torch_bench.py --quick --out $OUT/torch.json

Method: CUDA events around each call, warm-up first, the median of --reps
(>= 50) calls. Whenever one call's buffer set (the bytes it reads and writes)
is smaller than 3x the L2, inputs are rotated among enough buffer sets that
together they exceed 3x the L2; the outputs are kept in a ring of the same
length so that the caching allocator hands out rotating output blocks too.
Inputs are fresh torch.randn * 3 (never zeros). Bytes are reads + writes:
forward 2*n*es, masked +n (the 1-byte mask), causal 2*n*es (its [L,L] mask is
broadcast, not per element, so not counted), backward 3*n*es (y, dy read, dx
written). A 1 GiB device-to-device copy measured in the same process (bytes
= 2 x size) gives copy_gbs, and each record's pct_copy is relative to it.
"""
import argparse
import datetime
import json
import math
import os
import statistics
import sys
import time

try:
    import torch
except ImportError:  # lets the pure-Python parts be imported and tested anywhere
    torch = None

GiB = 1 << 30
DEFAULT_L2 = 60 * 1000 * 1000  # H200: 60 MB (props.L2_cache_size = 62914560)

# The shapes of issue 6, in its order.
SHAPES = (
    [(128, 1024)]
    + [(2048, c) for c in (1024, 2048, 4096, 8192)]
    + [(4, c) for c in (16384, 32768, 65536, 114688, 262144, 1048576, 8388608, 33554432)]
    + [(65536, 128), (32768, 512), (16384, 2048), (8192, 4096), (1024, 32000), (256, 128256), (1, 1048576)]
    + [(16, 16, 2048, 2048)]
)
QUICK_SHAPES = [(128, 1024), (2048, 4096), (4, 1048576), (8192, 4096), (2, 4, 512, 512)]

DTYPES = ("float32", "float16", "bfloat16")
ELEM_SIZE = {"float32": 4, "float16": 2, "bfloat16": 2}

OPS_2D = ("softmax", "log_softmax", "masked_softmax", "softmax_backward", "log_softmax_backward")
OPS_4D = ("softmax", "causal_softmax", "softmax_backward", "log_softmax_backward")
ALL_OPS = ("softmax", "log_softmax", "masked_softmax", "causal_softmax", "softmax_backward", "log_softmax_backward")

KEEP_DENSITY = 0.9

NOTES = {
    "softmax": "torch.softmax(x, -1)",
    "log_softmax": "torch.log_softmax(x, -1)",
    "masked_softmax": "torch.softmax(x.masked_fill(drop, -inf), -1); drop = ~keep precomputed, "
    "bool, 1 B/elem, same shape as x (no broadcast), keep density 0.9; the masked_fill temporary is not counted",
    "causal_softmax": "torch.softmax(x.masked_fill(causal, -inf), -1); causal = precomputed bool "
    "triu(ones(L,L), 1) broadcast over the leading dims, not materialized per element: mask bytes not counted; "
    "the masked_fill temporary is not counted",
    "softmax_backward": "torch._softmax_backward_data(dy, y, -1, dtype), y = softmax(x)",
    "log_softmax_backward": "torch._log_softmax_backward_data(dy, y, -1, dtype), y = log_softmax(x)",
}


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def ops_for(shape):
    """Ops run on a shape: the 4-D causal attention score tensor gets softmax,
    causal softmax and the two backwards; 2-D shapes get everything else."""
    return OPS_4D if len(shape) == 4 else OPS_2D


def op_bytes(op, shape, dtype):
    """Bytes counted for one call: reads + writes."""
    n, es = numel(shape), ELEM_SIZE[dtype]
    if op in ("softmax", "log_softmax", "causal_softmax"):
        return 2 * n * es
    if op == "masked_softmax":
        return 2 * n * es + n
    if op in ("softmax_backward", "log_softmax_backward"):
        return 3 * n * es
    raise ValueError("unknown op " + op)


def num_bufs(set_bytes, l2_bytes, max_bufs=4096):
    """Buffer sets to rotate among: 1 if one set is at least 3x the L2, else
    enough that together they exceed 3x the L2."""
    if set_bytes >= 3 * l2_bytes:
        return 1
    return min(max_bufs, 3 * l2_bytes // set_bytes + 1)


def peak_bytes(op, shape, dtype, nbuf):
    """Estimate of the device memory one op's case holds: rotated inputs, the
    output ring (nbuf+1 blocks), temporaries."""
    n, es = numel(shape), ELEM_SIZE[dtype]
    t = n * es
    if op in ("softmax", "log_softmax"):
        return nbuf * t + (nbuf + 1) * t
    if op == "masked_softmax":
        return nbuf * (t + n) + (nbuf + 1) * t + t
    if op == "causal_softmax":
        return nbuf * t + shape[-1] * shape[-2] + (nbuf + 1) * t + t
    # backward: y and dy per set, output ring, and x while y is made
    return nbuf * 2 * t + (nbuf + 1) * t + t


def shape_str(shape):
    return "x".join(str(d) for d in shape)


def parse_shapes(s):
    return [tuple(int(d) for d in part.split("x")) for part in s.split(",") if part]


def make_record(op, dtype, shape, median_us, nbytes, nbuf, copy_gbs, runs):
    gbs = nbytes / median_us / 1e3  # bytes/us -> GB/s
    return {
        "impl": "torch",
        "op": op,
        "dtype": dtype,
        "shape": list(shape),
        "median_us": round(median_us, 4),
        "gbs": round(gbs, 3),
        "pct_copy": round(100.0 * gbs / copy_gbs, 3) if copy_gbs else None,
        "bytes": nbytes,
        "bufs": nbuf,
        "runs": runs,
        "note": NOTES[op],
    }


def write_json(path, doc):
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def summary_lines(doc):
    recs = doc["records"]
    lines = [f"copy {doc['copy_gbs']:.0f} GB/s; {len(recs)} records, {len(doc['skipped'])} skipped"]
    if recs:
        lo = min(recs, key=lambda r: r["pct_copy"] or 0)
        hi = max(recs, key=lambda r: r["pct_copy"] or 0)
        for name, r in (("lowest", lo), ("highest", hi)):
            lines.append(f"{name} % of copy: {r['pct_copy']:.1f}% {r['op']} {r['dtype']} {shape_str(r['shape'])}")
        for dt in DTYPES:
            sm = [r for r in recs if r["dtype"] == dt and r["op"] == "softmax"]
            if sm:
                best = max(sm, key=lambda r: r["gbs"])
                lines.append(f"softmax {dt}: best {best['gbs']:.0f} GB/s ({best['pct_copy']:.0f}%) at {shape_str(best['shape'])}")
    return lines


# ---------------------------------------------------------------- torch parts

TORCH_DTYPES = {}


class Timer:
    """Times calls with CUDA events on a GPU, perf_counter on the CPU (the CPU
    path is only for testing the script where no GPU is)."""

    def __init__(self, device):
        self.cuda = device.startswith("cuda")

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize()

    def run(self, calls, reps, warmup_s=0.05, min_warmup=10):
        """calls: one closure per buffer set, each returning its output. Runs
        them in rotation, outputs kept in a ring; returns per-call times in us."""
        nb = len(calls)
        ring = [None] * nb
        k = 0
        # estimate one call, then warm up for warmup_s, at least one full pass
        t0 = time.perf_counter()
        for _ in range(3):
            j = k % nb
            ring[j] = calls[j]()
            k += 1
        self.sync()
        est = max((time.perf_counter() - t0) / 3, 1e-6)
        nwarm = max(min_warmup, nb, min(2000, int(warmup_s / est)))
        for _ in range(nwarm):
            j = k % nb
            ring[j] = calls[j]()
            k += 1
        self.sync()
        times = []
        if self.cuda:
            starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
            ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
            for i in range(reps):
                j = k % nb
                starts[i].record()
                out = calls[j]()
                ends[i].record()
                ring[j] = out
                k += 1
            torch.cuda.synchronize()
            times = [s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends)]
        else:
            for i in range(reps):
                j = k % nb
                t = time.perf_counter()
                out = calls[j]()
                times.append((time.perf_counter() - t) * 1e6)
                ring[j] = out
                k += 1
        del ring
        return times


def randn(shape, dtype, device):
    return torch.randn(*shape, device=device, dtype=TORCH_DTYPES[dtype]) * 3


def build_calls(op, shape, dtype, nbuf, device):
    """One closure per buffer set, and the objects that keep the buffers alive."""
    tdt = TORCH_DTYPES[dtype]
    calls = []
    if op in ("softmax", "log_softmax"):
        f = torch.softmax if op == "softmax" else torch.log_softmax
        for _ in range(nbuf):
            x = randn(shape, dtype, device)
            calls.append(lambda x=x: f(x, -1))
    elif op == "masked_softmax":
        ninf = float("-inf")
        for _ in range(nbuf):
            x = randn(shape, dtype, device)
            keep = torch.rand(*shape, device=device) < KEEP_DENSITY
            drop = ~keep
            del keep
            calls.append(lambda x=x, m=drop: torch.softmax(x.masked_fill(m, ninf), -1))
    elif op == "causal_softmax":
        L, S = shape[-2], shape[-1]
        causal = torch.ones(L, S, dtype=torch.bool, device=device).triu(1)
        ninf = float("-inf")
        for _ in range(nbuf):
            x = randn(shape, dtype, device)
            calls.append(lambda x=x, m=causal: torch.softmax(x.masked_fill(m, ninf), -1))
    elif op in ("softmax_backward", "log_softmax_backward"):
        for _ in range(nbuf):
            x = randn(shape, dtype, device)
            if op == "softmax_backward":
                y = torch.softmax(x, -1)
            else:
                y = torch.log_softmax(x, -1)
            del x
            dy = randn(shape, dtype, device)
            if op == "softmax_backward":
                calls.append(lambda y=y, dy=dy: torch._softmax_backward_data(dy, y, -1, tdt))
            else:
                calls.append(lambda y=y, dy=dy: torch._log_softmax_backward_data(dy, y, -1, tdt))
    else:
        raise ValueError("unknown op " + op)
    return calls


def measure_copy(timer, device, nbytes, reps):
    x = torch.empty(nbytes, dtype=torch.uint8, device=device).random_(0, 255)
    y = torch.empty_like(x)
    times = timer.run([lambda: y.copy_(x)], reps)
    med = statistics.median(times)
    del x, y
    return 2 * nbytes / med / 1e3, med


def free_memory(device):
    if device.startswith("cuda"):
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_out = os.path.join(os.environ["OUT"], "torch.json") if os.environ.get("OUT") else "torch.json"
    ap.add_argument("--out", default=default_out, help="JSON output path (default $OUT/torch.json)")
    ap.add_argument("--quick", action="store_true", help="a few shapes, few reps: a smoke test")
    ap.add_argument("--reps", type=int, default=0, help="timed calls per case (default 100, quick 20)")
    ap.add_argument("--shapes", default="", help="comma-separated shapes to run instead, e.g. 128x1024,16x16x2048x2048")
    ap.add_argument("--dtypes", default="", help="comma-separated dtypes (default float32,float16,bfloat16)")
    ap.add_argument("--ops", default="", help="comma-separated ops (default all that apply to each shape)")
    ap.add_argument("--cap-gib", type=float, default=60.0, help="skip a case whose buffers would exceed this (GiB)")
    ap.add_argument("--copy-mib", type=int, default=1024, help="size of the copy that gives copy_gbs (MiB)")
    ap.add_argument("--device", default="cuda", help="cuda (default); cpu only to test the script")
    args = ap.parse_args(argv)

    if torch is None:
        sys.exit("torch_bench: torch is not installed")
    global TORCH_DTYPES
    TORCH_DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}

    reps = args.reps or (20 if args.quick else 100)
    if not args.quick and reps < 50:
        print(f"note: --reps {reps} is under the 50 the method asks for", file=sys.stderr)
    shapes = parse_shapes(args.shapes) if args.shapes else (QUICK_SHAPES if args.quick else SHAPES)
    dtypes = args.dtypes.split(",") if args.dtypes else list(DTYPES)
    only_ops = set(args.ops.split(",")) if args.ops else None
    for d in dtypes:
        if d not in ELEM_SIZE:
            sys.exit(f"torch_bench: unknown dtype {d}")
    if only_ops and not only_ops <= set(ALL_OPS):
        sys.exit(f"torch_bench: unknown ops {sorted(only_ops - set(ALL_OPS))}")
    cap = int(args.cap_gib * GiB)

    device = args.device
    timer = Timer(device)
    if device.startswith("cuda"):
        props = torch.cuda.get_device_properties(0)
        dev_name = props.name
        l2 = getattr(props, "L2_cache_size", 0) or DEFAULT_L2
        sms = props.multi_processor_count
    else:
        dev_name, l2, sms = "cpu", DEFAULT_L2, 0
    torch.manual_seed(0)

    t_start = time.time()
    copy_gbs, copy_us = measure_copy(timer, device, args.copy_mib << 20, max(reps, 50))
    doc = {
        "impl": "torch",
        "device": dev_name,
        "torch": torch.__version__,
        "cuda": getattr(torch.version, "cuda", None),
        "copy_gbs": round(copy_gbs, 3),
        "copy_bytes": 2 * (args.copy_mib << 20),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "l2_bytes": l2,
        "sms": sms,
        "method": f"CUDA events per call, median of {reps} calls after warm-up; inputs rotated among "
        "buffer sets totalling > 3x L2 when one set is smaller; outputs kept in a ring of the same length",
        "quick": bool(args.quick),
        "records": [],
        "skipped": [],
    }
    print(f"device {dev_name} SMs {sms} L2 {l2} torch {torch.__version__}; reps {reps}; out {args.out}")
    print(f"copy {args.copy_mib} MiB: {copy_us:.1f} us  {copy_gbs:.0f} GB/s")
    print(f"{'op':21s} {'dtype':9s} {'shape':>16s} {'us':>11s} {'GB/s':>7s} {'%copy':>6s} {'bufs':>5s}")
    write_json(args.out, doc)

    for dtype in dtypes:
        for shape in shapes:
            for op in ops_for(shape):
                if only_ops and op not in only_ops:
                    continue
                nbytes = op_bytes(op, shape, dtype)
                nbuf = num_bufs(nbytes, l2)
                need = peak_bytes(op, shape, dtype, nbuf)
                tag = f"{op:21s} {dtype:9s} {shape_str(shape):>16s}"
                if need > cap:
                    reason = f"needs ~{need / GiB:.1f} GiB > cap {args.cap_gib:g} GiB"
                    doc["skipped"].append({"op": op, "dtype": dtype, "shape": list(shape), "reason": reason})
                    print(f"{tag} skipped: {reason}", flush=True)
                    continue
                calls = None
                try:
                    calls = build_calls(op, shape, dtype, nbuf, device)
                    times = timer.run(calls, reps)
                    med = statistics.median(times)
                    rec = make_record(op, dtype, shape, med, nbytes, nbuf, copy_gbs, len(times))
                    doc["records"].append(rec)
                    print(f"{tag} {med:11.2f} {rec['gbs']:7.0f} {rec['pct_copy']:5.1f}% {nbuf:5d}", flush=True)
                except (RuntimeError, MemoryError) as e:  # torch.cuda.OutOfMemoryError is a RuntimeError
                    reason = str(e).strip().split("\n")[0][:200]
                    doc["skipped"].append({"op": op, "dtype": dtype, "shape": list(shape), "reason": reason})
                    print(f"{tag} failed: {reason}", flush=True)
                del calls
                free_memory(device)
            write_json(args.out, doc)

    doc["seconds"] = round(time.time() - t_start, 1)
    write_json(args.out, doc)
    print(f"wrote {args.out} in {doc['seconds']:.0f} s")
    for line in summary_lines(doc):
        print(line)


if __name__ == "__main__":
    main()
