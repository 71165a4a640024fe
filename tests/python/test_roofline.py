"""Tests of the report's roofline (beast_analysis/roofline.py): where each
winner is placed, the roof of its arithmetic (the FMA peak, the tensor
cores' measured peak, the fp64 peak) and what the caption says of it."""

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "analysis"))

from beast_analysis import roofline
from beast_analysis.problem_bytes import min_bytes
from beast_analysis.roofline import device_peaks, place, tensor_core_templates
from conftest import CONV, GEMM


def test_tensor_core_winners_are_crosses_named_in_the_caption(tmp_path):
    # The shipped spaces say which templates compute on tensor cores.
    assert tensor_core_templates(
        ["gemm/mma", "conv2d/implicit_gemm_mma", "gemm/tiled", "conv2d/winograd", "no/such"]
    ) == {"gemm/mma", "conv2d/implicit_gemm_mma"}
    # Only a true `tensor_cores` counts; an unreadable space file is FMA.
    for name, text in [
        ("yes", "tensor_cores: true\n"),
        ("no", "tensor_cores: false\n"),
        ("text", "tensor_cores: 'true'\n"),
        ("broken", "tensor_cores: [\n"),
        ("list", "- tensor_cores\n"),
    ]:
        (tmp_path / (name + ".space.yaml")).write_text(text)
    assert tensor_core_templates(["yes", "no", "text", "broken", "list", "absent"], tmp_path) == {
        "yes"
    }

    f16 = "gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f16"
    limits = '{"peak_gflops": 100, "bandwidth_gbs": 10}'
    rows = [
        dict(device="GPU", template=t, problem=p, op="gemm", median_ms=ms)
        for t, p, ms in [("gemm/mma", f16, 0.001), ("gemm/tiled", GEMM, 0.01)]
    ]
    # A tensor-core winner that cannot be placed (no FLOP count) is no cross.
    unplaced = dict(rows[0], template="conv2d/implicit_gemm_mma", problem=CONV, op="conv2d")
    note = roofline.plot(
        rows + [unplaced],
        {f16: 524288.0, GEMM: 524288.0},
        {"GPU": limits},
        tmp_path / "roofline.png",
    )
    assert note == (
        "Peak FLOP/s of the roof: GPU: 100 GFLOP/s, specification. Crosses: winners of "
        "tensor-core templates (gemm/mma), whose arithmetic is not bounded by the FMA peak of "
        "the roof, so they are not judged against it. Not placed: %s (FLOP count unknown) on "
        "GPU." % CONV
    )
    png = (tmp_path / "roofline.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"

    # The cross is the tensor-core point's marker, the dot the other's.
    import matplotlib.pyplot as plt
    from matplotlib.markers import MarkerStyle

    def marker_path(name):
        style = MarkerStyle(name)
        return style.get_path().transformed(style.get_transform()).vertices.tolist()

    fig, ax = plt.subplots()
    points = [(place(r, 524288.0)[0], r) for r in rows]
    roofline._panel(ax, "GPU", points, device_peaks(limits), {"gemm/mma"})
    drawn = [c.get_paths()[0].vertices.tolist() for c in ax.collections]
    plt.close(fig)
    assert drawn == [marker_path("x"), marker_path("o")]


def test_the_tensor_cores_measured_peak_is_a_dashed_line_for_the_crosses(tmp_path):
    assert roofline.mma_input("gemm:M=8,N=8,K=8,transA=0,transB=0,dtype=f16") == "f16"
    assert roofline.mma_input("conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,layout=NHWC,dtype=bf16") == "bf16"
    assert roofline.mma_input("gemm:M=8,N=8,K=8,dtype=f32,math=tf32") == "tf32"
    assert roofline.mma_input(GEMM) is None
    limits = (
        '{"peak_gflops": 100, "bandwidth_gbs": 10, "peak_gflops_tensor_f16_measured": 900.5, '
        '"peak_gflops_tensor_bf16_measured": 0, "peak_gflops_tensor_tf32_measured": true}'
    )
    assert roofline.tensor_peaks(limits) == {"f16": 900.5}
    assert roofline.tensor_peaks("[1]") == {} and roofline.tensor_peaks("{") == {}
    f16 = "gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f16"
    rows = [
        dict(device="GPU", template="gemm/mma", problem=f16, op="gemm", median_ms=0.001),
        dict(device="GPU", template="gemm/tiled", problem=f16, op="gemm", median_ms=0.01),
    ]
    note = roofline.plot(rows, {f16: 524288.0}, {"GPU": limits}, tmp_path / "roofline.png")
    assert note.endswith(
        "so they are not judged against it. Dashed: the tensor cores' measured peak (mma.sync) "
        "of f16 900.5 GFLOP/s on GPU."
    ), note
    # The line is that peak's roof, min(peak, bandwidth x intensity), and a
    # flat line where the bandwidth is unknown.
    import matplotlib.pyplot as plt

    points = [(place(r, 524288.0)[0], r) for r in rows]
    for peaks, flat in [
        (device_peaks(limits), False),
        (device_peaks("{}"), True),
    ]:
        fig, ax = plt.subplots()
        roofline._panel(ax, "GPU", points, peaks, {"gemm/mma"}, {"f16": 900.5})
        dashed = [line for line in ax.lines if line.get_linestyle() == "--"]
        plt.close(fig)
        assert len(dashed) == 1
        xs, ys = list(dashed[0].get_xdata()), list(dashed[0].get_ydata())
        if flat:
            assert ys == [900.5, 900.5]
        else:
            assert ys == [min(900.5, 10 * x) for x in xs]
            assert ys[0] < 900.5 and ys[-1] == 900.5


def test_an_f64_winner_is_judged_against_the_fp64_peak(tmp_path):
    f64 = "gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f64"
    assert roofline.is_f64(f64) and not roofline.is_f64(GEMM)
    limits = '{"peak_gflops": 100, "bandwidth_gbs": 10, "peak_gflops_f64_measured": 25}'
    assert roofline.f64_peak(limits) == 25.0
    assert roofline.f64_peak('{"peak_gflops_f64_measured": true}') is None
    assert roofline.f64_peak("[1]") is None and roofline.f64_peak("{") is None
    rows = [
        dict(device="GPU", template="gemm/tiled", problem=p, op="gemm", median_ms=0.01)
        for p in (f64, GEMM)
    ]
    flops = {f64: 524288.0, GEMM: 524288.0}
    note = roofline.plot(rows, flops, {"GPU": limits}, tmp_path / "roofline.png")
    assert note == (
        "Peak FLOP/s of the roof: GPU: 100 GFLOP/s, specification. Squares: f64 winners; "
        "dash-dot: their roof, the fp64 peak beast measured (25 GFLOP/s on GPU)."
    )
    no_fp64 = '{"peak_gflops": 100, "bandwidth_gbs": 10}'
    note = roofline.plot(rows, flops, {"GPU": no_fp64}, tmp_path / "roofline.png")
    assert note.endswith(
        " f64 winners (squares) on GPU: the fp64 peak was not measured; a flat roof drawn is the "
        "fp32 peak, not theirs."
    ), note
    # Without f64 winners the fp64 peak is not drawn.
    note = roofline.plot(rows[1:], flops, {"GPU": limits}, tmp_path / "roofline.png")
    assert note == "Peak FLOP/s of the roof: GPU: 100 GFLOP/s, specification."
    import matplotlib.pyplot as plt

    points = [(place(r, 524288.0)[0], r) for r in rows]
    fig, ax = plt.subplots()
    roofline._panel(ax, "GPU", points, device_peaks(limits), fp64=25.0)
    dash_dot = [line for line in ax.lines if line.get_linestyle() == "-."]
    plt.close(fig)
    assert len(dash_dot) == 1
    xs, ys = list(dash_dot[0].get_xdata()), list(dash_dot[0].get_ydata())
    assert ys == [min(25.0, 10 * x) for x in xs]


def test_roofline_arithmetic():
    # GEMM 64^3: 2*64^3 FLOPs over A+B+C = 3*64*64 floats.
    assert min_bytes(GEMM) == 4 * 3 * 64 * 64 == 49152
    (intensity, gflops), reason = place({"problem": GEMM, "op": "gemm", "median_ms": 2.0}, 524288.0)
    assert (intensity, gflops, reason) == (524288.0 / 49152, 0.262144, "")
    # conv2d: x 1*8*8*8 + w 8*8*3*3 + y 1*8*8*8 floats (pad 1 keeps 8x8).
    assert min_bytes(CONV) == 4 * (512 + 576 + 512)
    assert min_bytes(
        "conv2d:N=2,C=4,H=9,W=9,K=6,R=3,S=3,stride=2,pad=0,groups=2,dtype=f32"
    ) == 4 * (2 * 4 * 9 * 9 + 6 * 2 * 3 * 3 + 2 * 6 * 4 * 4)
    assert min_bytes("kt:convolution_kernel:4096x4096") is None
    assert place({"problem": "kt:k:1", "op": "kernel_tuner", "median_ms": 1.0}, 10.0) == (
        None,
        "kt:k:1 (op kernel_tuner: bytes moved unknown)",
    )
    assert device_peaks('{"peak_gflops": 19500, "bandwidth_gbs": 1555.5}') == (
        19500.0,
        "specification",
        1555.5,
    )
    assert device_peaks('{"peak_gflops": 0, "bandwidth_gbs": 0}') == (None, None, None)
    assert device_peaks("{}") == (None, None, None)
    # What beast measured (STREAM) before the specification's bandwidth.
    assert device_peaks('{"bandwidth_gbs": 0, "bandwidth_gbs_measured": 12.5}') == (
        None,
        None,
        12.5,
    )
    assert device_peaks('{"bandwidth_gbs": 900, "bandwidth_gbs_measured": 850}')[2] == 850.0
