"""`beast problems --onnx`: small ONNX models built here with onnx.helper
(convolutions with groups, strides, dilation, bias and auto_pad; a Gemm; a
MatMul over a batch; a 3-D convolution, a transposed one and asymmetric
padding, which must be reported, not dropped) against the exact job file."""

import json
import subprocess

import onnx_models
import pytest
from conftest import REPO_ROOT, run_cli
from onnx import TensorProto, helper
from onnx_models import save, weight

cnn = onnx_models.cnn  # the fixture


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


def test_the_batch_is_worked_through_a_reshape_and_other_unknowns_are_reported(tmp_path, capsys):
    # A GPT-2 style linear layer: [batch, 128, 768] viewed as [-1, 768], then
    # a MatMul: its M is batch * 128, not the batch; with a symbolic sequence
    # length it stays unknown, and the node is reported, not guessed.
    def job(dims):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)
        shape = helper.make_tensor("shape", TensorProto.INT64, [2], [-1, 768])
        nodes = [
            helper.make_node("Reshape", ["x", "shape"], ["rows"], name="view"),
            helper.make_node("MatMul", ["rows", "w"], ["y"], name="fc"),
        ]
        path = save(tmp_path, nodes, [x], [shape, weight("w", [768, 3072])])
        code, out, _ = run_cli(capsys, "problems", "--onnx", path, "--batch", "4")
        assert code == 0
        return out.splitlines()[1:]

    assert job(["batch", 128, 768]) == [
        "gemm:M=512,N=3072,K=768,transA=0,transB=0,dtype=f32 x1  # first: fc (MatMul)"
    ]
    assert job(["batch", "seq", 768]) == [
        "# not mapped: fc (MatMul): an input shape is unknown after shape inference"
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
