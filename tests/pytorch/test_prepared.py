"""beast_torch's prepared convolutions: weights prepared once per input shape
and weight version (the tuned Winograd kernel's filter transform run once,
not per call), equal to torch's convolution, prepared again when a weight
changes, and a snapshot of the weights otherwise."""

import copy
import pickle

import pytest
import shapes
from test_beast_torch import conv_args, conv_tensors, tier

torch = pytest.importorskip("torch")
F = torch.nn.functional
# Winograd F(4x4, 3x3)'s transforms amplify float32 rounding: on these
# 288-term sums it is off by up to about 3e-4 where a direct sum is off by
# 1e-5 (a wrong transform or stale weights are off by whole units).
WINOGRAD = dict(rtol=1e-3, atol=1e-3)


def layer(beast_torch, s, w, b):
    """A beast Conv2d of shape s holding w and b."""
    a = conv_args(s)
    conv = beast_torch.Conv2d(s["C"], s["K"], (s["R"], s["S"]), bias=b is not None, **a)
    with torch.no_grad():
        conv.weight.copy_(w)
        if b is not None:
            conv.bias.copy_(b)
    return conv


def handles(conv):
    return list(conv.__dict__.get("_beast_prepared", {}).values())


def test_the_winograd_layer_prepares_once_and_equals_torch(beast_torch):
    s = shapes.TUNED_WINOGRAD
    x, w, b = conv_tensors(s, torch.Generator().manual_seed(31))
    a = conv_args(s)
    explained = beast_torch.explain_conv2d(x, w, b, **a)
    assert tier(explained) == "exact" and "conv2d/winograd_split" in explained
    conv = layer(beast_torch, s, w, b)
    with torch.no_grad():
        first = conv(x)
        [prepared] = handles(conv)
        second = conv(x)
    [again] = handles(conv)
    assert again is prepared  # the same handle served both calls
    torch.testing.assert_close(first, F.conv2d(x, w, b, **a), **WINOGRAD)
    assert torch.equal(second, first)


def test_a_prepared_convolution_is_a_snapshot_of_its_weights(beast_torch):
    """The Winograd kernel's prepared call reads only what the prepare step
    transformed: weights zeroed afterwards change nothing (a transform per
    call would give the bias alone)."""
    s = shapes.TUNED_WINOGRAD
    x, w, b = conv_tensors(s, torch.Generator().manual_seed(32))
    a = conv_args(s)
    expected = F.conv2d(x, w, b, **a)
    prepared = beast_torch.prepare_conv2d(x, w, b, **a)
    w.zero_()
    torch.testing.assert_close(prepared.forward(x), expected, **WINOGRAD)
    bias_only = b.reshape(1, -1, 1, 1).expand_as(expected)
    torch.testing.assert_close(beast_torch.conv2d(x, w, b, **a), bias_only)


def test_the_layer_prepares_again_when_a_weight_changes(beast_torch):
    s = shapes.TUNED_WINOGRAD
    x, w, b = conv_tensors(s, torch.Generator().manual_seed(33))
    a = conv_args(s)
    conv = layer(beast_torch, s, w, b)
    with torch.no_grad():
        conv(x)
        [before] = handles(conv)
        conv.weight.mul_(2)  # in place: the weight's version counts it
        doubled = conv(x)
        [after] = handles(conv)
        assert after is not before
        torch.testing.assert_close(doubled, F.conv2d(x, 2 * w, b, **a), **WINOGRAD)
        conv.bias = torch.nn.Parameter(torch.zeros_like(b))  # replaced
        torch.testing.assert_close(conv(x), F.conv2d(x, 2 * w, None, **a), **WINOGRAD)
        assert len(handles(conv)) == 1
        # A change through .data is not counted by PyTorch, so not seen ...
        conv.weight.data.mul_(0.5)
        stale = conv(x)
        torch.testing.assert_close(stale, F.conv2d(x, 2 * w, None, **a), **WINOGRAD)
        # ... until the prepared weights are released.
        conv.release_prepared()
        torch.testing.assert_close(conv(x), F.conv2d(x, w, None, **a), **WINOGRAD)


@pytest.mark.parametrize("fmt", [torch.contiguous_format, torch.channels_last])
def test_each_input_shape_gets_its_own_prepared_weights_up_to_the_limit(beast_torch, fmt):
    """The direct kernel's shape (no prepare stage: its handle calls plainly)
    in batches of 1, 2 and 3, two kept."""
    s = shapes.TUNED_CONV
    x, w, b = conv_tensors(dict(s, N=3), torch.Generator().manual_seed(34))
    a = conv_args(s)
    conv = layer(beast_torch, s, w, b).to(memory_format=fmt)
    conv.prepared_shapes = 2
    with torch.no_grad():
        for n in (1, 2, 3, 2):
            xn = x[:n].contiguous(memory_format=fmt)
            y, ref = conv(xn), F.conv2d(xn, w.contiguous(memory_format=fmt), b, **a)
            assert y.stride() == ref.stride()
            torch.testing.assert_close(y, ref, rtol=1e-5, atol=1e-4)
    assert [key[0][0] for key in conv._beast_prepared] == [3, 2]  # the last two, newest last


def test_gradients_and_prepare_weights_false_take_the_plain_path(beast_torch):
    s = shapes.TUNED_CONV
    x, w, b = conv_tensors(s, torch.Generator().manual_seed(35))
    conv = layer(beast_torch, s, w, b)
    y = conv(x)  # grad mode on, parameters that need a gradient
    assert y.requires_grad and handles(conv) == []
    conv.prepare_weights = False
    with torch.no_grad():
        torch.testing.assert_close(conv(x), y.detach())
    assert handles(conv) == []


def test_a_layer_with_prepared_weights_copies_and_pickles_without_them(beast_torch):
    s = shapes.TUNED_WINOGRAD
    x, w, b = conv_tensors(s, torch.Generator().manual_seed(36))
    conv = layer(beast_torch, s, w, b)
    with torch.no_grad():
        y = conv(x)
        for other in (copy.deepcopy(conv), pickle.loads(pickle.dumps(conv))):
            assert handles(other) == []
            assert torch.equal(other(x), y)
            assert len(handles(other)) == 1
    assert len(handles(conv)) == 1


def test_empty_batches_new_geometry_and_inference_parameters(beast_torch):
    s = shapes.TUNED_CONV
    x, w, b = conv_tensors(s, torch.Generator().manual_seed(38))
    conv = layer(beast_torch, s, w, b)
    with torch.no_grad():
        empty = conv(x[:0])  # nothing to prepare: an empty output, as F.conv2d gives
        assert empty.shape == (0, s["K"], s["H"], s["W"])
        conv(x)
        conv.padding = (0, 0)  # the layer's geometry is part of what was prepared
        torch.testing.assert_close(conv(x), F.conv2d(x, w, b), rtol=1e-5, atol=1e-4)
        assert len(handles(conv)) == 1
    with torch.inference_mode():
        made_here = layer(beast_torch, s, w, b)  # inference tensors: no version to watch
        torch.testing.assert_close(
            made_here(x), F.conv2d(x, w, b, **conv_args(s)), rtol=1e-5, atol=1e-4
        )
    assert handles(made_here) == []


def test_a_handle_keeps_the_weights_it_was_given_when_the_layer_gets_new_ones(beast_torch):
    """Module.to() and the like give a parameter new memory (param.data =
    ...): a handle made before keeps reading the memory it was given."""
    s = shapes.TUNED_CONV
    x, w, b = conv_tensors(s, torch.Generator().manual_seed(39))
    a = conv_args(s)
    conv = layer(beast_torch, s, w, b)
    with torch.no_grad():
        prepared = beast_torch.prepare_conv2d(x, conv.weight, conv.bias, **a)
        conv.weight.data = torch.zeros_like(w)
        torch.testing.assert_close(
            prepared.forward(x), F.conv2d(x, w, b, **a), rtol=1e-5, atol=1e-4
        )
        bias_only = b.reshape(1, -1, 1, 1).expand(s["N"], -1, s["H"], s["W"])
        torch.testing.assert_close(conv(x), bias_only)


def test_bad_prepared_calls_are_named(beast_torch):
    s = shapes.TUNED_WINOGRAD
    x, w, b = conv_tensors(s, torch.Generator().manual_seed(37))
    a = conv_args(s)
    prepared = beast_torch.prepare_conv2d(x, w, b, **a)
    with pytest.raises(RuntimeError, match=r"prepared for a Float input of \(1, 32, 16, 16\)"):
        prepared.forward(x[:, :16])
    with pytest.raises(RuntimeError, match="prepared for a Float input"):
        prepared.forward(x.double())
    with pytest.raises(RuntimeError, match=r"beast::conv2d_prepare has no backward \(prepared"):
        beast_torch.prepare_conv2d(x, w.requires_grad_(), b, **a)
    with pytest.raises(ValueError, match="pads the input unevenly"):
        beast_torch.prepare_conv2d(x, torch.zeros(4, 32, 2, 2), None, padding="same")
