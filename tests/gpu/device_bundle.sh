#!/usr/bin/env bash
# Packs what a lent GPU machine needs to run beast's GPU checks into
# build/device/ (ignored by git; pass it as the device tool's `carry`): the
# beast binary and the GPU test binary without debug info, and the shared
# libraries they link that a bare CUDA image lacks (XGBoost, SQLite,
# yaml-cpp, CLBlast, the OpenCL loader, Open MPI...). glibc, libstdc++ and
# NVRTC stay behind: the machine has newer ones (NVRTC from its CUDA
# toolkit or PyTorch's nvidia packages, found by tests/gpu/device_run.sh).
# The GPU machine reaches no package registry, so nothing can be installed
# there; this keeps the check to one prepared command (issue: the CUDA half
# has never run on a GPU). Usage: tests/gpu/device_bundle.sh (after ./run
# build); prints the bundle's size, which must stay under the tool's 64 MiB
# together with the working tree.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$ROOT/build
OUT=$BUILD/device
rm -rf "$OUT"
mkdir -p "$OUT/lib" "$OUT/bin"
for binary in "$BUILD/beast/beast" "$BUILD/tests/cuda_tune_test"; do
  [ -x "$binary" ] || { echo "device_bundle: $binary is not built (./run build)" >&2; exit 2; }
  objcopy --strip-debug "$binary" "$OUT/bin/$(basename "$binary")"
  # The libraries it links, less those every Linux and CUDA image has.
  ldd "$binary" | awk '/=> \// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | libgcc_s.so* | \
        libstdc++.so* | ld-linux* | libnvrtc* | libcuda.so*) ;;
      *) cp -Ln "$lib" "$OUT/lib/" ;;
    esac
  done
done
# The source folder the binaries were built in: the tests hold its path.
echo "$ROOT" > "$OUT/source_dir"
du -sh "$OUT" | sed 's/^/device_bundle: /'
