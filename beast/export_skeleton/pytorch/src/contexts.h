// The beast contexts of a process, one per device a tensor lives on, made on
// first use and kept until the process ends (a context compiles each kernel
// once), plus the checks every operator shares.
#pragma once

#include <ATen/ATen.h>

#include <string>

#include "beast_tuned.h"

namespace beast_torch {

// The context for tensors on `device`: for CPU tensors the OpenCL device
// BEAST_TORCH_OPENCL_DEVICE (default 0, numbered as `beast devices` lists
// them), for CUDA tensors that GPU. Throws a c10::Error (RuntimeError in
// Python) naming the device when it cannot be opened.
beast_context* ContextFor(const c10::Device& device);

// The stream argument of the C API's device entry points for a CUDA tensor on
// `device`: PyTorch's current stream there.
void* CurrentStream(const c10::Device& device);

// The library's dtype for a tensor's, or a RuntimeError naming the dtype.
// `op` is the operator's name in messages ("conv2d": beast::conv2d).
beast_dtype DTypeOf(const at::Tensor& t, const char* op);

// A RuntimeError when any input would need a gradient: the operators have
// no backward of their own (beast_torch's functions and modules add one,
// named in the message when `python_backward`).
void RefuseAutograd(const char* op, std::initializer_list<const at::Tensor*> inputs,
                    bool python_backward = true);

// A size or parameter as the C API's int, or a RuntimeError naming it.
int Narrow(int64_t value, const char* op, const char* what);

// Turns a failed call into a RuntimeError with the library's one line.
void Check(beast_status status, const char* op);

}  // namespace beast_torch
