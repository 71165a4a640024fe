#!/usr/bin/env bash
# Runs on a lent GPU machine, from the repository root, with build/device
# carried (tests/gpu/device_bundle.sh made it here): the GPU tests
# (CudaGpu.*, what `ctest -L gpu` runs) and beast_torch's CUDA tests
# (tests/pytorch/test_beast_torch_cuda.py, with the machine's PyTorch: its
# fixture tunes on the GPU, exports with --pytorch and builds the extension
# there), then the tunings — ResNet-50's four 3x3 layers at N=32 (f32, NCHW,
# every conv2d template that computes them) beside cuDNN, a 4096^3 SGEMM
# (gemm/tiled) beside cuBLAS, and the 64-channel layer and a 1024^3 GEMM in
# f64, f16 and bf16 on every template — each summary written to $OUT (what
# the device tool brings back), then the tensor-core bench
# (tests/bench/tensor_core_gpu.sh).
# It stops within seconds when a library, Jinja2 or the GPU is missing.
# Each step is bounded (at most 120 s of GPU tests and 150 s of beast_torch's,
# then four tunings of STEP_SECONDS of measuring plus 45 s of guard each),
# and a tuning that would end past TOTAL_SECONDS (default 560: the device
# tool's command limit is 600) is shortened to fit or skipped; it writes
# eight files to $OUT (the tool brings back eight).
# Environment: OUT (default /tmp/beast_gpu_out), BEAST_MAX_CONFIGS (per
# template and problem, default 12), STEP_SECONDS (each tuning's limit,
# default 75), RESNET_SECONDS (the ResNet tuning's, default STEP_SECONDS),
# RESNET_TEMPLATES (space-separated conv2d templates; default: all that
# compute the layers). A build/device/gpu.db carried along is resumed: the
# configs an earlier lease measured are kept and not measured again.
# TOTAL_SECONDS: the whole script's limit (default 560). GPU_STEPS: which
# steps run, of "tests torch resnet sgemm dtypes tensor" (the default, all)
# and "tensor_nchw" (the tensor step's convs in NCHW, only when named), so
# that a short lease can be split into calls that each fit.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-/tmp/beast_gpu_out}
MAX_CONFIGS=${BEAST_MAX_CONFIGS:-12}
STEP=${STEP_SECONDS:-75}
RESNET_STEP=${RESNET_SECONDS:-$STEP}
TOTAL=${TOTAL_SECONDS:-560}
STEPS=" ${GPU_STEPS:-tests torch resnet sgemm dtypes tensor} "
want() { [[ $STEPS == *" $1 "* ]]; }
# The measuring seconds a tuning may have so that it ends, with its 45 s of
# guard, by TOTAL: the wanted $1, or what is left (0: skip it).
fit() {
  local left=$((TOTAL - SECONDS - 45))
  if [ "$left" -lt 20 ]; then echo 0; elif [ "$left" -lt "$1" ]; then echo "$left"; else echo "$1"; fi
}
RESNET_CHOICE=(--baselines nvidia)  # never empty: "${a[@]}" of an empty array fails set -u before bash 4.4
for t in ${RESNET_TEMPLATES:-}; do RESNET_CHOICE+=(--template "$t"); done
mkdir -p "$OUT"
BUNDLE=$ROOT/build/device
[ -f "$BUNDLE/gpu.db" ] && cp "$BUNDLE/gpu.db" "$OUT/gpu.db"
[ -x "$BUNDLE/bin/beast" ] || { echo "device_run: no $BUNDLE (run tests/gpu/device_bundle.sh here and carry build/device)" >&2; exit 2; }
# NVRTC, cuBLAS and cuDNN: the toolkit's, else PyTorch's nvidia packages.
nvidia_libs=$(python3 - <<'PY' 2>/dev/null
import glob, os
try:
    import nvidia
    roots = list(nvidia.__path__)
except Exception:
    roots = []
print(":".join(sorted({os.path.dirname(p) for r in roots for p in glob.glob(r + "/*/lib/lib*.so*")})))
PY
)
export LD_LIBRARY_PATH=$BUNDLE/lib:/usr/local/cuda/lib64:${nvidia_libs}:${LD_LIBRARY_PATH:-}
export BEAST_HOME=$ROOT
# The templates render through Python with Jinja2 (PyTorch brings it): the
# build's own virtual environment does not travel.
export BEAST_PYTHON=${BEAST_PYTHON:-$(command -v python3)}
# The test binary holds the source path it was built in (templates, data).
built_in=$(cat "$BUNDLE/source_dir")
if [ -n "$built_in" ] && [ ! -e "$built_in" ]; then
  mkdir -p "$(dirname "$built_in")" && ln -s "$ROOT" "$built_in"
fi
BEAST=$BUNDLE/bin/beast
# The tests run build/beast/beast of the build folder they were built in.
if [ ! -e "$ROOT/build/beast/beast" ]; then
  mkdir -p "$ROOT/build/beast" && ln -s "$BUNDLE/bin/beast" "$ROOT/build/beast/beast"
fi
# What would make every step fail, found in seconds rather than minutes.
{
  echo "library path: $LD_LIBRARY_PATH"
  missing=$(ldd "$BEAST" "$BUNDLE/bin/cuda_tune_test" | grep 'not found')
  [ -z "$missing" ] || { echo "device_run: unresolved libraries:"; echo "$missing"; }
  "$BEAST_PYTHON" -c 'import jinja2' || echo "device_run: $BEAST_PYTHON has no jinja2"
  python3 -c 'import pytest' || echo "note: python3 has no pytest (beast_torch's step will fail; the others run)"
  timeout 30 nvidia-smi -L
  timeout 30 "$BEAST" devices
} 2>&1 | tee "$OUT/devices.txt"
if grep -q '^device_run:' "$OUT/devices.txt"; then exit 3; fi
want tests && timeout 120 "$BUNDLE/bin/cuda_tune_test" 2>&1 | tee "$OUT/gpu_tests.txt" | tail -n 60
want torch && BEAST_BINARY=$BEAST timeout 150 python3 -m pytest -q -p no:cacheprovider \
  "$ROOT/tests/pytorch/test_beast_torch_cuda.py" 2>&1 | tee "$OUT/pytorch_cuda.txt" | tail -n 30
CONV="N=32,R=3,S=3,stride=1,pad=1,layout=NCHW,dtype=f32"
# --time-budget ends the measuring in time for the summary; timeout guards
# against a hang beyond it.
step=$(fit "$RESNET_STEP")
want resnet && [ "$step" -gt 0 ] && timeout $((step + 45)) "$BEAST" tune --device cuda:0 --db "$OUT/gpu.db" \
  --max-configs "$MAX_CONFIGS" --time-budget "${step}s" "${RESNET_CHOICE[@]}" \
  --problem "conv2d:C=64,H=56,W=56,K=64,$CONV" \
  --problem "conv2d:C=128,H=28,W=28,K=128,$CONV" --problem "conv2d:C=256,H=14,W=14,K=256,$CONV" \
  --problem "conv2d:C=512,H=7,W=7,K=512,$CONV" 2>&1 | tee "$OUT/resnet50_f32.txt" | tail -n 40
step=$(fit "$STEP")
want sgemm && [ "$step" -gt 0 ] && timeout $((step + 45)) "$BEAST" tune --device cuda:0 --db "$OUT/gpu.db" \
  --max-configs "$MAX_CONFIGS" --time-budget "${step}s" --baselines nvidia --template gemm/tiled \
  --problem "gemm:M=4096,N=4096,K=4096,transA=0,transB=0,dtype=f32" 2>&1 |
  tee "$OUT/sgemm_4096.txt" | tail -n 20
# Every template in the other dtypes (f64, and f16/bf16 storage; 8 configs
# a pair, not BEAST_MAX_CONFIGS), each config validated against the CPU
# reference: the portable templates' f64/f16/bf16 kernels are what the
# other steps leave unchecked on a GPU.
step=$(fit "$STEP")
DT_CONV="N=32,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,layout=NCHW"
DT_GEMM="M=1024,N=1024,K=1024,transA=0,transB=0"
want dtypes && [ "$step" -gt 0 ] && timeout $((step + 45)) "$BEAST" tune --device cuda:0 \
  --db "$OUT/gpu.db" --max-configs 8 --time-budget "${step}s" --baselines nvidia \
  --problem "gemm:$DT_GEMM,dtype=f64" --problem "gemm:$DT_GEMM,dtype=f16" \
  --problem "gemm:$DT_GEMM,dtype=bf16" --problem "conv2d:$DT_CONV,dtype=f64" \
  --problem "conv2d:$DT_CONV,dtype=f16" --problem "conv2d:$DT_CONV,dtype=bf16" 2>&1 |
  tee "$OUT/dtypes.txt" | tail -n 60
step=$(fit "$STEP")
want tensor && [ "$step" -gt 0 ] && BEAST=$BEAST BEAST_MAX_CONFIGS=$MAX_CONFIGS BEAST_TIME_BUDGET="$((step / 2))s" \
  timeout $((step + 45)) "$ROOT/tests/bench/tensor_core_gpu.sh" "$OUT/gpu.db" 2>&1 |
  tee "$OUT/tensor_cores.txt" | tail -n 20
# The same in NCHW (PyTorch's default layout), only when named.
step=$(fit "$STEP")
want tensor_nchw && [ "$step" -gt 0 ] && BEAST=$BEAST BEAST_MAX_CONFIGS=$MAX_CONFIGS \
  BEAST_TIME_BUDGET="$((step / 2))s" BEAST_LAYOUT=NCHW \
  timeout $((step + 45)) "$ROOT/tests/bench/tensor_core_gpu.sh" "$OUT/gpu.db" 2>&1 |
  tee "$OUT/tensor_cores_nchw.txt" | tail -n 20
# A tuning cut by its timeout leaves gpu.db's write-ahead log beside it (two
# more files than the tool brings back); opening the database folds it in.
[ -f "$OUT/gpu.db" ] && timeout 30 "$BEAST" query --db "$OUT/gpu.db" --best > /dev/null 2>&1
true
