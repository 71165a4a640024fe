#!/usr/bin/env python3
"""Writes the job files of this folder (beast tune --problems FILE) from the
sources the repository ships:

  resnet50_b1.job, resnet50_b32.job,          models/*.onnx (make_models.py:
  mobilenet_v2_b1.job, mobilenet_v2_b32.job   torchvision's architectures) read
                                              by `beast problems --onnx`
  deepbench_inference_conv.job                sources/deepbench_conv_inference.csv
  deepbench_inference_gemm.job                sources/deepbench_gemm_inference.csv
  benchdnn_resnet50.job                       sources/benchdnn_resnet50.csv

Run from the project root after building beast:

  .venv/bin/python3 jobs/make_jobs.py [--beast build/beast/beast] [--out jobs]

Every job is NCHW (the tables' layout) and f32; `beast problems --onnx
MODEL --layout NHWC --dtype f16` makes the other variants of a model.
"""

import argparse
import csv
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SOURCES = os.path.join(HERE, "sources")
MODEL_JOBS = [("resnet50", 1), ("resnet50", 32), ("mobilenet_v2", 1), ("mobilenet_v2", 32)]


def conv_key(row, dilation=(1, 1), groups=1):
    """The problem key of a table row (its N, C, H, W, K, R, S, stride_h,
    stride_w, pad_h and pad_w columns), NCHW f32 without bias."""
    v = [int(row[f]) for f in ("N", "C", "H", "W", "K", "R", "S")]
    v += [int(row[f]) for f in ("stride_h", "stride_w", "pad_h", "pad_w")]
    return (
        "conv2d:N=%d,C=%d,H=%d,W=%d,K=%d,R=%d,S=%d,stride_h=%d,stride_w=%d,pad_h=%d,pad_w=%d,"
        "dilation_h=%d,dilation_w=%d,groups=%d,bias=0,layout=NCHW,dtype=f32"
        % (*v, *dilation, groups)
    )


def weighted_lines(rows):
    """rows of (key, weight, comment) -> job lines, duplicates merged in
    first-seen order with their weights summed and their comments joined."""
    merged = {}
    for key, weight, comment in rows:
        if key in merged:
            merged[key][0] += weight
            merged[key][1].append(comment)
        else:
            merged[key] = [weight, [comment]]
    return ["%s x%d  # %s" % (k, w, ", ".join(c)) for k, (w, c) in merged.items()]


def read_csv(name):
    with open(os.path.join(SOURCES, name), newline="") as f:
        return list(csv.DictReader(f))


def table_job(source, header, key_of, weight_of=lambda r: 1, comment_of=None):
    """A job from a table of sources/: a key (and weight, and comment) per row."""
    rows = read_csv(source)
    if comment_of is None:
        comments = ["%s row %d" % (r["set"], i + 1) for i, r in enumerate(rows)]
    else:
        comments = [comment_of(r) for r in rows]
    return header + weighted_lines([(key_of(r), weight_of(r), c) for r, c in zip(rows, comments)])


def deepbench_gemm_key(r):
    # DeepBench multiplies column-major matrices (cuBLAS's order).
    return "gemm:M=%s,N=%s,K=%s,transA=%s,transB=%s,layout=col,dtype=f32" % (
        r["M"],
        r["N"],
        r["K"],
        r["a_t"],
        r["b_t"],
    )


def benchdnn_key(r):
    # benchdnn writes dilation 0 for none.
    return conv_key(r, (int(r["dil_h"]) + 1, int(r["dil_w"]) + 1), int(r["G"]))


def deepbench_conv_job():
    header = [
        "# DeepBench's inference convolutions (server and device sets), NCHW f32,",
        "# from sources/deepbench_conv_inference.csv (baidu-research/DeepBench, Apache-2.0)",
    ]
    return table_job("deepbench_conv_inference.csv", header, conv_key)


def deepbench_gemm_job():
    header = [
        "# DeepBench's inference GEMMs (server and device sets), column-major f32,",
        "# from sources/deepbench_gemm_inference.csv (baidu-research/DeepBench, Apache-2.0)",
    ]
    return table_job("deepbench_gemm_inference.csv", header, deepbench_gemm_key)


def benchdnn_resnet50_job():
    header = [
        "# oneDNN benchdnn's ResNet-50 convolutions (shapes_resnet_50, mb 50), NCHW f32,",
        "# weights = layers sharing the shape; from sources/benchdnn_resnet50.csv",
        "# (uxlfoundation/oneDNN, Apache-2.0)",
    ]
    return table_job(
        "benchdnn_resnet50.csv",
        header,
        benchdnn_key,
        weight_of=lambda r: int(r["mult"]),
        comment_of=lambda r: r["name"].split("*")[0],
    )


def model_job(beast, model, batch):
    path = os.path.join("jobs", "models", model + ".onnx")  # relative: the header names it
    result = subprocess.run(
        [beast, "problems", "--onnx", path, "--batch", str(batch)],
        check=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    return result.stdout.rstrip("\n").split("\n")


def jobs(beast):
    """{file name: text} of every job of the folder."""
    out = {
        "deepbench_inference_conv.job": deepbench_conv_job(),
        "deepbench_inference_gemm.job": deepbench_gemm_job(),
        "benchdnn_resnet50.job": benchdnn_resnet50_job(),
    }
    for model, batch in MODEL_JOBS:
        out["%s_b%d.job" % (model, batch)] = model_job(beast, model, batch)
    return {name: "\n".join(lines) + "\n" for name, lines in out.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beast", default=os.path.join(ROOT, "build", "beast", "beast"))
    parser.add_argument("--out", default=HERE)
    args = parser.parse_args()
    for name, text in jobs(args.beast).items():
        with open(os.path.join(args.out, name), "w") as f:
            f.write(text)
        print("%s: %d problems" % (name, sum(1 for line in text.split("\n") if line[:1].isalpha())))


if __name__ == "__main__":
    main()
