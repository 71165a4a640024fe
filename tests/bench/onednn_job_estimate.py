#!/usr/bin/env python3
"""A job's network estimate with PyTorch's own CPU operators (oneDNN for the
convolutions, its GEMM for the rest): for every problem of a job file, the
median time of F.conv2d (or a @ b) on random inputs of its shape, on every
core, times its weight, summed. The reference that issue 21's ResNet-50 bench
(resnet50_job.sh) prints beside beast's weighted sum.

  python3 tests/bench/onednn_job_estimate.py JOB [--reps N] [--json] [--prepacked]

--prepacked times each convolution the way oneDNN runs a frozen inference
model: its weights reordered once into oneDNN's blocked layout
(torch.utils.mkldnn.to_mkldnn) and the activations kept in that layout, so
neither reorder is in the time — the counterpart of beast's prepared
weights (beast_conv2d_prepare).

Needs the system Python's torch (./run test installs python3-torch).
"""

import argparse
import json
import os
import statistics
import time

import torch
import torch.nn.functional as F
import torch.utils.mkldnn


def parse(line):
    """(op, {field: value}, weight) of a job line, or None for a comment."""
    line = line.split("#")[0].strip()
    if not line:
        return None
    key, _, weight = line.partition(" x")
    op, _, fields = key.strip().partition(":")
    values = dict(f.split("=") for f in fields.split(","))
    return op, values, int(weight or 1), key.strip()


def conv_call(v):
    n, c, h, w, k = (int(v[f]) for f in ("N", "C", "H", "W", "K"))
    r, s, g = int(v["R"]), int(v["S"]), int(v.get("groups", 1))
    if v.get("layout", "NCHW") != "NCHW" or v.get("dtype", "f32") != "f32":
        raise SystemExit("only NCHW f32 jobs: " + str(v))
    x = torch.randn(n, c, h, w)
    weight = torch.randn(k, c // g, r, s)
    bias = torch.randn(k) if v.get("bias", "0") == "1" else None
    stride = (int(v["stride_h"]), int(v["stride_w"]))
    pad = (int(v["pad_h"]), int(v["pad_w"]))
    dil = (int(v["dilation_h"]), int(v["dilation_w"]))
    return lambda: F.conv2d(x, weight, bias, stride, pad, dil, g)


def prepacked_conv_call(v):
    """conv_call with the weights reordered once and x in oneDNN's layout."""
    n, c, h, w, k = (int(v[f]) for f in ("N", "C", "H", "W", "K"))
    r, s, g = int(v["R"]), int(v["S"]), int(v.get("groups", 1))
    if v.get("layout", "NCHW") != "NCHW" or v.get("dtype", "f32") != "f32":
        raise SystemExit("only NCHW f32 jobs: " + str(v))
    conv = torch.nn.Conv2d(
        c,
        k,
        (r, s),
        stride=(int(v["stride_h"]), int(v["stride_w"])),
        padding=(int(v["pad_h"]), int(v["pad_w"])),
        dilation=(int(v["dilation_h"]), int(v["dilation_w"])),
        groups=g,
        bias=v.get("bias", "0") == "1",
    ).eval()
    conv = torch.utils.mkldnn.to_mkldnn(conv)
    x = torch.randn(n, c, h, w).to_mkldnn()
    return lambda: conv(x)


def gemm_call(v):
    m, n, k = int(v["M"]), int(v["N"]), int(v["K"])
    a = torch.randn(k, m).t() if v.get("transA") == "1" else torch.randn(m, k)
    b = torch.randn(n, k).t() if v.get("transB") == "1" else torch.randn(k, n)
    return lambda: a @ b


def median_ms(call, reps):
    call()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("job")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--prepacked", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(os.cpu_count())
    rows, total = [], 0.0
    with torch.inference_mode(), open(args.job) as f:
        for line in f:
            parsed = parse(line)
            if parsed is None:
                continue
            op, values, weight, key = parsed
            if op != "conv2d":
                call = gemm_call(values)
            else:
                call = prepacked_conv_call(values) if args.prepacked else conv_call(values)
            ms = median_ms(call, args.reps)
            total += weight * ms
            rows.append({"problem": key, "weight": weight, "median_ms": ms})
    if args.json:
        print(
            json.dumps(
                {
                    "torch": torch.__version__,
                    "threads": torch.get_num_threads(),
                    "prepacked": args.prepacked,
                    "problems": rows,
                    "weighted_ms": total,
                }
            )
        )
    else:
        for r in rows:
            print("%9.4f ms x%-2d %s" % (r["median_ms"], r["weight"], r["problem"]))
        print(
            "weighted sum: %.3f ms (PyTorch %s, %d threads)"
            % (total, torch.__version__, torch.get_num_threads())
        )


if __name__ == "__main__":
    main()
