// Parses the resource lines ptxas prints with -v (nvrtc_compiler.hpp):
//   ptxas info    : Compiling entry function 'k' for 'sm_90'
//   ptxas info    : Function properties for k
//   ptxas         .     8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
//   ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes smem
#include <regex>
#include <sstream>

#include "harness/cuda/nvrtc_compiler.hpp"

namespace beast::harness {

CudaResources ParsePtxasInfo(const std::string& log, const std::string& kernel_name) {
  CudaResources r;
  std::istringstream lines(log);
  std::string line;
  bool in_kernel = false;
  const std::regex entry(R"(Compiling entry function '([^']+)')");
  const std::regex properties(R"(Function properties for (\S+))");
  const std::regex frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  const std::regex used(R"(Used (\d+) registers)");
  const std::regex smem(R"((\d+) bytes smem)");
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_search(line, m, entry) || std::regex_search(line, m, properties)) {
      in_kernel = m[1] == kernel_name;
      continue;
    }
    if (!in_kernel) continue;
    if (std::regex_search(line, m, frame)) {
      r.stack_bytes = std::stoi(m[1]);
      r.spill_store_bytes = std::stoi(m[2]);
      r.spill_load_bytes = std::stoi(m[3]);
    }
    if (std::regex_search(line, m, used)) {
      r.registers = std::stoi(m[1]);
      if (std::regex_search(line, m, smem)) r.shared_bytes = std::stoi(m[1]);
    }
  }
  return r;
}

}  // namespace beast::harness
