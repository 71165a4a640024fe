// The generated half of an exported library: src/beast_kernels.c, holding
// every rendered program as a C string and the dispatch table the runtime
// (export_skeleton/src/beast_table.h) searches. Private to the exporter.
#pragma once

#include <string>
#include <vector>

#include "export_plan.hpp"

namespace beast {

// The text of beast_kernels.c for these kernels, starting with `stamp` (a
// C comment naming the generator). Identical sources share one program.
std::string KernelTableSource(const std::vector<PlannedKernel>& kernels, const std::string& stamp);

// text as a C string literal, one quoted piece per source line.
std::string CStringLiteral(const std::string& text, const std::string& indent);

}  // namespace beast
