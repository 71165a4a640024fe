// beast_kernels.c of an exported library (export_table.hpp).
#include "beast/export/export_table.hpp"

#include <cstdio>
#include <map>

namespace beast {
namespace {

// beast_tuned.h's beast_dtype of a dtype.
long long CDtype(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return 0;
    case DType::kF64:
      return 1;
    case DType::kF16:
      return 2;
    case DType::kBF16:
      return 3;
  }
  return 0;
}

// The shape fields in beast_table.h's order, the dtype last.
std::vector<long long> ShapeFields(const Problem& problem) {
  std::vector<long long> f(17, 0);
  if (problem.op() == OpKind::kGemm) {
    const GemmShape& g = problem.gemm();
    f[0] = g.m;
    f[1] = g.n;
    f[2] = g.k;
    f[3] = g.trans_a ? 1 : 0;
    f[4] = g.trans_b ? 1 : 0;
    f[5] = g.col_major ? 1 : 0;
  } else {
    const Conv2dShape& c = problem.conv();
    f = {c.n,
         c.c,
         c.h,
         c.w,
         c.k,
         c.r,
         c.s,
         c.stride_h,
         c.stride_w,
         c.pad_h,
         c.pad_w,
         c.dilation_h,
         c.dilation_w,
         c.groups,
         c.layout == Layout::kNCHW ? 0 : 1,
         c.bias ? 1 : 0,
         0};
  }
  f[16] = CDtype(problem.dtype());
  return f;
}

// Bytes as a C initializer list, sixteen per line.
std::string CBytes(const std::string& bytes) {
  std::string out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i % 16 == 0) out += "\n    ";
    out += std::to_string(static_cast<unsigned char>(bytes[i])) + ",";
  }
  return out.empty() ? "0" : out + "\n";
}

std::string Sizes(const size_t sizes[3]) {
  return "{" + std::to_string(sizes[0]) + ", " + std::to_string(sizes[1]) + ", " +
         std::to_string(sizes[2]) + "}";
}

}  // namespace

std::string CStringLiteral(const std::string& text, const std::string& indent) {
  if (text.empty()) return indent + "\"\"";
  std::string out;
  bool open = false;
  for (unsigned char ch : text) {
    if (!open) {
      out += (out.empty() ? "" : "\n") + indent + "\"";
      open = true;
    }
    switch (ch) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '?':
        out += "\\?";
        break;  // no trigraph can form
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\n':
        out += "\\n\"";
        open = false;
        break;
      default:
        if (ch < 0x20 || ch >= 0x7f) {
          char octal[8];
          std::snprintf(octal, sizeof octal, "\\%03o", ch);  // three digits: never absorbs the next
          out += octal;
        } else {
          out += static_cast<char>(ch);
        }
    }
  }
  if (open) out += "\"";
  return out;
}

std::string KernelTableSource(const std::vector<PlannedKernel>& kernels,
                              const GenericKernels& generic, const std::string& export_stamp,
                              const std::string& stamp) {
  std::string out = stamp +
                    "/* The tuned programs and the table beast_select() searches. */\n"
                    "#include <stddef.h>\n\n#include \"beast_table.h\"\n\n";
  // OpenCL programs by source, CUDA modules by source and architecture;
  // identical ones are shared.
  std::map<std::string, int> program_of, module_of;
  std::vector<int> program_index;
  std::string programs, modules;
  for (const auto& k : kernels) {
    const bool cuda = k.entry.backend == Backend::kCuda;
    std::map<std::string, int>& of = cuda ? module_of : program_of;
    auto [it, fresh] = of.emplace(cuda ? k.entry.device_arch + '\n' + k.source : k.source,
                                  static_cast<int>(of.size()));
    program_index.push_back(it->second);
    if (!fresh) continue;
    const std::string n = std::to_string(it->second);
    const std::string what = "/* " + k.entry.template_name + " (hash " + k.entry.template_hash +
                             "), " + k.entry.config_key + ", " + k.entry.problem_key + " */\n";
    if (!cuda) {
      programs += what + "static const char kProgram" + n + "[] =\n" +
                  CStringLiteral(k.source, "    ") + ";\n\n";
      continue;
    }
    modules += what + "static const unsigned char kCubin" + n + "[] = {" + CBytes(k.cubin) +
               "};\n" + "static const char kPtx" + n + "[] =\n" + CStringLiteral(k.ptx, "    ") +
               ";\n\n";
  }
  out += programs + "const char* const beast_program_sources[] = {";
  for (size_t i = 0; i < program_of.size(); ++i)
    out += std::string(i ? ", " : "") + "kProgram" + std::to_string(i);
  if (program_of.empty()) out += "NULL";  // C has no empty initializer
  out += "};\nconst int beast_program_count = " + std::to_string(program_of.size()) + ";\n\n";
  out += modules + "const beast_cuda_module beast_cuda_modules[] = {\n";
  for (size_t i = 0; i < kernels.size(); ++i) {
    const PlannedKernel& k = kernels[i];
    if (k.entry.backend != Backend::kCuda) continue;
    const std::string n = std::to_string(program_index[i]);
    const std::string line = "    {" + CStringLiteral(k.entry.device_arch, "") + ", kCubin" + n +
                             ", sizeof kCubin" + n + ", kPtx" + n + ", " +
                             std::to_string(k.ptx_cc) + "},\n";
    if (out.find(line) == std::string::npos) out += line;
  }
  if (module_of.empty()) out += "    {NULL, NULL, 0, NULL, 0},\n";
  out += "};\nconst int beast_cuda_module_count = " + std::to_string(module_of.size()) + ";\n\n";
  out += "const char beast_generic_source[] =\n" + CStringLiteral(generic.source, "    ") + ";\n";
  out += "const char beast_generic_ptx[] =\n" + CStringLiteral(generic.ptx, "    ") + ";\n";
  out += "const int beast_generic_ptx_cc = " + std::to_string(generic.ptx_cc) + ";\n\n";
  // The launches before an entry's kernel (multi-stage configs).
  for (size_t i = 0; i < kernels.size(); ++i) {
    const ExportEntry& e = kernels[i].entry;
    if (e.before.empty()) continue;
    out += "static const beast_stage kStages" + std::to_string(i) + "[] = {\n";
    for (const Instance::Stage& s : e.before)
      out += "    {" + CStringLiteral(s.kernel, "") + ", " + Sizes(s.global) + ", " +
             Sizes(s.local) + ", " + (s.prepare ? "1" : "0") + "},\n";
    out += "};\n";
  }
  out += "const beast_entry beast_entries[] = {\n";
  for (size_t i = 0; i < kernels.size(); ++i) {
    const ExportEntry& e = kernels[i].entry;
    std::string shape;
    for (long long v : ShapeFields(kernels[i].problem))
      shape += (shape.empty() ? "" : ", ") + std::to_string(v);
    char median[40];
    std::snprintf(median, sizeof median, "%.17g", e.median_ms);
    char distance[40];
    std::snprintf(distance, sizeof distance, "%.17g", e.distance);
    auto q = [](const std::string& s) { return CStringLiteral(s, ""); };
    out += "    {" +
           std::string(kernels[i].problem.op() == OpKind::kGemm ? "BEAST_OP_GEMM"
                                                                : "BEAST_OP_CONV2D") +
           ",\n     {" + shape + "},\n     " + q(e.problem_key) + ",\n     " + q(e.template_name) +
           ", " + q(e.template_hash) + ",\n     " + q(e.config_key) + ",\n     " +
           q(e.kernel_name) + ", " + std::to_string(program_index[i]) + ", " + Sizes(e.global) +
           ", " + Sizes(e.local) + ", " + std::to_string(e.dynamic_local_bytes) + "L, " +
           std::to_string(e.shared_carveout) + ",\n     " + q(e.device_name) + ", " +
           q(e.device_vendor) + ", " + q(e.device_driver) + ", " + q(e.device_arch) + ",\n     " +
           median + ", " + (e.nearest ? "1" : "0") + ", " + q(e.source_problem) + ", " + distance +
           ", " + (e.backend == Backend::kCuda ? "1" : "0") + ",\n     " +
           (e.before.empty() ? std::string("NULL") : "kStages" + std::to_string(i)) + ", " +
           std::to_string(e.before.size()) + ", " + std::to_string(e.workspace_bytes) + "LL, " +
           std::to_string(static_cast<int>(e.calls)) + "},\n";
  }
  out += "};\nconst int beast_entry_count = " + std::to_string(kernels.size()) + ";\n\n";
  out += "const char beast_export_stamp[] =\n" + CStringLiteral(export_stamp, "    ") + ";\n";
  return out;
}

}  // namespace beast
