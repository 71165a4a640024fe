#!/usr/bin/env python3
"""Writes the ONNX graphs the ResNet-50 and MobileNet-V2 jobs come from:
torchvision's architectures, no weights (export_params=False: the weights are
graph inputs with their shapes, so the files stay small and shape inference
still knows every layer), the batch dimension symbolic.

Needs PyTorch and torchvision (Debian: apt-get install --no-install-recommends
python3-torchvision). Run from the project root:

  python3 jobs/make_models.py

The graphs are committed (jobs/models/); make_jobs.py turns them into job
files without PyTorch.
"""

import os

import torch
import torchvision

MODELS = {
    "resnet50": torchvision.models.resnet50,
    "mobilenet_v2": torchvision.models.mobilenet_v2,
}
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, make in MODELS.items():
        model = make(weights=None).eval()
        path = os.path.join(OUT, name + ".onnx")
        torch.onnx.export(
            model,
            torch.zeros(1, 3, 224, 224),
            path,
            export_params=False,
            input_names=["input"],
            output_names=["logits"],
            dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}},
            opset_version=13,
        )
        print("%s: %d bytes" % (path, os.path.getsize(path)))


if __name__ == "__main__":
    main()
