// The generated half of an exported library: src/beast_kernels.c, holding
// every rendered program as a C string and the dispatch table the runtime
// (export_skeleton/src/beast_table.h) searches. Private to the exporter.
#pragma once

#include <string>
#include <vector>

#include "beast/export/export_plan.hpp"

namespace beast {

// The generic fallback kernels (export_skeleton/src/beast_generic.cl): their
// source, and their PTX for CUDA GPUs of compute capability ptx_cc or newer
// ("" and 0 when the exporter has no NVRTC).
struct GenericKernels {
  std::string source;
  std::string ptx;
  int ptx_cc = 0;
};

// The text of beast_kernels.c for these kernels and the generic ones,
// starting with `stamp` (a C comment naming the generator), and holding
// `export_stamp` (the .beast-export text) for beast_export_info(). Identical
// OpenCL sources share one program; identical CUDA sources for one
// architecture, one module (cubin and PTX).
std::string KernelTableSource(const std::vector<PlannedKernel>& kernels,
                              const GenericKernels& generic, const std::string& export_stamp,
                              const std::string& stamp);

// text as a C string literal, one quoted piece per source line.
std::string CStringLiteral(const std::string& text, const std::string& indent);

}  // namespace beast
