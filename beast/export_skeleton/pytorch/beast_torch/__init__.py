"""beast_torch: the kernels beast tuned, as PyTorch operators.

Importing it loads the operator library (libbeast_torch_ops.so beside this
file, or the file $BEAST_TORCH_LIBRARY names), which registers
torch.ops.beast.conv2d, conv2d_prepare, gemm, linear, explain_conv2d and
explain_gemm. The
functions and modules below add what the raw operators leave out: a backward
pass (PyTorch's own gradients), padding modes and string paddings, and the
swap of a model's nn.Conv2d layers (replace_convs).
"""

import os

import torch

_LIBRARY = os.environ.get("BEAST_TORCH_LIBRARY") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "libbeast_torch_ops.so"
)
if not os.path.isfile(_LIBRARY):
    raise ImportError(
        "beast_torch: the operator library %s is missing: build the export's pytorch/ "
        "folder (cmake -S pytorch -B build && cmake --build build) and put build/ on "
        "PYTHONPATH" % _LIBRARY
    )
torch.ops.load_library(_LIBRARY)

from .modules import (
    Conv2d,
    conv2d,
    explain_conv2d,
    explain_gemm,
    gemm,
    linear,
    prepare_conv2d,
    replace_convs,
)

__all__ = [
    "Conv2d",
    "conv2d",
    "explain_conv2d",
    "explain_gemm",
    "gemm",
    "linear",
    "prepare_conv2d",
    "replace_convs",
]
