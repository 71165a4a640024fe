#!/usr/bin/env bash
# beast_torch.Conv2d with weights prepared once (the default in inference)
# against the same layer preparing in every call (prepare_weights = False),
# and against PyTorch's own F.conv2d (oneDNN), on ResNet-50's 3x3 layers
# where Winograd's filter transform costs most (128->128 @28, 256->256 @14;
# N=1, NCHW, f32). Tunes conv2d/implicit_gemm and conv2d/winograd_split
# (the same budget each) on the OpenCL device, exports with --pytorch, builds
# the extension, then times each layer's forward pass three ways in one
# process under torch.inference_mode() and prints the medians and ratios.
# Not a CTest test: several minutes.
# Usage: tests/bench/torch_prepared.sh [DB]   (default: a new file in /tmp;
#        an existing one resumes)
# Environment: BEAST_MAX_CONFIGS (per template and layer, default 20),
# BEAST (the beast binary), REPS (timed calls per way, default 30).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BEAST=${BEAST:-$ROOT/build/beast/beast}
MAX_CONFIGS=${BEAST_MAX_CONFIGS:-20}
REPS=${REPS:-30}
DB=${1:-$(mktemp -u /tmp/beast_torch_prepared_XXXXXX.db)}
WORK=$(mktemp -d /tmp/beast_torch_prepared_XXXXXX)
trap 'rm -rf "$WORK"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); database $DB" >&2
args=()
for shape in "128 28" "256 14"; do
  set -- $shape
  args+=(--problem "conv2d:N=1,C=$1,H=$2,W=$2,K=$1,R=3,S=3,stride_h=1,stride_w=1,pad_h=1,pad_w=1,dilation_h=1,dilation_w=1,groups=1,bias=1,layout=NCHW,dtype=f32")
done
for template in conv2d/implicit_gemm conv2d/winograd_split; do
  "$BEAST" tune "${args[@]}" --template "$template" --db "$DB" --max-configs "$MAX_CONFIGS" \
    --baselines none --quiet > /dev/null
done
"$BEAST" export --db "$DB" --out "$WORK/tuned" --pytorch > /dev/null
cmake -S "$WORK/tuned/pytorch" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$WORK/build" -j "$(nproc)" > /dev/null
PYTHONPATH="$WORK/build:$ROOT/tests/bench" /usr/bin/python3 - "$REPS" <<'PY'
import sys
import torch
import torch.nn.functional as F
import beast_torch
from onednn_job_estimate import median_ms  # a warm-up call, then the median of reps

reps = int(sys.argv[1])
threads = torch.get_num_threads()


torch.manual_seed(0)
print(f"{'layer':<14}{'F.conv2d':>10}{'plain':>10}{'prepared':>10}"
      f"{'plain/prep':>12}{'prep/F.conv2d':>15}  kernels")
for c, hw in ((128, 28), (256, 14)):
    x = torch.randn(1, c, hw, hw)
    conv = beast_torch.Conv2d(c, c, 3, padding=1).eval()
    with torch.inference_mode():
        ms_torch = median_ms(lambda: F.conv2d(x, conv.weight, conv.bias, padding=1), reps)
        torch.set_num_threads(1)  # PoCL's threads take the cores (examples/pytorch)
        conv.prepare_weights = False
        ms_plain = median_ms(lambda: conv(x), reps)
        conv.prepare_weights = True
        ms_prepared = median_ms(lambda: conv(x), reps)
        torch.set_num_threads(threads)
        expected = F.conv2d(x, conv.weight, conv.bias, padding=1)
        assert torch.allclose(conv(x), expected, rtol=1e-3, atol=1e-3)
    explained = conv.explain(x).splitlines()[0]
    plain = explained.split("tuned: ")[1].split(" ")[0]
    marker = "with prepared weights (beast_conv2d_prepare): "
    prepared = explained.split(marker)[1].split(" ")[0] if marker in explained else plain
    runs = f"plain {plain}, prepared {prepared}"
    print(f"{f'{c}->{c} @{hw}':<14}{ms_torch:>10.3f}{ms_plain:>10.3f}{ms_prepared:>10.3f}"
          f"{ms_plain / ms_prepared:>11.2f}x{ms_prepared / ms_torch:>14.2f}x  {runs}")
PY
