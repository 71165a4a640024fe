"""The CUDA tensor-core templates (gemm/mma.cu.j2, conv2d/implicit_gemm_mma.cu.j2
and their shared _common/mma.j2), rendered as beast renders them and run on
the CPU emulator of tests/tensor_core_emulator/: every block's threads run
as fibers, and the emulator reports shared-memory races around cp.async and
__syncthreads, out-of-bounds accesses, TF32 operands that skipped cvt.rna,
lanes in different collectives, deadlocks and outputs not written exactly
once; then the output is compared with a numpy float64 reference (f32 with
math=tf32 within 1e-5 * sum |a||b| on TF32-rounded inputs; f16 and bf16
exactly, on small integers). Not checked: register pressure, spills,
performance, the hardware's own summation order (those need the GPU:
tests/gpu/cuda_tune_test.cpp, tests/bench/tensor_core_gpu.sh).

By default the fixed, stratified set of tests/tensor_core_emulator/stratified.py
runs (152 tests, about 16 s on 2 cores;
each case its own test id, the emulations started together on every core
by the `emulated` fixture): gemm/mma in f16, bf16 and f32+TF32 over all 8
(trans_a, trans_b, col_major) combinations with tails in M, N, K;
conv2d/implicit_gemm_mma in NHWC and NCHW in the three dtypes with groups,
strides, padding, dilation, bias and tails; edge cases (512 and 1024
threads, K < 8, exact tile multiples, deep K); split-K in both templates
(uneven splits, empty ones, groups, blocks arriving in any order); the spaces' default configs; mutations
of rendered kernels the emulator must report; and template changes its
rewrite must refuse by name.

The full sweep, for when a template changes: BEAST_EMULATION_CASES=N runs N
random configs (drawn from the space's value sets, hard constraints met) per
path -- gemm_tf32, gemm16 (f16 and bf16), conv_nhwc, conv_nchw -- instead of
the stratified set (default configs, mutations and rewrite checks still run);
BEAST_EMULATION_SEED=S (default 1) draws another set:

    BEAST_EMULATION_CASES=100 .venv/bin/python3 -m pytest -q \\
        tests/python/test_tensor_core_emulation.py

Needs g++ (the cases that build kernels skip themselves without it); no GPU.
Binaries go under pytest's temporary directory.
"""

import os
import re
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest
from conftest import REPO_ROOT

# The emulator's modules sit beside the emulator (no package to install).
sys.path.insert(0, str(REPO_ROOT / "tests" / "tensor_core_emulator"))
import emulation
from cases import PATHS, Case, conv2d, gemm, random_cases
from cuda_to_cpp import RewriteError
from stratified import (
    CONV_PROBLEMS,
    GEMM_ODD_N,
    cfg,
    conv_cases,
    default_cases,
    gemm_cases,
    split_k_cases,
)

needs_gxx = pytest.mark.skipif(
    shutil.which("g++") is None,
    reason="g++ is not installed: the tensor-core emulator builds each rendered kernel with it",
)


RANDOM_PER_PATH = int(os.environ.get("BEAST_EMULATION_CASES", "0") or 0)
SEED = int(os.environ.get("BEAST_EMULATION_SEED", "1"))


def all_cases():
    if RANDOM_PER_PATH:
        chosen = [c for p in PATHS for c in random_cases(p, RANDOM_PER_PATH, SEED)]
    else:
        chosen = gemm_cases() + conv_cases() + split_k_cases()
    unique = {}
    for case in chosen + default_cases():
        unique.setdefault(case.id, case)
    return list(unique.values())


CASES = all_cases()


# ---- mutations of rendered kernels: each must be reported, and why ----


@dataclass(frozen=True)
class Mutation:
    name: str
    case: Case
    pattern: str
    replacement: object  # str or a function of the match
    expect: str  # in the emulator's report

    def mutate(self, source):
        mutated, n = re.subn(self.pattern, self.replacement, source, count=1)
        assert n, (
            "mutation %s: its pattern %r no longer occurs in the rendered kernel; "
            "update it to the template" % (self.name, self.pattern)
        )
        return mutated


GEMM_TF32 = gemm("f32", 70, 56, 72, 0, 0, 0, cfg(64, 64, 32, 32, 32, 3, 4, 8, 2))
GEMM_TF32_KM = gemm("f32", 72, 56, 72, 1, 0, 0, cfg(64, 64, 32, 32, 32, 3, 4, 8, 2))
GEMM_F16 = gemm("f16", 72, 56, 88, 0, 0, 0, cfg(64, 64, 32, 32, 32, 3, 8, 8, 2))
CONV_NCHW = conv2d("f16", "NCHW", cfg(64, 32, 16, 32, 16, 3, 4, 8, 1), **CONV_PROBLEMS[0])
CONV_NCHW_DEEP = conv2d(
    "f16", "NCHW", cfg(64, 32, 16, 32, 16, 3, 4, 8, 1), **dict(CONV_PROBLEMS[0], C=32)
)
CONV_NCHW_TF32 = conv2d("f32", "NCHW", cfg(64, 32, 16, 32, 16, 3, 4, 8, 1), **CONV_PROBLEMS[0])
CONV_NCHW_2 = conv2d(
    "bf16", "NCHW", cfg(64, 32, 16, 32, 16, 2, 4, 8, 1), **dict(CONV_PROBLEMS[0], C=32)
)
CONV_NHWC = conv2d("f32", "NHWC", cfg(64, 32, 16, 32, 16, 3, 4, 8, 1), **CONV_PROBLEMS[0])
GEMM_SPLIT = gemm("f16", 72, 56, 200, 0, 0, 0, dict(cfg(64, 32, 32, 32, 16, 3, 8, 8, 1), SPLITK=2))
CONV_SPLIT = conv2d(
    "bf16", "NCHW", dict(cfg(32, 64, 16, 16, 32, 3, 4, 8, 1), SPLITK=2), **CONV_PROBLEMS[0]
)

MUTATIONS = [
    Mutation(
        "tf32-a0-without-cvt.rna",
        GEMM_TF32,
        r"af\[i\]\[0\] = beast_tf32\(af\[i\]\[0\]\); ",
        "",
        "not rounded by cvt",
    ),
    Mutation(
        "tf32-km-a1-a2-swapped",
        GEMM_TF32_KM,
        r"af\[i\]\[1\] = beast_tf32\(ap\[(\d+)\]\);\n(\s*)af\[i\]\[2\] = beast_tf32\(ap\[(\d+)\]\);",
        r"af[i][1] = beast_tf32(ap[\3]);\n\2af[i][2] = beast_tf32(ap[\1]);",
        "differ from the reference",
    ),
    Mutation(
        "f16-b-ldmatrix-without-trans",
        GEMM_F16,
        r"beast_ldmatrix_x4_trans\(r, ",
        "beast_ldmatrix_x4(r, ",
        "differ from the reference",
    ),
    Mutation(
        "wait_group-STAGES-1",
        GEMM_TF32,
        r"cp\.async\.wait_group 1;",
        "cp.async.wait_group 2;",
        "copy in flight",
    ),
    Mutation(
        "cp.async-of-8-bytes-where-16",
        GEMM_TF32,
        r"in \? 16 : 0",
        "in ? 8 : 0",
        "src size neither 0 nor the copy's",
    ),
    Mutation(
        "epilogue-column-pair-swapped",
        GEMM_TF32,
        r"v0 = acc\[i\]\[j\]\[2 \* h\], v1 = acc\[i\]\[j\]\[2 \* h \+ 1\]",
        "v1 = acc[i][j][2 * h], v0 = acc[i][j][2 * h + 1]",
        "differ from the reference",
    ),
    Mutation(
        "epilogue-pair-one-column-on",
        GEMM_F16,
        r"col = n0 \+ wn0 \+ j \* 8 \+ \(lane & 3\) \* 2;",
        "col = n0 + wn0 + j * 8 + (lane & 3) * 2 + 1;",
        "a pair store not aligned",
    ),
    Mutation(
        "epilogue-odd-rows-column-pair-swapped",
        GEMM_ODD_N,
        r"\(lane & 3\) \* 2 \+ \(e & 1\)",
        "(lane & 3) * 2 + 1 - (e & 1)",
        "differ from the reference",
    ),
    Mutation(
        "nchw-scatter-row-stride-BN-not-BN+PAD",
        CONV_NCHW,
        r"b_e0 = \(tid / (\d+)\) \* \d+ \+ tid % (\d+)",
        lambda m: "b_e0 = (tid / %s) * %s + tid %% %s" % (m[1], m[1], m[2]),
        "never-written",
    ),
    Mutation(
        "nchw-table-row-offset-without-the-dilation",
        CONV_NCHW,
        r"\(tap / (\d+)\) \* \d+\) \* (\d+)",
        r"(tap / \1)) * \2",
        "differ from the reference",
    ),
    Mutation(
        "nchw-table-read-without-a-barrier-after-its-fill",
        CONV_NCHW,
        r"(red_table\[e\] = entry;\s*\})\s*__syncthreads\(\);",
        r"\1",
        "no barrier between",
    ),
    Mutation(
        "nchw-scatter-into-the-slot-being-read",
        CONV_NCHW_DEEP,
        r"scatter_b\(write_slot\)",
        "scatter_b(read_slot)",
        "WAR race",
    ),
    Mutation(
        "nchw-STAGES-2-scatter-into-the-slot-being-read",
        CONV_NCHW_2,
        r"scatter_b\(write_slot\)",
        "scatter_b(read_slot)",
        "WAR race",
    ),
    Mutation(
        "nchw-gather-channel-ignores-the-group",
        CONV_NCHW,
        r"\(n \* (\d+) \+ g \* \d+\)",
        r"(n * \1)",
        "differ from the reference",
    ),
    Mutation(
        "nchw-tf32-scalar-b0-without-cvt.rna",
        CONV_NCHW_TF32,
        r"= beast_tf32\(bp\[0\]\)",
        "= __float_as_uint(bp[0])",
        "not rounded by cvt",
    ),
    Mutation(
        "nchw-no-barrier-in-the-K-loop",
        CONV_NCHW_DEEP,
        r"__syncthreads\(\);",
        "",
        "no barrier between",
    ),
    Mutation(
        "barrier-reached-by-two-warps-only",
        CONV_NCHW,
        r"__syncthreads\(\);",
        "if (tid < 64) __syncthreads();",
        "deadlock",
    ),
    Mutation(
        "nhwc-store-without-the-group-offset",
        CONV_NHWC,
        r"row \* (\d+) \+ k\)",
        r"row * \1 + col)",
        "written twice",
    ),
    Mutation(
        "nhwc-filter-tap-row-and-column-swapped",
        CONV_NHWC,
        r"\(tap / (\d+)\) \* (\d+), dw",
        r"(tap % \1) * \2, dw",
        "differ from the reference",
    ),
    Mutation(
        "nhwc-padding-test-dropped",
        CONV_NHWC,
        r"rows \|= \(unsigned\)\(\(unsigned\)\(h0 \+ r \* (\d+)\) < (\d+)u\) << r;",
        r"rows |= (unsigned)(h0 + r * \1 < \2) << r;",
        "cp.async src outside its buffer",
    ),
    Mutation(
        "split-k-counters-not-zeroed",
        GEMM_SPLIT,
        r"\+ i\] = 0\.0f;",
        "+ i] = 0.5f;",
        "output elements never written",
    ),
    Mutation(
        "split-k-last-split-taken-for-the-last-to-arrive",
        GEMM_SPLIT,
        r"arrived == (\d+)\.0f",
        r"blockIdx.z == \1",
        "differ from the reference",
    ),
    Mutation(
        "split-k-sum-skips-a-split",
        CONV_SPLIT,
        r"for \(int s = 1;",
        "for (int s = 2;",
        "differ from the reference",
    ),
    Mutation(
        "split-k-partials-all-in-split-0",
        GEMM_SPLIT,
        r"part\[\(int\)blockIdx\.z \* \d+ \+ at\]",
        "part[at]",
        "differ from the reference",
    ),
    Mutation(
        "split-k-verdict-read-without-a-barrier",
        CONV_SPLIT,
        r"__syncthreads\(\);\n(\s*)if \(As\[0\]",
        r"if (As[0]",
        "race",
    ),
    Mutation(
        "launch-bounds-below-the-block",
        GEMM_F16,
        r"__launch_bounds__\((\d+), 1\)",
        "__launch_bounds__(32, 1)",
        "__launch_bounds__(32)",
    ),
]


# ---- the emulations, run ahead on every core ----

TIMEOUT_S = 120  # per emulation; the largest case here takes under a second


@pytest.fixture(scope="module")
def emulated(request, tmp_path_factory):
    """{key: future of emulation.emulate's answer} for the selected tests:
    a case's id, and 'mutated:' + a mutation's name. Started together, so
    that builds and runs use every core while the tests wait in order."""
    jobs = {}
    for item in request.session.items:
        if getattr(item, "module", None) is not request.module or not hasattr(item, "callspec"):
            continue
        params = item.callspec.params
        if "case" in params:
            jobs.setdefault(params["case"].id, (params["case"], None))
        if "mutation" in params:
            m = params["mutation"]
            jobs.setdefault(m.case.id, (m.case, None))
            jobs.setdefault("mutated:" + m.name, (m.case, m.mutate))
    build_dir = tmp_path_factory.mktemp("tensor_core_emulator")
    pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 2)
    futures = {
        key: pool.submit(emulation.emulate, case, build_dir, mutate=mutate, timeout=TIMEOUT_S)
        for key, (case, mutate) in jobs.items()
    }
    yield futures
    pool.shutdown(cancel_futures=True)


@needs_gxx
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_kernel_matches_the_reference(case, emulated):
    result = emulated[case.id].result()
    assert result == "OK", "%s\n%s" % (case.id, result)


@needs_gxx
@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.name)
def test_emulator_reports_the_mutation(mutation, emulated):
    base = emulated[mutation.case.id].result()
    assert base == "OK", "the kernel before the mutation must pass: %s" % base
    result = emulated["mutated:" + mutation.name].result()
    assert result != "OK", "the emulator missed the mutation %s" % mutation.name
    assert mutation.expect in result, "reported, but not as %r: %s" % (mutation.expect, result)


# ---- template changes the rewrite does not model: refused by name ----

REWRITE_REFUSALS = [
    (
        "helper-ptx-changed",
        r"cvt\.rna\.tf32\.f32",
        "cvt.rz.tf32.f32",
        r"PTX of beast_tf32\(unsigned\)",
    ),
    (
        "new-asm-in-kernel",
        r"__syncthreads\(\);",
        '__syncthreads(); asm volatile("fence.proxy.async;");',
        "asm statement in the kernel that emu.hpp does not model: .*fence",
    ),
    ("unknown-cuda-builtin", r"__syncthreads\(\);", "__syncwarp();", "does not define: __syncwarp"),
    ("untraced-pointer", r"float\* As = smem;", "float* As = (float*)smem;", "pointer As"),
    (
        "new-ptx-helper",
        r'extern "C"',
        (
            '__device__ __forceinline__ void beast_fence() { asm volatile("fence.proxy.async;"); }\n'
            'extern "C"'
        ),
        r"PTX that emu.hpp does not model: beast_fence\(\)",
    ),
    (
        "wide-cast-of-a-global-pointer",
        r"const int tid",
        "unsigned long long* const t = (unsigned long long*)(C + 0);\n  const int tid",
        "cast pointer t \\(from C\\) is not into shared memory",
    ),
    (
        "static-shared-array",
        r"const int tid",
        "__shared__ float extra[4];\n  const int tid",
        "static __shared__",
    ),
]


@pytest.mark.parametrize(
    "name, pattern, replacement, expect", REWRITE_REFUSALS, ids=[r[0] for r in REWRITE_REFUSALS]
)
def test_rewrite_refuses_what_it_does_not_model(name, pattern, replacement, expect, tmp_path):
    mutation = Mutation(name, GEMM_TF32, pattern, lambda m: replacement, "")
    with pytest.raises(RewriteError, match=expect):
        emulation.emulate(GEMM_TF32, tmp_path, mutate=mutation.mutate)
