"""Small ONNX models built with onnx.helper for the tests of `beast problems
--onnx` (test_onnx_problems.py) and of the README's outputs: a weight
initializer, a saved model, and the fixture `cnn` (a model with every kind
of node the job file maps or reports). A module of its own, not a test file,
so both import it without importing each other."""

import onnx
import pytest
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
