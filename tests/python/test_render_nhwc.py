"""Tests of the conv2d/direct_nhwc template and its space.

The default config renders on the default NHWC problem and on odd shapes; the
space size on the default problem is pinned (beast's own engine must agree);
configs that exercise the tails, both vectorizations (VW along output
channels, CV along input channels), staging, depthwise and bias render what
they should, for OpenCL and CUDA. Whether they compute the right numbers is
checked end to end by `beast tune` on PoCL, which validates every config
against the CPU reference. The helpers (space evaluation with Python's own
semantics, rendering) are render_support.py's.
"""

import pytest
import render_support
from render_support import (
    complete,
    conv_problem,
    count_valid,
    default_config,
    load_space,
    render_reply,
)

SPACE = "conv2d/direct_nhwc"
KERNEL = "conv2d_direct_nhwc"
DEFAULT = conv_problem()  # the ResNet-50 3x3 layer, here with layout=NHWC


def render(env, problem, config, backend="opencl", layout="NHWC"):
    return render_reply(env, SPACE, problem, config, backend, layout)


def render_ok(env, problem, config, backend="opencl"):
    return render_support.render_ok(env, SPACE, problem, config, backend, "NHWC")


def config(**overrides):
    """The default config on the default problem with some values changed."""
    c = default_config(load_space(SPACE), DEFAULT)
    c.update(overrides)
    return c


def test_space_serves_nhwc_only():
    space = load_space(SPACE)
    assert space["layouts"] == ["NHWC"]
    assert space["kernel"] == KERNEL


def test_space_size_on_default_problem():
    # beast's own engine agrees: `beast space conv2d/direct_nhwc --problem
    # conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,layout=NHWC
    # --device opencl:0` on PoCL.
    assert count_valid(load_space(SPACE), DEFAULT) == (224640, 69246)


@pytest.mark.parametrize(
    "problem",
    [
        DEFAULT,
        conv_problem(C=3, H=13, W=13, K=17),  # K=17: no vector of 4 fits
        conv_problem(C=32, H=14, W=14, K=32, groups=32),  # depthwise
        conv_problem(C=3, H=32, W=32, K=16, R=7, S=7, stride=(2, 2), pad=(3, 3), bias=1),
    ],
)
def test_default_config_is_valid_and_renders(env, problem):
    space = load_space(SPACE)
    c = default_config(space, problem)
    assert complete(space, problem, c) is not None, (problem, c)
    source = render_ok(env, problem, c)
    assert source.count("__kernel") == 1
    assert (
        "__kernel __attribute__((reqd_work_group_size(%d, %d, %d))) void %s("
        % (c["LK"], c["LQ"], c["LP"], KERNEL)
        in source
    )


def test_default_config_passes_every_constraint_on_default_problem():
    space = load_space(SPACE)
    assert complete(space, DEFAULT, default_config(space, DEFAULT), hard_only=False) is not None


def test_vectors_never_straddle_a_group():
    space = load_space(SPACE)
    odd = conv_problem(C=3, H=13, W=13, K=17)
    assert complete(space, odd, dict(default_config(space, odd), VW=1, KWI=2)) is not None
    assert complete(space, odd, dict(default_config(space, odd), VW=2, KWI=2)) is None
    # depthwise: a vector spans groups (channel k reads input channel k)
    dw = conv_problem(C=24, H=9, W=9, K=24, groups=24)
    names = complete(space, dw, dict(default_config(space, dw), VW=8, KWI=8))
    assert names is not None and names["DW"] == 1 and names["KSPAN"] == 24
    # ... but not with a channel multiplier (C=8, K=16, groups=8: KG=2)
    mult = conv_problem(C=8, H=9, W=9, K=16, groups=8)
    assert complete(space, mult, dict(default_config(space, mult), VW=4, KWI=4)) is None


def test_cv_only_without_vw_and_at_most_the_channels_of_a_group():
    space = load_space(SPACE)
    assert complete(space, DEFAULT, config(VW=1, KWI=4, CV=8)) is not None
    assert complete(space, DEFAULT, config(VW=4, KWI=8, CV=2)) is None
    assert complete(space, DEFAULT, config(VW=1, KWI=4, SW=1, CB=4, CV=2)) is None
    assert (
        complete(
            space,
            conv_problem(C=3, H=13, W=13, K=17),
            dict(default_config(space, conv_problem(C=3, H=13, W=13, K=17)), VW=1, KWI=2, CV=4),
        )
        is None
    )


TAIL_PROBLEM = conv_problem(C=3, H=13, W=13, K=17)  # P, Q, K divide no tile; C=3 no CV or CB
CONFIGS = [
    # K tail, P and Q tails, gathered weights, checked and fast paths
    (
        TAIL_PROBLEM,
        dict(VW=1, KWI=4, QWI=4, PWI=2, LK=2, LQ=2, LP=4, SX=0, SW=0, CV=1, CB=1, UNROLL_RS=1),
    ),
    # both staged, a partial chunk (CB=4 > C=3), rolled filter loops
    (
        TAIL_PROBLEM,
        dict(VW=1, KWI=2, QWI=2, PWI=1, LK=4, LQ=4, LP=2, SX=1, SW=1, CV=1, CB=4, UNROLL_RS=0),
    ),
    # CV with a channel tail (C=12: one vector of 8, 4 channels one by one), groups, bias
    (
        conv_problem(N=2, C=24, H=9, W=11, K=6, R=3, S=2, pad=(0, 1), groups=2, bias=1),
        dict(VW=1, KWI=2, QWI=2, PWI=2, LK=2, LQ=4, LP=1, SX=0, SW=0, CV=8, CB=1, UNROLL_RS=0),
    ),
    # staged input with CV, strided and dilated
    (
        conv_problem(C=16, H=15, W=15, K=16, stride=(2, 1), pad=(2, 2), dilation=(2, 2)),
        dict(VW=1, KWI=4, QWI=2, PWI=2, LK=1, LQ=4, LP=2, SX=1, SW=0, CV=4, CB=8, UNROLL_RS=1),
    ),
    # depthwise, vectors of 8 channels, K tail (24 = 16 + 8), staged filter
    (
        conv_problem(N=2, C=24, H=15, W=15, K=24, R=5, S=5, stride=(2, 2), pad=(2, 2), groups=24),
        dict(VW=8, KWI=8, QWI=2, PWI=2, LK=2, LQ=4, LP=2, SX=0, SW=1, CV=1, CB=4, UNROLL_RS=1),
    ),
    # depthwise, everything staged, bias
    (
        conv_problem(C=32, H=14, W=14, K=32, groups=32, bias=1),
        dict(VW=4, KWI=8, QWI=1, PWI=4, LK=2, LQ=8, LP=1, SX=1, SW=1, CV=1, CB=4, UNROLL_RS=0),
    ),
    # the default problem with the widest VW vectors and two of them per item
    (
        DEFAULT,
        dict(VW=8, KWI=16, QWI=2, PWI=2, LK=4, LQ=4, LP=1, SX=0, SW=0, CV=1, CB=1, UNROLL_RS=1),
    ),
]


@pytest.mark.parametrize("problem,cfg", CONFIGS)
def test_configs_render(env, problem, cfg):
    space = load_space(SPACE)
    names = complete(space, problem, cfg)
    assert names is not None, (problem, cfg)
    source = render_ok(env, problem, cfg)
    assert ("__local float xs[" in source) == bool(cfg["SX"])
    assert ("__local float ws[" in source) == bool(cfg["SW"])
    assert ("barrier(CLK_LOCAL_MEM_FENCE);" in source) == bool(cfg["SX"] or cfg["SW"])
    width = max(cfg["VW"], cfg["CV"])
    acc = ("float%d acc0_0_0 = " % width) if width > 1 else "float acc0_0_0 = (float)0;"
    assert acc in source
    if cfg["CV"] > 1:
        # partial sums of the CV lanes are added at the end
        assert "acc0_0_0.s0 + acc0_0_0.s%x" % (cfg["CV"] // 2) in source
    # bias: an argument between w and y, added to every output
    signature = source[source.index(KERNEL + "(") : source.index("{")]
    assert (
        signature.replace(" ", "")
        .replace("\n", "")
        .endswith(
            "w,__globalconstfloat*restrictb,__globalfloat*restricty)"
            if problem["bias"]
            else "w,__globalfloat*restricty)"
        )
    )
    assert (" + bv" in source) == bool(problem["bias"])
    # tails: a fast path for full items, a checked one for the rest
    tails = (
        problem["P"] % names["TILE_P"]
        or problem["Q"] % names["TILE_Q"]
        or names["KSPAN"] % names["TILE_K"]
    )
    if tails:
        assert (
            "if (k < %d)" % names["KSPAN"] in source or "if (p < " in source or "if (q < " in source
        )


def test_fast_path_reads_one_base_pointer_plus_constants(env):
    source = render_ok(env, DEFAULT, config(VW=1, KWI=4, QWI=2, PWI=1, LK=8, LQ=4, LP=1, CV=8))
    fast = source[source.index("if (full) {") : source.index("} else {")]
    assert "const float8 w1 = vload8(0, wq + 4608 + cc);" in fast
    assert "const float8 x0_1 = vload8(0, xq + 256 + cc);" in fast
    assert "ok0_0" not in fast
    checked = source[source.index("} else {") :]
    assert "x0_0 = ok0_0 ? x0_0 : (float8)((float)0);" in checked


def test_nchw_is_refused(env):
    reply = render(env, DEFAULT, config(), layout="NCHW")
    assert reply["error"].endswith("direct_nhwc supports layout NHWC only, not NCHW")


def test_cuda_renderings(env):
    problem, cfg = CONFIGS[5]  # depthwise: vector * vector
    cuda = render_ok(env, problem, cfg, "cuda")
    assert 'extern "C" __global__ void __launch_bounds__(16) conv2d_direct_nhwc(' in cuda
    assert "struct beast_float4 { float s[4]; };" in cuda
    assert "operator*(const beast_float4& a, const beast_float4& b)" in cuda
    assert "__shared__ float xs[" in cuda and "__syncthreads();" in cuda
    for opencl_only in (
        "__kernel",
        "__global ",
        "__local",
        "barrier(",
        "get_local_id",
        "vload4(0,",
    ):
        assert opencl_only not in cuda
    problem, cfg = CONFIGS[2]  # CV: lanes summed through .s[i]
    cuda = render_ok(env, problem, cfg, "cuda")
    assert "operator*(const beast_float8& a, const beast_float8& b)" in cuda
    assert "acc0_0_0.s[0] + acc0_0_0.s[4]" in cuda
    assert "const float* __restrict__ b," in cuda
    # templates that multiply no two vectors declare no such operator
    problem, cfg = CONFIGS[6]
    assert "operator*(const beast_float8& a" not in render_ok(env, problem, cfg, "cuda")


def test_dialect_vector_mul_prelude(env):
    probe = (
        '{% import "_common/dialect.j2" as d with context %}'
        "{{ d.vector_prelude('float', 2) }}{{ d.vector_mul_prelude('float', 1) }}"
        "{{ d.vector_mul_prelude('float', 2) }}"
    )
    assert env.from_string(probe).render(BACKEND="opencl") == ""
    cuda = env.from_string(probe).render(BACKEND="cuda")
    assert cuda.endswith(
        "#ifndef BEAST_FLOAT2_MUL_DEFINED\n#define BEAST_FLOAT2_MUL_DEFINED\n"
        "__device__ __forceinline__ beast_float2 operator*(const beast_float2& a, "
        "const beast_float2& b) {\n  beast_float2 r;\n#pragma unroll\n"
        "  for (int i = 0; i < 2; ++i) r.s[i] = a.s[i] * b.s[i];\n  return r;\n}\n#endif\n"
    )
