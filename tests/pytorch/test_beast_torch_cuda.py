"""beast_torch on CUDA tensors (a PyTorch built with CUDA on a machine with a
GPU; skipped elsewhere, as Debian's CPU-only PyTorch here): the operators run
on the tensors' GPU and PyTorch's current stream, on their own memory, and
equal PyTorch's own (cuDNN, cuBLAS) in both memory formats."""

import pytest
import shapes

torch = pytest.importorskip("torch")
F = torch.nn.functional

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available(), reason="needs a PyTorch with CUDA and a GPU"
)


@pytest.mark.parametrize("fmt", [torch.contiguous_format, torch.channels_last])
def test_conv2d_on_a_side_stream_equals_torchs(beast_torch, fmt):
    torch.backends.cudnn.allow_tf32 = False  # beast's f32 kernels round as f32
    gen = torch.Generator().manual_seed(11)
    side = torch.cuda.Stream()
    for s in shapes.random_convs()[:10]:
        x = torch.randn(s["N"], s["C"], s["H"], s["W"], generator=gen)
        w = torch.randn(s["K"], s["C"] // s["groups"], s["R"], s["S"], generator=gen)
        b = torch.randn(s["K"], generator=gen) if s["bias"] else None
        a = dict(
            stride=(s["stride_h"], s["stride_w"]),
            padding=(s["pad_h"], s["pad_w"]),
            dilation=(s["dilation_h"], s["dilation_w"]),
            groups=s["groups"],
        )
        x, w = x.cuda().contiguous(memory_format=fmt), w.cuda().contiguous(memory_format=fmt)
        b = None if b is None else b.cuda()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            y = torch.ops.beast.conv2d(x, w, b, *a.values())
        side.synchronize()
        assert y.device == x.device
        ref = F.conv2d(x, w, b, **a)
        torch.testing.assert_close(y, ref, rtol=1e-4, atol=1e-4, msg=str(s))


def test_gemm_on_cuda_equals_matmul_without_tf32(beast_torch):
    torch.backends.cuda.matmul.allow_tf32 = False
    gen = torch.Generator().manual_seed(12)
    for g in shapes.random_gemms()[:10]:
        a = torch.randn(g["M"], g["K"], generator=gen).cuda()
        b = torch.randn(g["K"], g["N"], generator=gen).cuda()
        torch.testing.assert_close(torch.ops.beast.gemm(a, b), a @ b, rtol=1e-4, atol=1e-4)


def test_a_prepared_conv2d_on_cuda_is_a_snapshot_and_equals_torchs(beast_torch):
    """The prepared path on the GPU: the Winograd shape's prepare stage runs
    once on the current stream, and zeroing the weights afterwards changes
    nothing its calls compute."""
    torch.backends.cudnn.allow_tf32 = False
    s = shapes.TUNED_WINOGRAD
    gen = torch.Generator().manual_seed(13)
    x = torch.randn(s["N"], s["C"], s["H"], s["W"], generator=gen).cuda()
    w = torch.randn(s["K"], s["C"], 3, 3, generator=gen).cuda()
    b = torch.randn(s["K"], generator=gen).cuda()
    # A kernel with a prepare step, or the snapshot below means nothing.
    assert "conv2d/winograd_split" in beast_torch.explain_conv2d(x, w, b, 1, 1)
    expected = F.conv2d(x, w, b, padding=1)
    prepared = beast_torch.prepare_conv2d(x, w, b, 1, 1)
    w.zero_()
    torch.testing.assert_close(prepared.forward(x), expected, rtol=1e-3, atol=1e-3)
    del prepared  # waits for its stream before freeing the workspace
    torch.cuda.synchronize()
