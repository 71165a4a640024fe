"""The job files of jobs/: each is exactly what jobs/make_jobs.py writes from
the sources the repository ships, and the ResNet-50 one holds the layers of a
table written here by hand from the architecture (He et al. 2016, v1.5 as
torchvision builds it: the stride on each block's 3x3), not from the graph."""

import importlib.util
import re
from collections import Counter

from conftest import REPO_ROOT

BEAST = REPO_ROOT / "build" / "beast" / "beast"
JOBS = REPO_ROOT / "jobs"

_spec = importlib.util.spec_from_file_location("make_jobs", JOBS / "make_jobs.py")
make_jobs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_jobs)


def problems(text):
    """{problem key: weight} of a job file's text."""
    out = Counter()
    for line in text.splitlines():
        line = line.split("#")[0].strip()
        if line:
            key, _, weight = line.partition(" x")
            out[key.strip()] += int(weight or 1)
    return out


def test_every_job_file_is_what_make_jobs_writes_from_the_shipped_sources():
    written = make_jobs.jobs(str(BEAST))
    assert sorted(written) == sorted(p.name for p in JOBS.glob("*.job"))
    for name, text in written.items():
        assert (JOBS / name).read_text() == text, name + " is stale: run jobs/make_jobs.py"


def conv(n, c, hw, k, rs, stride=1, pad=0):
    return (
        "conv2d:N=%d,C=%d,H=%d,W=%d,K=%d,R=%d,S=%d,stride_h=%d,stride_w=%d,pad_h=%d,pad_w=%d,"
        "dilation_h=1,dilation_w=1,groups=1,bias=1,layout=NCHW,dtype=f32"
        % (n, c, hw, hw, k, rs, rs, stride, stride, pad, pad)
    )


def resnet50_layers(n):
    """Every convolution of ResNet-50 v1.5 and its classifier, layer by layer
    (bias=1: inference graphs fold batch norm into the convolutions)."""
    layers = [conv(n, 3, 224, 64, 7, 2, 3)]
    c, hw = 64, 56  # after the 3x3 stride-2 max pool
    for width, blocks, first_stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for b in range(blocks):
            stride = first_stride if b == 0 else 1
            layers.append(conv(n, c, hw, width, 1))
            layers.append(conv(n, width, hw, width, 3, stride, 1))
            out_hw = hw // stride
            layers.append(conv(n, width, out_hw, 4 * width, 1))
            if b == 0:
                layers.append(conv(n, c, hw, 4 * width, 1, stride))
            c, hw = 4 * width, out_hw
    layers.append("gemm:M=%d,N=1000,K=2048,transA=0,transB=1,dtype=f32" % n)
    return layers


def test_the_resnet50_jobs_hold_the_architectures_layers_with_their_counts():
    for batch in (1, 32):
        expected = Counter(resnet50_layers(batch))
        assert sum(expected.values()) == 54  # 53 convolutions and the classifier
        assert len(expected) == 24
        assert problems((JOBS / ("resnet50_b%d.job" % batch)).read_text()) == expected


def test_benchdnn_resnet50_weights_count_its_53_convolutions():
    job = problems((JOBS / "benchdnn_resnet50.job").read_text())
    assert len(job) == 20 and sum(job.values()) == 53
    assert all(re.fullmatch(r"conv2d:N=50,.*,bias=0,layout=NCHW,dtype=f32", k) for k in job)


def test_the_deepbench_jobs_cover_every_inference_row():
    conv = (JOBS / "deepbench_inference_conv.job").read_text()
    gemm = (JOBS / "deepbench_inference_gemm.job").read_text()
    assert sum(problems(conv).values()) == 123  # server 107 + device 16
    assert sum(problems(gemm).values()) == 88
    assert all(k.endswith(",layout=col,dtype=f32") for k in problems(gemm))
