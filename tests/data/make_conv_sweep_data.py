#!/usr/bin/env python3
"""Regenerates the correctness-sweep fixtures in this folder from ../shared/data.

  onnx_conv_cases.txt   the 17 ONNX backend Conv2d node tests (Apache-2.0,
                        onnx/onnx; see ../shared/data/onnx_conv/LICENSE), as
                        plain text the C++ test reads without a JSON library.
  conv_sweep_shapes.txt convolution shapes drawn from DeepBench and oneDNN's
                        benchdnn inputs (Apache-2.0), by category, each small
                        enough (at N=1, or benchdnn's N=2 where it fits) that
                        a slow config still runs in well under a second on
                        PoCL, plus ResNet-50's 7x7 stride-2 conv1, scaled down.

Run from the project root: .venv/bin/python tests/data/make_conv_sweep_data.py
The output is committed; the script records how it was chosen.
"""

import csv
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "data")
OUT = os.path.dirname(os.path.abspath(__file__))
MAX_GFLOP = 0.04  # per shape at the batch chosen
PER_CATEGORY = 5


def onnx_cases():
    with open(os.path.join(SHARED, "onnx_conv", "conv_cases.json")) as stream:
        cases = json.load(stream)
    lines = [
        "# name N C H W K R S stride_h stride_w pad_h pad_w dilation_h dilation_w groups bias",
        "# then lines x, w, b (when bias), y: the tensor's values (NCHW, filter KCRS)",
    ]
    for name, case in cases.items():
        a = case["attrs"]
        n, c, h, w = case["x"]["dims"]
        k, _, r, s = case["w"]["dims"]
        sh, sw = a.get("strides", [1, 1])
        dh, dw = a.get("dilations", [1, 1])
        groups = a.get("group", 1)
        p, q = case["y"]["dims"][2:]
        if a.get("auto_pad", "NOTSET") in ("SAME_LOWER", "SAME_UPPER"):
            total_h = max((p - 1) * sh + (r - 1) * dh + 1 - h, 0)
            total_w = max((q - 1) * sw + (s - 1) * dw + 1 - w, 0)
            pads = [total_h // 2, total_w // 2, total_h - total_h // 2, total_w - total_w // 2]
        else:
            pads = a.get("pads", [0, 0, 0, 0])
        # beast pads symmetrically; ONNX lists [h_begin, w_begin, h_end, w_end].
        assert pads[0] == pads[2] and pads[1] == pads[3], name
        bias = case["b"]
        if isinstance(bias, dict):
            bias = bias["data"]
        fields = [
            n,
            c,
            h,
            w,
            k,
            r,
            s,
            sh,
            sw,
            pads[0],
            pads[1],
            dh,
            dw,
            groups,
            int(bias is not None),
        ]
        lines.append("case %s %s" % (name, " ".join(str(v) for v in fields)))
        tensors = [("x", case["x"]["data"]), ("w", case["w"]["data"])]
        if bias is not None:
            tensors.append(("b", bias))
        tensors.append(("y", case["y"]["data"]))
        for tag, values in tensors:
            lines.append(tag + " " + " ".join(repr(float(v)) for v in values))
    return lines


def out_size(size, pad, dil, taps, stride):
    return (size + 2 * pad - dil * (taps - 1) - 1) // stride + 1


def shape_rows(max_gflop=MAX_GFLOP):
    rows = []
    with open(os.path.join(SHARED, "deepbench", "deepbench_conv_problems.csv")) as stream:
        deepbench = list(csv.DictReader(stream))
    with open(os.path.join(SHARED, "benchdnn", "benchdnn_conv2d_shapes.csv")) as stream:
        benchdnn = list(csv.DictReader(stream))
    for r in deepbench:
        rows.append(
            dict(
                src="deepbench:" + r["set"],
                N=1,
                C=int(r["C"]),
                H=int(r["H"]),
                W=int(r["W"]),
                K=int(r["K"]),
                R=int(r["R"]),
                S=int(r["S"]),
                sh=int(r["stride_h"]),
                sw=int(r["stride_w"]),
                ph=int(r["pad_h"]),
                pw=int(r["pad_w"]),
                dh=1,
                dw=1,
                G=1,
            )
        )
    for r in benchdnn:
        rows.append(
            dict(
                src="benchdnn:" + r["name"],
                N=1,
                C=int(r["C"]),
                H=int(r["H"]),
                W=int(r["W"]),
                K=int(r["K"]),
                R=int(r["R"]),
                S=int(r["S"]),
                sh=int(r["stride_h"]),
                sw=int(r["stride_w"]),
                ph=int(r["pad_h"]),
                pw=int(r["pad_w"]),
                dh=int(r["dil_h"]) + 1,
                dw=int(r["dil_w"]) + 1,
                G=int(r["G"]),
                batch=int(r["N"]),
            )
        )
    kept = []
    for r in rows:
        r["P"] = out_size(r["H"], r["ph"], r["dh"], r["R"], r["sh"])
        r["Q"] = out_size(r["W"], r["pw"], r["dw"], r["S"], r["sw"])
        if r["P"] <= 0 or r["Q"] <= 0 or r["C"] % r["G"] or r["K"] % r["G"]:
            continue
        r["gflop"] = 2e-9 * r["N"] * r["K"] * r["P"] * r["Q"] * (r["C"] // r["G"]) * r["R"] * r["S"]
        if r["gflop"] <= max_gflop:
            kept.append(r)
    return kept


CATEGORIES = [
    ("1x1 stride 1", lambda r: r["R"] == r["S"] == 1 and r["sh"] == 1 and r["G"] == 1),
    ("1x1 stride 2", lambda r: r["R"] == r["S"] == 1 and r["sh"] == 2 and r["G"] == 1),
    (
        "3x3 stride 1",
        lambda r: r["R"] == r["S"] == 3 and r["sh"] == 1 and r["G"] == 1 and r["dh"] == 1,
    ),
    ("3x3 stride 2", lambda r: r["R"] == r["S"] == 3 and r["sh"] == 2 and r["G"] == 1),
    ("5x5", lambda r: r["R"] == r["S"] == 5 and r["G"] == 1),
    ("7x7", lambda r: r["R"] == r["S"] == 7 and r["G"] == 1),
    ("non-square filter", lambda r: r["R"] != r["S"] and r["G"] == 1),
    ("depthwise", lambda r: r["G"] > 1 and r["G"] == r["C"] == r["K"]),
    ("grouped", lambda r: 1 < r["G"] < r["C"]),
    ("dilated", lambda r: r["dh"] > 1 or r["dw"] > 1),
    (
        "odd sizes",
        lambda r: r["H"] % 2 == 1 and r["W"] % 2 == 1 and r["C"] % 2 == 1 and r["G"] == 1,
    ),
]


def shape_key(r):
    return (
        "conv2d:N=%d,C=%d,H=%d,W=%d,K=%d,R=%d,S=%d,stride_h=%d,stride_w=%d,pad_h=%d,"
        "pad_w=%d,dilation_h=%d,dilation_w=%d,groups=%d"
        % (
            r["N"],
            r["C"],
            r["H"],
            r["W"],
            r["K"],
            r["R"],
            r["S"],
            r["sh"],
            r["sw"],
            r["ph"],
            r["pw"],
            r["dh"],
            r["dw"],
            r["G"],
        )
    )


def resnet50_conv1():
    """ResNet-50's first layer (7x7, stride 2, pad 3, C=3), at benchdnn's batch of
    2 but 30x30 instead of 224x224 to stay within the budget."""
    rows = shape_rows(max_gflop=float("inf"))
    r = dict(next(r for r in rows if r["src"] == "benchdnn:resnet_50_v1_5:conv1"))
    r["N"], r["H"], r["W"] = r["batch"], 30, 30
    r["P"] = out_size(r["H"], r["ph"], r["dh"], r["R"], r["sh"])
    r["Q"] = out_size(r["W"], r["pw"], r["dw"], r["S"], r["sw"])
    r["gflop"] = 2e-9 * r["N"] * r["K"] * r["P"] * r["Q"] * r["C"] * r["R"] * r["S"]
    assert (r["C"], r["R"], r["sh"], r["ph"]) == (3, 7, 2, 3) and r["gflop"] <= MAX_GFLOP
    return "%s  # 7x7 stride 2 pad 3, %s at 30x30, %.4f GFLOP" % (
        shape_key(r),
        r["src"],
        r["gflop"],
    )


def sweep_shapes():
    rows = shape_rows()
    chosen, seen = [], set()
    for label, match in CATEGORIES:
        # Largest first within the budget: real layer sizes, not toy ones.
        pool = sorted((r for r in rows if match(r)), key=lambda r: -r["gflop"])
        taken = 0
        for r in pool:
            key = shape_key(r)
            if key in seen:
                continue
            seen.add(key)
            # A benchdnn row of batch 2 keeps it where that stays within the
            # budget, so the kernels' batch loops and offsets are checked too.
            if r.get("batch") == 2 and 2 * r["gflop"] <= MAX_GFLOP:
                r = dict(r, N=2, gflop=2 * r["gflop"])
            chosen.append("%s  # %s, %s, %.4f GFLOP" % (shape_key(r), label, r["src"], r["gflop"]))
            taken += 1
            if taken == PER_CATEGORY:
                break
    chosen.append(resnet50_conv1())
    header = [
        "# Convolution shapes of the correctness sweep (at most %g GFLOP each), %d per"
        % (MAX_GFLOP, PER_CATEGORY),
        "# category, drawn by tests/data/make_conv_sweep_data.py from DeepBench and oneDNN",
        "# benchdnn (Apache-2.0), at N=1 but N=2 where benchdnn's row has it and the",
        "# budget allows; and ResNet-50's 7x7 stride-2 first layer, scaled down. One",
        "# problem per line; after # the category, the source and the size. The layout",
        "# is added by the test.",
    ]
    return header + chosen


def main():
    with open(os.path.join(OUT, "onnx_conv_cases.txt"), "w") as f:
        f.write("\n".join(onnx_cases()) + "\n")
    shapes = sweep_shapes()
    with open(os.path.join(OUT, "conv_sweep_shapes.txt"), "w") as f:
        f.write("\n".join(shapes) + "\n")
    print("%d shapes" % sum(1 for s in shapes if not s.startswith("#")))


if __name__ == "__main__":
    main()
