"""beast_torch against PyTorch: the operators equal torch's own on golden,
random and GEMM shapes in both memory formats and every dtype; bad input is
a RuntimeError; Conv2d and replace_convs change nothing a model computes."""

import os
import subprocess
import sys
import warnings

import pytest
import shapes

torch = pytest.importorskip("torch")
F = torch.nn.functional

CL = torch.channels_last
FORMATS = [torch.contiguous_format, CL]


def conv_args(s):
    return dict(
        stride=(s["stride_h"], s["stride_w"]),
        padding=(s["pad_h"], s["pad_w"]),
        dilation=(s["dilation_h"], s["dilation_w"]),
        groups=s["groups"],
    )


def conv_tensors(s, gen, dtype=torch.float32):
    x = torch.randn(s["N"], s["C"], s["H"], s["W"], generator=gen, dtype=torch.float64)
    w = torch.randn(
        s["K"], s["C"] // s["groups"], s["R"], s["S"], generator=gen, dtype=torch.float64
    )
    b = torch.randn(s["K"], generator=gen, dtype=torch.float64) if s["bias"] else None
    return x.to(dtype), w.to(dtype), None if b is None else b.to(dtype)


def beast_conv(x, w, b, a):
    return torch.ops.beast.conv2d(
        x, w, b, list(a["stride"]), list(a["padding"]), list(a["dilation"]), a["groups"]
    )


def in_format(t, fmt):
    return t.contiguous(memory_format=fmt)


def tier(explained):
    """'exact', 'nearest' or 'generic': which tier of the library served a call."""
    first = explained.splitlines()[0]
    for name in ("exact", "nearest", "generic"):
        if "-> " + name in first:
            return name
    raise AssertionError("no tier in: " + first)


def test_onnx_golden_cases_equal_onnx_and_torch_in_both_formats(beast_torch):
    cases = shapes.golden_cases()
    assert len(cases) == 17
    for name, s, values in cases:
        x = torch.tensor(values["x"]).reshape(s["N"], s["C"], s["H"], s["W"])
        w = torch.tensor(values["w"]).reshape(s["K"], s["C"] // s["groups"], s["R"], s["S"])
        b = torch.tensor(values["b"]) if s["bias"] else None
        a = conv_args(s)
        expected = torch.tensor(values["y"])
        for fmt in FORMATS:
            xf, wf = in_format(x, fmt), in_format(w, fmt)
            y, ref = beast_conv(xf, wf, b, a), F.conv2d(xf, wf, b, **a)
            assert y.stride() == ref.stride(), name  # the memory format PyTorch gives
            torch.testing.assert_close(y.flatten(), expected, rtol=1e-5, atol=1e-4, msg=name)
            torch.testing.assert_close(y, ref, rtol=1e-5, atol=1e-4, msg=name)


@pytest.mark.parametrize("fmt", FORMATS, ids=["contiguous", "channels_last"])
def test_thirty_random_shapes_equal_torch(beast_torch, fmt):
    gen = torch.Generator().manual_seed(7)
    tiers = []
    for s in shapes.random_convs():
        x, w, b = conv_tensors(s, gen)
        x, w, a = in_format(x, fmt), in_format(w, fmt), conv_args(s)
        y, ref = beast_conv(x, w, b, a), F.conv2d(x, w, b, **a)
        assert y.stride() == ref.stride(), s  # the memory format PyTorch gives
        torch.testing.assert_close(y, ref, rtol=1e-4, atol=1e-4, msg=str(s))
        tiers.append(tier(torch.ops.beast.explain_conv2d(x, w, b, *a.values())))
    # The export serves each with a tuned default config rendered for it (the
    # one-channel tuned shape's fits every channel count): templates' code,
    # not the generic kernel, meets PyTorch here.
    assert tiers == ["nearest"] * 30


def test_the_tuned_shape_runs_its_tuned_kernel_and_an_unserved_one_the_generic(beast_torch):
    gen = torch.Generator().manual_seed(1)
    x, w, b = conv_tensors(shapes.TUNED_CONV, gen)
    a = conv_args(shapes.TUNED_CONV)
    nchw = torch.ops.beast.explain_conv2d(x, w, b, *a.values())
    assert "-> exact tuned: conv2d/direct_nchw" in nchw
    assert nchw.splitlines()[1] == "no copies: the tensors run in their own memory"
    nhwc = torch.ops.beast.explain_conv2d(in_format(x, CL), in_format(w, CL), b, *a.values())
    assert "-> exact tuned: conv2d/direct_nhwc" in nhwc
    assert "layout=NHWC" in nhwc
    other = torch.ops.beast.explain_conv2d(x[:, :, :11], w, b, *a.values())
    assert tier(other) == "generic"
    assert other.splitlines()[1] == (
        "input copied into contiguous memory (the weight's format, or strides of neither)"
    )


def test_a_weight_in_the_other_format_is_copied_and_explained(beast_torch):
    gen = torch.Generator().manual_seed(2)
    x, w, b = conv_tensors(shapes.TUNED_CONV, gen)
    a = conv_args(shapes.TUNED_CONV)
    text = torch.ops.beast.explain_conv2d(in_format(x, CL), w, b, *a.values())
    assert text.splitlines()[1] == "weight copied into channels_last memory (the input's format)"
    y = beast_conv(in_format(x, CL), w, b, a)
    torch.testing.assert_close(y, F.conv2d(x, w, b, **a), rtol=1e-4, atol=1e-4)


def test_twenty_gemms_equal_matmul_with_transposed_views_and_no_copy(beast_torch):
    gen = torch.Generator().manual_seed(3)
    for g in shapes.random_gemms():
        a = torch.randn(g["M"], g["K"], generator=gen)
        b = torch.randn(g["K"], g["N"], generator=gen)
        # A transposed view runs as the transposition flag, on its own memory.
        av = a.t().contiguous().t() if g["transA"] else a
        bv = b.t().contiguous().t() if g["transB"] else b
        c = torch.ops.beast.gemm(av, bv)
        torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4, msg=str(g))
        text = torch.ops.beast.explain_gemm(av, bv)
        assert shapes.gemm_key(g) in text.splitlines()[0]
        assert text.splitlines()[1] == "no copies: the tensors run in their own memory"


def test_linear_equals_torch_on_batched_input(beast_torch):
    gen = torch.Generator().manual_seed(4)
    x = torch.randn(3, 5, 24, generator=gen)
    w = torch.randn(10, 24, generator=gen)
    b = torch.randn(10, generator=gen)
    torch.testing.assert_close(
        torch.ops.beast.linear(x, w, b), F.linear(x, w, b), rtol=1e-4, atol=1e-4
    )
    torch.testing.assert_close(beast_torch.linear(x, w), F.linear(x, w), rtol=1e-4, atol=1e-4)


def rounding_excess(y, x, w, b, s, unit):
    """How far y exceeds the bound of the library's validation, checked
    against double sums of the same inputs (<= 0: within it): sums in the
    accumulation type (f64 for f64, else f32), one rounding of the stored
    output (unit: f16 2^-11, bf16 2^-8), relative to the sum of |terms|
    (|x| |w| summed)."""
    a = conv_args(s)
    ref = F.conv2d(x.double(), w.double(), None if b is None else b.double(), **a)
    absref = F.conv2d(
        x.double().abs(), w.double().abs(), None if b is None else b.double().abs(), **a
    )
    terms = s["C"] // s["groups"] * s["R"] * s["S"] + 1
    bound = 2 * (terms * 2.0**-24 + unit) * absref + 2.0**-24
    if y.dtype == torch.float64:
        bound = 2 * terms * unit * absref + 1e-300
    return ((y.double() - ref).abs() - bound).max().item()


@pytest.mark.parametrize(
    "dtype,unit", [(torch.float64, 2.0**-52), (torch.float16, 2.0**-11), (torch.bfloat16, 2.0**-8)]
)
def test_every_dtype_within_its_rounding(beast_torch, dtype, unit):
    gen = torch.Generator().manual_seed(5)
    for s in shapes.random_convs()[:6] + [shapes.TUNED_CONV]:
        x, w, b = conv_tensors(s, gen, dtype)
        a = conv_args(s)
        for fmt in FORMATS:
            y = beast_conv(in_format(x, fmt), in_format(w, fmt), b, a)
            assert y.dtype == dtype
            excess = rounding_excess(y, x, w, b, s, unit)
            assert excess <= 0, "%s %s exceeds the bound by %g" % (dtype, s, excess)
    a_, b_ = (
        torch.randn(33, 17, generator=gen).to(dtype),
        torch.randn(17, 9, generator=gen).to(dtype),
    )
    c = torch.ops.beast.gemm(a_, b_)
    ref = a_.double() @ b_.double()
    bound = (
        2
        * (18 * (2.0**-24 if dtype != torch.float64 else unit) + unit)
        * (a_.double().abs() @ b_.double().abs())
    )
    assert ((c.double() - ref).abs() <= bound).all(), dtype


@pytest.mark.parametrize("dtype", [torch.int32, torch.complex64, torch.uint8])
def test_an_unsupported_dtype_is_a_runtime_error_naming_it(beast_torch, dtype):
    x, w = torch.ones(1, 2, 5, 5, dtype=dtype), torch.ones(3, 2, 3, 3, dtype=dtype)
    with pytest.raises(RuntimeError, match="beast::conv2d: dtype .* is not supported"):
        torch.ops.beast.conv2d(x, w, None, [1, 1], [0, 0], [1, 1], 1)
    with pytest.raises(RuntimeError, match="beast::gemm: dtype .* is not supported"):
        torch.ops.beast.gemm(torch.ones(2, 2, dtype=dtype), torch.ones(2, 2, dtype=dtype))


def test_bad_shapes_and_mixed_inputs_are_runtime_errors(beast_torch):
    x, w = torch.ones(1, 4, 5, 5), torch.ones(6, 2, 3, 3)
    with pytest.raises(RuntimeError, match="input must be 4-D"):
        torch.ops.beast.conv2d(x[0], w, None, [1, 1], [0, 0], [1, 1], 2)
    with pytest.raises(RuntimeError, match="do not fit together"):
        torch.ops.beast.conv2d(x, w, None, [1, 1], [0, 0], [1, 1], 1)
    with pytest.raises(RuntimeError, match="weight is Double but input is Float"):
        torch.ops.beast.conv2d(x, w.double(), None, [1, 1], [0, 0], [1, 1], 2)
    with pytest.raises(RuntimeError, match="does not fit the 5x5 input"):
        torch.ops.beast.conv2d(x, torch.ones(6, 2, 7, 7), None, [1, 1], [0, 0], [1, 1], 2)
    with pytest.raises(RuntimeError, match="inner sizes differ"):
        torch.ops.beast.gemm(torch.ones(2, 3), torch.ones(4, 2))
    with pytest.raises(RuntimeError, match="runs CPU and CUDA tensors, not tensors on meta"):
        torch.ops.beast.gemm(torch.ones(2, 3, device="meta"), torch.ones(3, 2, device="meta"))
    # A bias of another dtype is refused before the GEMM, as F.linear refuses
    # it (add_ would round it into the output).
    with pytest.raises(RuntimeError, match="bias is Double but input Float"):
        torch.ops.beast.linear(torch.ones(2, 3), torch.ones(4, 3), torch.ones(4).double())
    with pytest.raises(RuntimeError, match="bias is Float but input Half"):
        torch.ops.beast.linear(torch.ones(2, 3).half(), torch.ones(4, 3).half(), torch.ones(4))
    # 'same' keeps no strided output the input's size: refused as PyTorch does.
    with pytest.raises(ValueError, match="padding='same' is not supported for strided"):
        beast_torch.conv2d(x, w, stride=2, padding="same", groups=2)
    with pytest.raises(ValueError, match="padding='same' is not supported for strided"):
        beast_torch.explain_conv2d(x, w, stride=(1, 2), padding="same", groups=2)


def test_the_operator_refuses_gradients_and_the_function_backward_is_torchs(beast_torch):
    gen = torch.Generator().manual_seed(6)
    s = shapes.random_convs()[3]
    x, w, b = conv_tensors(s, gen)
    a = conv_args(s)
    with pytest.raises(RuntimeError, match="beast::conv2d has no backward"):
        beast_conv(x.requires_grad_(), w, b, a)
    with torch.no_grad():
        beast_conv(x, w, b, a)  # no grad mode: fine
    w.requires_grad_()
    b.requires_grad_()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        beast_torch.conv2d(x, w, b, **a).square().sum().backward()
    assert any("PyTorch's own gradients" in str(c.message) for c in caught)
    got = (x.grad, w.grad, b.grad)
    x2, w2, b2 = (t.detach().clone().requires_grad_() for t in (x, w, b))
    F.conv2d(x2, w2, b2, **a).square().sum().backward()
    for g, e in zip(got, (x2.grad, w2.grad, b2.grad)):
        torch.testing.assert_close(g, e, rtol=1e-4, atol=1e-4)


class SmallCnn(torch.nn.Module):
    """A torchvision-free CNN: convolutions (grouped, strided, dilated, 1x1,
    reflect-padded, 'same') with ReLU and pooling, then a classifier."""

    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.body = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, stride=2, padding=1, bias=False),
            nn.ReLU(),
            nn.Conv2d(32, 32, 3, padding=2, dilation=2, groups=4),
            nn.ReLU(),
            nn.Conv2d(32, 24, 4, padding="same", padding_mode="reflect"),
            nn.ReLU(),
            nn.Conv2d(24, 16, 1),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = torch.nn.Linear(16, 5)

    def forward(self, x):
        return self.head(torch.flatten(self.body(x), 1))


@pytest.mark.parametrize("fmt", FORMATS, ids=["contiguous", "channels_last"])
def test_replace_convs_keeps_a_models_logits_and_state_dict(beast_torch, fmt):
    torch.manual_seed(8)
    model = SmallCnn().eval().to(memory_format=fmt)
    x = torch.randn(2, 3, 20, 20).contiguous(memory_format=fmt)
    with torch.no_grad():
        before = model(x)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    assert beast_torch.replace_convs(model) is model
    swapped = [m for m in model.modules() if isinstance(m, torch.nn.Conv2d)]
    assert len(swapped) == 5 and all(type(m) is beast_torch.Conv2d for m in swapped)
    assert list(model.state_dict()) == list(state)
    for k, v in model.state_dict().items():
        assert torch.equal(v, state[k]), k
    with torch.no_grad():
        after = model(x)
    torch.testing.assert_close(after, before, rtol=1e-4, atol=1e-5)
    # A fresh beast Conv2d loads the original layer's state dict.
    fresh = beast_torch.Conv2d(3, 16, 3, padding=1)
    fresh.load_state_dict(SmallCnn().body[0].state_dict())
    assert "no copies" in swapped[0].explain(x)


@pytest.mark.parametrize("mode", ["copy", "wrap", "map"])
def test_both_cpu_transfers_give_torchs_result_and_a_bad_one_is_named(beast_torch, mode):
    """CPU tensors wrapped as OpenCL buffers (the default) or copied by the
    host API (BEAST_TORCH_CPU_TRANSFER=copy), in plain and prepared calls: a
    fresh process each, since the mode is read once."""
    script = (
        "import torch, beast_torch, torch.nn.functional as F\n"
        "g = torch.Generator().manual_seed(9)\n"
        "x, w = torch.randn(2, 6, 9, 9, generator=g), torch.randn(4, 3, 3, 3, generator=g)\n"
        "b = torch.randn(4, generator=g)\n"
        "y = torch.ops.beast.conv2d(x, w, b, [1, 2], [1, 0], [1, 1], 2)\n"
        "torch.testing.assert_close(y, F.conv2d(x, w, b, (1, 2), (1, 0), 1, 2))\n"
        "p = beast_torch.prepare_conv2d(x, w, b, (1, 2), (1, 0), 1, 2)\n"
        "torch.testing.assert_close(p.forward(x), y)\n"
        "a, m = torch.randn(7, 5, generator=g), torch.randn(5, 3, generator=g)\n"
        "torch.testing.assert_close(torch.ops.beast.gemm(a, m), a @ m)\n"
        "print('ok')\n"
    )
    env = dict(os.environ, BEAST_TORCH_CPU_TRANSFER=mode, PYTHONPATH=os.pathsep.join(sys.path))
    result = subprocess.run(
        [sys.executable, "-c", script], check=False, env=env, capture_output=True, text=True
    )
    if mode == "map":
        assert result.returncode != 0
        assert "BEAST_TORCH_CPU_TRANSFER=map is neither wrap nor copy" in result.stderr
    else:
        assert result.returncode == 0, result.stderr
        assert result.stdout == "ok\n"
