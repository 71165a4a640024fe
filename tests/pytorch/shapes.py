"""The shapes the beast_torch tests call, fixed by seeds, so the fixture can
ask the export to serve exactly them (conftest.py) before a test runs."""

import os
import random

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN_FILE = os.path.join(REPO_ROOT, "tests", "data", "onnx_conv_cases.txt")

CONV_FIELDS = (
    "N",
    "C",
    "H",
    "W",
    "K",
    "R",
    "S",
    "stride_h",
    "stride_w",
    "pad_h",
    "pad_w",
    "dilation_h",
    "dilation_w",
    "groups",
    "bias",
)

TUNED_CONV = dict(
    N=2,
    C=8,
    H=12,
    W=12,
    K=16,
    R=3,
    S=3,
    stride_h=1,
    stride_w=1,
    pad_h=1,
    pad_w=1,
    dilation_h=1,
    dilation_w=1,
    groups=1,
    bias=1,
)
# A one-channel shape too: its winners' channel vectors fit every channel count.
TUNED_CONV_ONE_CHANNEL = dict(TUNED_CONV, C=1, K=4)
# A Winograd layer (NCHW): its tuned kernel transforms the weights in a stage
# of its own, which prepared calls run once (test_prepared.py). Larger than
# the other tuned shapes, so that the random shapes' nearest tuned problem
# stays the direct ones.
TUNED_WINOGRAD = dict(TUNED_CONV, N=1, C=32, H=16, W=16, K=32)
TUNED_GEMM = dict(M=48, N=40, K=32, transA=0, transB=0)
# An f16 layer tuned with conv2d/implicit_gemm, whose default config for
# 16-bit storage reads the input and weights widened to float (WIDEN=1: the
# weights in a prepare stage, test_widened.py).
TUNED_HALF = dict(TUNED_CONV, N=1, C=16, H=10, W=10, K=16)


def out_size(size, pad, dilation, kernel, stride):
    return (size + 2 * pad - dilation * (kernel - 1) - 1) // stride + 1


def random_convs(count=30, seed=19):
    """Shapes with groups, dilation, strides, padding and bias in every mix."""
    rng = random.Random(seed)
    convs = []
    while len(convs) < count:
        groups = rng.choice([1, 1, 2, 3, 4])
        s = dict(
            N=rng.randint(1, 3),
            C=groups * rng.randint(1, 4),
            H=rng.randint(4, 14),
            W=rng.randint(4, 14),
            K=groups * rng.randint(1, 4),
            R=rng.choice([1, 2, 3, 5]),
            S=rng.choice([1, 3, 4]),
            stride_h=rng.randint(1, 3),
            stride_w=rng.randint(1, 2),
            pad_h=rng.randint(0, 2),
            pad_w=rng.randint(0, 2),
            dilation_h=rng.randint(1, 2),
            dilation_w=rng.randint(1, 2),
            groups=groups,
            bias=rng.randint(0, 1),
        )
        if (
            min(
                out_size(s["H"], s["pad_h"], s["dilation_h"], s["R"], s["stride_h"]),
                out_size(s["W"], s["pad_w"], s["dilation_w"], s["S"], s["stride_w"]),
            )
            >= 1
        ):
            convs.append(s)
    return convs


def random_gemms(count=20, seed=23):
    """(M, N, K, transA, transB): the flags say whether a test passes a (or b)
    as the transpose view of a row-major matrix."""
    rng = random.Random(seed)
    return [
        dict(
            M=rng.randint(1, 70),
            N=rng.randint(1, 70),
            K=rng.randint(1, 70),
            transA=rng.randint(0, 1),
            transB=rng.randint(0, 1),
        )
        for _ in range(count)
    ]


def golden_cases():
    """The ONNX backend's Conv cases: (name, shape, {x, w, b, y: values})."""
    cases = []
    with open(GOLDEN_FILE) as f:
        for line in f:
            parts = line.split()
            if not parts or parts[0].startswith("#"):
                continue
            if parts[0] == "case":
                shape = dict(zip(CONV_FIELDS, (int(v) for v in parts[2:])))
                cases.append((parts[1], shape, {}))
            else:
                cases[-1][2][parts[0]] = [float(v) for v in parts[1:]]
    return cases


def conv_key(s, layout, dtype="f32"):
    return (
        "conv2d:"
        + ",".join("%s=%d" % (f, s[f]) for f in CONV_FIELDS)
        + ",layout=%s,dtype=%s" % (layout, dtype)
    )


def gemm_key(g, dtype="f32"):
    return "gemm:M=%d,N=%d,K=%d,transA=%d,transB=%d,dtype=%s" % (
        g["M"],
        g["N"],
        g["K"],
        g["transA"],
        g["transB"],
        dtype,
    )


def served_keys():
    """Every f32 problem the tests call, for beast export --shapes."""
    convs = random_convs() + [shape for _, shape, _ in golden_cases()]
    keys = [conv_key(s, layout) for s in convs for layout in ("NCHW", "NHWC")]
    return keys + [gemm_key(g) for g in random_gemms()]
