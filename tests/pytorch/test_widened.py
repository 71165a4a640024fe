"""The tuned f16 implicit-GEMM kernel (WIDEN=1, its default for 16-bit
storage) reads its input and weights widened to float in the workspace: a
prepare stage widens the weights, a launch before the kernel the input.
Through torch.ops.beast.conv2d (a plain call runs both) and through a
Conv2d layer (weights prepared once), it equals double sums of the same
inputs within f16's rounding bound, and the layer's result is a snapshot of
the weights it prepared."""

import pytest
import shapes
from test_beast_torch import beast_conv, conv_args, conv_tensors, rounding_excess, tier
from test_prepared import handles, layer

torch = pytest.importorskip("torch")


def assert_within_f16(y, x, w, b, s):
    assert y.dtype == torch.float16
    excess = rounding_excess(y, x, w, b, s, 2.0**-11)
    assert excess <= 0, "exceeds the f16 bound by %g" % excess


def test_a_plain_call_widens_both_operands_and_is_within_f16_rounding(beast_torch):
    s = shapes.TUNED_HALF
    x, w, b = conv_tensors(s, torch.Generator().manual_seed(41), torch.float16)
    a = conv_args(s)
    explained = beast_torch.explain_conv2d(x, w, b, **a)
    assert tier(explained) == "exact" and "conv2d/implicit_gemm" in explained
    assert "WIDEN=1" in explained
    assert_within_f16(beast_conv(x, w, b, a), x, w, b, s)


def test_a_layer_prepares_the_widened_weights_once(beast_torch):
    s = shapes.TUNED_HALF
    x, w, b = conv_tensors(s, torch.Generator().manual_seed(42), torch.float16)
    conv = layer(beast_torch, s, w, b).to(torch.float16)
    with torch.no_grad():
        first = conv(x)
        [prepared] = handles(conv)
        # The prepared call reads the widened copy, not the weights: zeroed
        # in place (no new version for the layer to see), they change
        # nothing, where a plain call would give the bias alone.
        conv.weight.data.zero_()
        second = conv(x)
    [again] = handles(conv)
    assert again is prepared
    assert_within_f16(first, x, w, b, s)
    assert torch.equal(second, first)
