"""Tests of the conv2d/implicit_gemm template (kernel_templates/conv2d/).

One Jinja2 source serves NCHW and NHWC: the default config renders in both
layouts and for both backends, tail configs render the paths that handle
them (clamped or shifted channel rows, clamped pixels, gathered, contiguous
and row vectors, channel tails, partial staged chunks), the bias argument
sits between w and y, and the space size on the default problem is pinned.
Whether the kernels compute the right numbers is checked on PoCL by the
correctness sweep (tests/integration) and by every `beast tune`.
"""

import re

import pytest
from render_support import (
    CONV_DEFAULT,
    complete,
    conv_problem,
    count_valid,
    default_config,
    load_space,
    render_ok,
    render_reply,
)

NAME = "conv2d/implicit_gemm"
LAYOUTS = ["NCHW", "NHWC"]


def config(problem=CONV_DEFAULT, **values):
    """The default config of the problem with some values changed (CB, the
    unstaged channel block, is 1 in staged configs)."""
    c = default_config(load_space(NAME), problem)
    if values.get("SA") or values.get("SB"):
        c["CB"] = 1
    c.update(values)
    return c


def render(env, problem, cfg, layout, backend="opencl", storage=None):
    # The storage type is one more template variable (f32 when absent).
    extra = {"STORAGE": storage} if storage else {}
    return render_ok(env, NAME, problem, cfg, backend, layout, **extra)


def test_space_size_on_default_problem():
    # beast's own engine agrees: `beast space conv2d/implicit_gemm --problem
    # conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,layout=NCHW
    # --device opencl:0` on PoCL (the same for layout=NHWC: expressions do
    # not see the layout).
    assert count_valid(load_space(NAME), CONV_DEFAULT) == (328320, 69804)


def test_default_config_passes_every_constraint():
    space = load_space(NAME)
    for problem in [
        CONV_DEFAULT,
        conv_problem(C=3, H=13, W=13, K=17),
        conv_problem(C=32, H=14, W=14, K=32, groups=32),
    ]:
        assert complete(space, problem, default_config(space, problem), hard_only=True) is not None
    assert complete(space, CONV_DEFAULT, default_config(space, CONV_DEFAULT), hard_only=False)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_default_config_renders(env, layout):
    source = render(env, CONV_DEFAULT, config(), layout)
    assert source.startswith("// beast conv2d/implicit_gemm %s: MWI=4 NWI=2 VW=8 " % layout)
    assert (
        "__kernel __attribute__((reqd_work_group_size(4, 2, 1))) void conv2d_implicit_gemm("
        in source
    )
    assert source.count("__kernel") == 1
    assert "__local" not in source and "barrier(" not in source
    assert "float8 acc3_1 = (float8)((float)0);" in source
    # No tails on the default problem: no clamped channels or pixels.
    assert "min(ms" not in source and "min(pix" not in source
    if layout == "NCHW":
        # pixel vectors along output rows; a tap whose vectors are all inside
        # the image loads them whole, the others blend lanes to zero
        assert "if (full0 && full1)" in source
        assert "vload8(0, xc0)" in source
        assert "select((float8)((float)0), g0, (int8)(" in source
        assert "vstore8(acc0_0, 0, yg + yb0 + m * 3136);" in source
    else:
        # channel vectors, pixels in VW passes, one sum per output
        assert "for (int v = 0; v < 8; ++v) {" in source
        assert "if (ok0 && ok1) {" in source
        assert "const float8 a0 = vload8(0, wg + wr + c);" in source
        assert "acc0_0 += a0 * b0;" in source
        assert "yg[yo0 + m] = (((acc0_0.s0 + acc0_0.s1) + (acc0_0.s2 + acc0_0.s3)) + " in source


@pytest.mark.parametrize("layout", LAYOUTS)
def test_cuda_branch_renders_cuda(env, layout):
    source = render(env, CONV_DEFAULT, config(), layout, "cuda")
    assert 'extern "C" __global__ void __launch_bounds__(8) conv2d_implicit_gemm(' in source
    assert "struct beast_float8 { float s[8]; };" in source
    assert ("operator*(const beast_float8& a, const beast_float8& b)" in source) == (
        layout == "NHWC"
    )
    for opencl_only in (
        "__kernel",
        "__global ",
        "__local",
        "barrier(",
        "get_local_id",
        "vload8(0,",
        "select(",
    ):
        assert opencl_only not in source


TAIL_PROBLEM = conv_problem(C=3, H=13, W=13, K=17)  # nothing divides anything


@pytest.mark.parametrize("layout", LAYOUTS)
def test_tails_render_clamps_and_guards(env, layout):
    # MWG = 2 * 4 = 8 does not divide 17 channels: rows shift back inside;
    # NWG = 4 * 2 * 4 = 32 does not divide 169 pixels: pixels clamp.
    source = render(
        env, TAIL_PROBLEM, config(TAIL_PROBLEM, MWI=4, NWI=2, VW=4, MDIMC=2, NDIMC=4), layout
    )
    assert "const int mb = min(ms, 13);" in source
    assert "mb + 0 >= ms" in source
    if layout == "NCHW":
        # 13 columns are no multiple of 4: vectors are gathered element by element
        assert "min(pix0 + 3, 168)" in source
        assert "const int xt0_3 = " in source and "const bool lk0_3 = " in source
        # lanes may lie in different rows: no per-vector row (ih0) exists
        assert re.search(r"\bih0\b", source) is None
        assert "if (mb + 1 >= ms && pix0 + 3 < 169) yg[yb0_3 + m * 169] = acc1_0.s3;" in source
    else:
        # 3 channels are no whole vector of 4: the tail step zero-fills
        assert "min(pix0, 168)" in source
        assert "((float4)(wg[wr + 3], wg[wr + 4], wg[wr + 5], (float)0))" in source
        assert "if (mb + 0 >= ms && pix0 < 169)" in source


@pytest.mark.parametrize("layout", LAYOUTS)
def test_fewer_channels_than_a_thread_tile_clamp_rows(env, layout):
    # depthwise: one channel per group, MWI = 4 rows clamp to it
    problem = conv_problem(C=32, H=14, W=14, K=32, groups=32)
    source = render(env, problem, config(problem, MWI=4, NWI=1, VW=2, MDIMC=1, NDIMC=8), layout)
    assert "const int g = ((int)get_group_id(2));" in source
    assert "const int wr3 = min(ms + 3, 0) * 9;" in source
    assert "if (ms + 3 < 1 && pix0 < 196)" in source


def test_one_by_one_filters_read_contiguous_pixels(env):
    # stride 1, no padding, W == Q: pixel vectors are contiguous in x even
    # across output rows (7 x 7 = 49 pixels, vectors of 8), the last one
    # clamped and stored lane by lane
    problem = conv_problem(C=64, H=7, W=7, K=64, R=1, S=1, pad=(0, 0))
    source = render(env, problem, config(problem, MWI=4, NWI=1, VW=8, MDIMC=2, NDIMC=4), "NCHW")
    assert "const int pc0 = min(pix0, 41);" in source
    assert "const float8 b0 = vload8(0, xc0);" in source
    assert "if (pc0 + 7 >= pix0) yg[yb0 + m * 49 + 7] = acc0_0.s7;" in source
    assert "full0" not in source


@pytest.mark.parametrize("layout", LAYOUTS)
def test_padded_rows_render(env, layout):
    # 14 columns in rows padded to 16 (PADQ): NCHW loads every vector whole
    # (blending lanes outside the image), both store only real columns
    problem = conv_problem(C=256, H=14, W=14, K=256)
    space = load_space(NAME)
    cfg = config(problem, MWI=4, NWI=2, VW=8, PADQ=1, MDIMC=2, NDIMC=4)
    names = complete(space, problem, cfg)
    assert (names["QP"], names["NPIX"], names["N_TILES"]) == (16, 224, 4)
    source = render(env, problem, cfg, layout)
    assert "const int v0_q = v0_pq - v0_p * 16;" in source
    if layout == "NCHW":
        # items inside the image for every tap run the taps unrolled without
        # checks (real lanes inside, the last padding lane's load inside x)
        assert (
            "const bool allfast = ih0 >= 0 && ih0 + 2 < 14 && iw0 >= 0 && iw0 + 2 + wl0 < 14"
            " && xb0 + 50017 < 50176 && "
        ) in source
        # the others a rolled loop over the taps: a vector stays inside x for
        # a block of CB = 16 channels when it starts at or before
        # 256*196 - 8 - 15*196; a tap whose vectors all lie in rows outside
        # the image is skipped
        assert "const bool inb0 = (unsigned)(xb0 + (c0) * 196 + (r) * 14 + s) <= 47228u;" in source
        assert "if ((unsigned)(ih0 + r) >= 14u && (unsigned)(ih1 + r) >= 14u) {" in source
        assert "else if (inb0 && inb1)" in source
        assert "if (pix0 < 224 && v0_q + 8 <= 14) {" in source
        assert "if (v1_q + 6 < 14) yg[yb1 + m * 196 + 6] = acc3_1.s6;" in source
    else:
        assert "const int v0_iw = min(v0_q, 13) * 1 - 1;" in source
        assert "if (pix1 < 224 && v1_q < 14)" in source


@pytest.mark.parametrize("layout", LAYOUTS)
def test_staged_configs_render(env, layout):
    # KWG = 8 does not divide C*R*S = 27: a partial last chunk; both tiles staged
    problem = conv_problem(N=2, C=3, H=9, W=11, K=5, stride=(2, 1), pad=(0, 2), dilation=(2, 1))
    cfg = config(
        problem, MWI=2, NWI=1, VW=4, MDIMC=2, NDIMC=2, SA=1, SB=1, KWG=8, KWI=2, UNROLL_RS=0
    )
    source = render(env, problem, cfg, layout)
    assert "__local float As[32];" in source
    assert ("__local float Bs[%d];" % (8 * 8 // (4 if layout == "NHWC" else 1))) in source
    assert source.count("barrier(CLK_LOCAL_MEM_FENCE);") == 4
    assert "const int k0 = 24;" in source
    cuda = render(env, problem, cfg, layout, "cuda")
    assert "__shared__ float As[32];" in cuda and "__syncthreads();" in cuda


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("staged", [0, 1])
def test_bias_is_an_argument_between_w_and_y(env, layout, staged):
    problem = conv_problem(N=2, C=6, H=9, W=11, K=4, R=3, S=2, pad=(0, 0), groups=2, bias=1)
    cfg = config(
        problem,
        MWI=2,
        NWI=1,
        VW=2,
        MDIMC=1,
        NDIMC=8,
        SA=staged,
        SB=staged,
        KWG=8 if staged else 1,
        UNROLL_RS=0 if staged else 1,
    )
    source = render(env, problem, cfg, layout)
    assert re.search(
        r"restrict w,\n\s+__global const float\* restrict b,\n\s+__global float\* restrict y\)",
        source,
    )
    assert "const float bias1 = b[g * 2 + " in source
    assert ("+ bias1;" in source) == (layout == "NHWC")
    assert ("float2 acc1_0 = ((float2)(bias1, bias1));" in source) == (layout == "NCHW")
    plain = render(
        env, conv_problem(N=2, C=6, H=9, W=11, K=4, R=3, S=2, pad=(0, 0), groups=2), cfg, layout
    )
    assert " b," not in plain and "bias" not in plain


def test_rolled_taps_render(env):
    problem = conv_problem(C=8, H=12, W=12, K=8, R=5, S=5, stride=(2, 2), pad=(2, 2))
    for layout in LAYOUTS:
        source = render(
            env, problem, config(problem, MWI=2, NWI=2, VW=2, MDIMC=2, NDIMC=4, UNROLL_RS=0), layout
        )
        assert "for (int r = 0; r < 5; ++r) {" in source
        assert "for (int s = 0; s < 5; ++s)" in source


# How each backend spells a float pointer into the workspace, and the 16-bit
# loads and conversions that WIDEN takes out of the kernel's body.
WIDEN_SPELLINGS = {
    "opencl": (
        "__global const float*",
        ("vload_half", "beast_half_to_float", "(__global const ushort*)"),
    ),
    "cuda": ("const float*", ("beast_f16_vload", "beast_f16_to_float", "unsigned short* xg")),
}


@pytest.mark.parametrize("backend", sorted(WIDEN_SPELLINGS))
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("staged", [(0, 0), (1, 0), (0, 1)])
@pytest.mark.parametrize("groups", [1, 2])
def test_widen_reads_x_and_w_as_floats_from_the_workspace(env, backend, layout, staged, groups):
    """With WIDEN the kernel's loads of x and w are float loads from the
    workspace (x from 0, w from W_OFF), after the two widening kernels: no
    16-bit load or conversion to float is left in its body; without WIDEN
    the same config converts."""
    problem = dict(conv_problem(groups=groups), dtype_bytes=2)
    sa, sb = staged
    values = dict(SA=sa, SB=sb, KWG=16, UNROLL_RS=0) if sa or sb else {}
    cfg = config(problem, WIDEN=1, **values)
    names = complete(load_space(NAME), problem, cfg)
    pointer, narrow_loads = WIDEN_SPELLINGS[backend]
    head, body = render(env, problem, cfg, layout, backend, storage="f16").split(
        " conv2d_implicit_gemm("
    )
    assert " conv2d_implicit_gemm_widen_w(" in head
    assert " conv2d_implicit_gemm_widen_x(" in head
    assert "%s xg = ws" % pointer in body
    assert "%s wg = ws + %d" % (pointer, names["W_OFF"]) in body
    for load in narrow_loads:
        assert load not in body, load
    narrow = render(env, problem, dict(cfg, WIDEN=0), layout, backend, storage="f16")
    assert "conv2d_implicit_gemm_widen" not in narrow
    body = narrow.split(" conv2d_implicit_gemm(")[1]
    assert any(load in body for load in narrow_loads[:2])


def test_unknown_layout_is_an_error(env):
    reply = render_reply(env, NAME, CONV_DEFAULT, config(), "opencl", "NCWH")
    assert "implicit_gemm supports NCHW and NHWC, not NCWH" in reply["error"]
