"""`beast problems --onnx`: small ONNX models built here with onnx.helper
(convolutions with groups, strides, dilation, bias and auto_pad; a Gemm; a
MatMul over a batch; a 3-D convolution, a transposed one and asymmetric
padding, which must be reported, not dropped) against the exact job file."""

import json
import subprocess

import onnx
import pytest
from conftest import REPO_ROOT, run_cli
from onnx import TensorProto, helper


def weight(name, dims):
    return helper.make_tensor(name, TensorProto.FLOAT, dims, [0.0] * int(_count(dims)))


def _count(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def save(tmp_path, nodes, inputs, initializers, name="model.onnx"):
    graph = helper.make_graph(
        nodes,
        "g",
        inputs,
        [helper.make_tensor_value_info(nodes[-1].output[0], TensorProto.FLOAT, None)],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = tmp_path / name
    onnx.save(model, str(path))
    return path


@pytest.fixture
def cnn(tmp_path):
    """N x 8 x 16 x 16 (N symbolic) through: a 3x3 conv with bias, the same
    again (its weight merges), a grouped strided dilated conv, an auto_pad
    SAME_UPPER conv, a 1x1 conv with asymmetric padding, a transposed conv,
    a flatten and a Gemm (transB) and a MatMul."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8, 16, 16])
    inits = [
        weight("w1", [8, 8, 3, 3]),
        weight("b1", [8]),
        weight("w3", [16, 2, 3, 3]),
        weight("w4", [16, 16, 5, 5]),
        weight("w5", [16, 16, 1, 1]),
        weight("wt", [16, 16, 2, 2]),
        weight("fc", [10, 4096]),
        weight("mm", [10, 7]),
    ]
    conv = helper.make_node
    nodes = [
        conv("Conv", ["x", "w1", "b1"], ["y1"], name="conv1", pads=[1, 1, 1, 1]),
        conv("Conv", ["y1", "w1", "b1"], ["y2"], name="conv2", pads=[1, 1, 1, 1]),
        conv(
            "Conv",
            ["y2", "w3"],
            ["y3"],
            name="grouped",
            group=4,
            strides=[2, 2],
            dilations=[2, 2],
            pads=[2, 2, 2, 2],
        ),
        conv("Conv", ["y3", "w4"], ["y4"], name="same", auto_pad="SAME_UPPER"),
        conv("Conv", ["y4", "w5"], ["y5"], name="lopsided", pads=[0, 0, 1, 1]),
        conv("ConvTranspose", ["y4", "wt"], ["y6"], name="up", strides=[2, 2]),
        conv("Flatten", ["y6"], ["f"], name="flat"),
        conv("Gemm", ["f", "fc"], ["logits"], name="fc", transB=1),
        conv("MatMul", ["logits", "mm"], ["out"], name="proj"),
    ]
    return save(tmp_path, nodes, [x], inits)


def test_a_model_becomes_its_job_file_with_what_it_cannot_map(cnn, capsys):
    code, out, err = run_cli(capsys, "problems", "--onnx", cnn, "--batch", "2")
    assert (code, err) == (0, "")
    tail = ",dtype=f32"
    assert out.splitlines() == [
        f"# beast problems --onnx {cnn} --batch 2: 3 conv2d and 2 gemm shapes of 6 layers",
        "conv2d:N=2,C=8,H=16,W=16,K=8,R=3,S=3,stride_h=1,stride_w=1,pad_h=1,pad_w=1,"
        "dilation_h=1,dilation_w=1,groups=1,bias=1,layout=NCHW"
        + tail
        + " x2  # first: conv1 (Conv)",
        "conv2d:N=2,C=8,H=16,W=16,K=16,R=3,S=3,stride_h=2,stride_w=2,pad_h=2,pad_w=2,"
        "dilation_h=2,dilation_w=2,groups=4,layout=NCHW" + tail + " x1  # first: grouped (Conv)",
        "conv2d:N=2,C=16,H=8,W=8,K=16,R=5,S=5,stride_h=1,stride_w=1,pad_h=2,pad_w=2,"
        "dilation_h=1,dilation_w=1,groups=1,layout=NCHW" + tail + " x1  # first: same (Conv)",
        "gemm:M=2,N=10,K=4096,transA=0,transB=1" + tail + " x1  # first: fc (Gemm)",
        "gemm:M=2,N=7,K=10,transA=0,transB=0" + tail + " x1  # first: proj (MatMul)",
        (
            "# not mapped: lopsided (Conv): asymmetric padding [0, 0, 1, 1] (beast pads each side alike)"
        ),
        "# not mapped: up (ConvTranspose): a transposed convolution",
    ]


def test_layout_and_dtype_are_the_users(cnn, capsys):
    code, out, _ = run_cli(capsys, "problems", "--onnx", cnn, "--layout", "NHWC", "--dtype", "f16")
    assert code == 0
    first = out.splitlines()[1]
    assert first.startswith("conv2d:N=1,C=8,H=16,W=16,K=8,")
    assert ",layout=NHWC,dtype=f16 x2  # first: conv1 (Conv)" in first


def test_a_3d_convolution_is_reported(tmp_path, capsys):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8, 8])
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="vol")
    path = save(tmp_path, [node], [x], [weight("w", [4, 4, 3, 3, 3])])
    code, out, _ = run_cli(capsys, "problems", "--onnx", path)
    assert code == 0
    assert out.splitlines()[1:] == [
        "# not mapped: vol (Conv): a 3-D convolution (beast tunes 2-D ones)"
    ]


def test_bad_input_is_one_line(tmp_path, capsys):
    junk = tmp_path / "junk.onnx"
    junk.write_text("not a model")
    code, out, err = run_cli(capsys, "problems", "--onnx", junk)
    assert (code, out) == (1, "")
    assert err.startswith(f"beast problems: {junk}: not an ONNX model (")
    assert err.count("\n") == 1
    code, out, err = run_cli(capsys, "problems", "--onnx", tmp_path / "absent.onnx")
    assert (code, out, err) == (
        1,
        "",
        f"beast problems: {tmp_path / 'absent.onnx'}: no such file or directory\n",
    )
    code, out, err = run_cli(capsys, "problems", "--onnx", junk, "--dtype", "f8")
    assert (code, out, err) == (
        1,
        "",
        "beast problems: --dtype must be one of f32, f64, f16, bf16, not f8\n",
    )


BEAST = REPO_ROOT / "build" / "beast" / "beast"


@pytest.mark.skipif(not BEAST.exists(), reason="beast is not built")
def test_beast_tune_reads_the_job_file(cnn, tmp_path, capsys):
    code, out, _ = run_cli(capsys, "problems", "--onnx", cnn)
    assert code == 0
    job = tmp_path / "model.job"
    job.write_text(out)
    run = subprocess.run(
        [BEAST, "tune", "--problems", job, "--template", "gemm/tiled", "--db", tmp_path / "b.db"]
        + ["--max-configs", "1", "--max-reps", "3", "--ignore-soft", "--baselines", "none"]
        + ["--no-cache", "--json"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    pairs = json.loads(run.stdout)["pairs"]
    assert [p["problem"] for p in pairs] == [
        "gemm:M=1,N=10,K=4096,transA=0,transB=1,dtype=f32",
        "gemm:M=1,N=7,K=10,transA=0,transB=0,dtype=f32",
    ]
