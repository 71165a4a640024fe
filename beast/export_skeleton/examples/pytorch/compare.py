"""Times a small CNN's forward pass with PyTorch's own CPU convolution and
with beast's tuned kernels (beast_torch.replace_convs), on the same inputs.

  python3 compare.py --problems          # the model's conv layers as a job file
  python3 compare.py [--batch N] [--channels-last] [--runs R]

The second form needs beast_torch importable (PYTHONPATH=<export>/pytorch/build).
It checks that both give the same logits, then prints the median time per
forward pass of each and their ratio, and beast's time again without
prepared weights (each forward pass transforming them anew).
"""

import argparse
import copy
import os
import statistics
import time

import torch
from torch import nn


class SmallCnn(nn.Module):
    """Five convolutions in the shapes of a ResNet stage, then a classifier."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(32, 64, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(64, 64, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(64, 64, 3, padding=1, groups=4),
            nn.ReLU(),
            nn.Conv2d(64, 128, 1),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(128, 10)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


def conv_problems(model, x, layout):
    """The problem key of every Conv2d the forward pass of x meets."""
    keys = []

    def hook(conv, inputs, _output):
        n, c, h, w = inputs[0].shape
        keys.append(
            "conv2d:N=%d,C=%d,H=%d,W=%d,K=%d,R=%d,S=%d,stride_h=%d,stride_w=%d,pad_h=%d,"
            "pad_w=%d,dilation_h=%d,dilation_w=%d,groups=%d,bias=%d,layout=%s,dtype=f32"
            % (
                n,
                c,
                h,
                w,
                conv.out_channels,
                *conv.kernel_size,
                *conv.stride,
                *conv.padding,
                *conv.dilation,
                conv.groups,
                conv.bias is not None,
                layout,
            )
        )

    handles = [m.register_forward_hook(hook) for m in model.modules() if isinstance(m, nn.Conv2d)]
    with torch.no_grad():
        model(x)
    for h in handles:
        h.remove()
    return keys


def median_ms(model, x, runs):
    with torch.inference_mode():
        model(x)  # warm-up: builds (or loads) the kernels, fills caches
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            model(x)
            times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--size", type=int, default=64, help="image height and width")
    parser.add_argument("--channels-last", action="store_true", help="NHWC tensors")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument(
        "--threads",
        type=int,
        default=os.cpu_count(),
        help="PyTorch's CPU threads (default: every core, as the OpenCL device uses)",
    )
    parser.add_argument("--problems", action="store_true", help="print the job file, then stop")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = SmallCnn().eval()
    x = torch.randn(args.batch, 3, args.size, args.size)
    layout = "NHWC" if args.channels_last else "NCHW"
    if args.channels_last:
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    if args.problems:
        print("# SmallCnn of examples/pytorch/compare.py, batch %d, %s" % (args.batch, layout))
        for key in conv_problems(model, x, layout):
            print(key)
        return

    import beast_torch

    tuned = beast_torch.replace_convs(copy.deepcopy(model))
    with torch.inference_mode():
        expected, got = model(x), tuned(x)
    error = (got - expected).abs().max().item()
    assert torch.allclose(got, expected, rtol=1e-3, atol=1e-4), "logits differ by %g" % error
    ms_torch = median_ms(model, x, args.runs)
    # beast's convolutions run on the OpenCL device's own threads (PoCL: one
    # per core); PyTorch's OpenMP threads, spinning after each of its own ops,
    # would take cores from them, so the rest of the model runs on one.
    torch.set_num_threads(1)
    ms_beast = median_ms(tuned, x, args.runs)
    # The same without prepared weights: a kernel that transforms its weights
    # first (Winograd) then does it in every forward pass.
    convs = [m for m in tuned.modules() if isinstance(m, beast_torch.Conv2d)]
    for conv in convs:
        conv.prepare_weights = False
    ms_per_call = median_ms(tuned, x, args.runs)
    for conv in convs:
        conv.prepare_weights = True
    print("SmallCnn, batch %d, %dx%d, %s" % (args.batch, args.size, args.size, layout))
    print(
        "  PyTorch %s conv (%d threads): %8.2f ms per forward pass"
        % (torch.__version__, args.threads, ms_torch)
    )
    print("  beast_torch (OpenCL device):  %8.2f ms per forward pass" % ms_beast)
    print("    preparing weights per call: %8.2f ms per forward pass" % ms_per_call)
    print("  beast / PyTorch: %.2fx the time (logits agree to %.1e)" % (ms_beast / ms_torch, error))
    for conv in convs[:1]:
        print("first layer: " + conv.explain(x).replace("\n", "\n  "))


if __name__ == "__main__":
    main()
