// beast export: the tuned library as a CMake project (exporter.hpp). The
// static parts come from the skeleton folder, stamped on their way out; the
// kernel table is generated; the whole folder is staged and renamed in.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "beast/core/config.hpp"
#include "beast/core/error.hpp"
#include "beast/core/paths.hpp"
#include "beast/export/export_folder.hpp"
#include "beast/export/export_plan.hpp"
#include "beast/export/export_table.hpp"
#include "beast/export/exporter.hpp"
#include "beast/problem/problem.hpp"
#include "harness/cuda/nvrtc_compiler.hpp"

namespace beast {
namespace fs = std::filesystem;
namespace {

enum class CommentStyle { kC, kHash, kMarkdown };

// text as a comment of style; the text cannot end the comment early.
std::string Comment(CommentStyle style, std::string text) {
  auto defuse = [&text](const std::string& end, const std::string& with) {
    for (size_t at = text.find(end); at != std::string::npos; at = text.find(end, at)) {
      text.replace(at, end.size(), with);
    }
  };
  switch (style) {
    case CommentStyle::kC:
      defuse("*/", "* /");
      return "/* " + text + " */\n";
    case CommentStyle::kHash:
      defuse("\n", " ");
      return "# " + text + "\n";
    case CommentStyle::kMarkdown:
      defuse("--", "- -");
      return "<!-- " + text + " -->\n";
  }
  return "";
}

struct SkeletonFile {
  const char* from;  // under the skeleton folder
  const char* to;    // in the export
  CommentStyle style;
  bool substitute;  // replace @NAME@ placeholders
};

constexpr SkeletonFile kSkeleton[] = {
    {"CMakeLists.txt.in", "CMakeLists.txt", CommentStyle::kHash, true},
    {"cmake/BeastTunedConfig.cmake.in", "cmake/BeastTunedConfig.cmake.in", CommentStyle::kHash,
     false},
    {"README.md.in", "README.md", CommentStyle::kMarkdown, true},
    {"beast_tuned.pc.in", "beast_tuned.pc.in", CommentStyle::kHash, false},
    {"include/beast_tuned.h", "include/beast_tuned.h", CommentStyle::kC, false},
    {"src/beast_table.h", "src/beast_table.h", CommentStyle::kC, false},
    {"src/beast_runtime.h", "src/beast_runtime.h", CommentStyle::kC, false},
    {"src/beast_errors.c", "src/beast_errors.c", CommentStyle::kC, false},
    {"src/beast_context.c", "src/beast_context.c", CommentStyle::kC, false},
    {"src/beast_cuda.h", "src/beast_cuda.h", CommentStyle::kC, false},
    {"src/beast_cuda_driver.h", "src/beast_cuda_driver.h", CommentStyle::kC, false},
    {"src/beast_cuda_context.c", "src/beast_cuda_context.c", CommentStyle::kC, false},
    {"src/beast_cuda_launch.c", "src/beast_cuda_launch.c", CommentStyle::kC, false},
    {"src/beast_dispatch.c", "src/beast_dispatch.c", CommentStyle::kC, false},
    {"src/beast_entry_failures.c", "src/beast_entry_failures.c", CommentStyle::kC, false},
    {"src/beast_launch.c", "src/beast_launch.c", CommentStyle::kC, false},
    {"src/beast_prepared.c", "src/beast_prepared.c", CommentStyle::kC, false},
    {"src/beast_host.c", "src/beast_host.c", CommentStyle::kC, false},
    {"src/beast_program_cache.c", "src/beast_program_cache.c", CommentStyle::kC, false},
    {"src/beast_workspace_cache.c", "src/beast_workspace_cache.c", CommentStyle::kC, false},
    {"src/beast_generic.c", "src/beast_generic.c", CommentStyle::kC, false},
    {"example/example.c", "example/example.c", CommentStyle::kC, false},
};

// --pytorch: the operators' own project, which adds the folder above (the C
// library) as its subproject, and the example that measures them.
constexpr SkeletonFile kPytorchSkeleton[] = {
    {"pytorch/CMakeLists.txt", "pytorch/CMakeLists.txt", CommentStyle::kHash, false},
    {"pytorch/README.md", "pytorch/README.md", CommentStyle::kMarkdown, false},
    {"pytorch/src/contexts.h", "pytorch/src/contexts.h", CommentStyle::kC, false},
    {"pytorch/src/contexts.cpp", "pytorch/src/contexts.cpp", CommentStyle::kC, false},
    {"pytorch/src/conv2d_op.h", "pytorch/src/conv2d_op.h", CommentStyle::kC, false},
    {"pytorch/src/conv2d_op.cpp", "pytorch/src/conv2d_op.cpp", CommentStyle::kC, false},
    {"pytorch/src/gemm_op.h", "pytorch/src/gemm_op.h", CommentStyle::kC, false},
    {"pytorch/src/gemm_op.cpp", "pytorch/src/gemm_op.cpp", CommentStyle::kC, false},
    {"pytorch/src/host_buffers.h", "pytorch/src/host_buffers.h", CommentStyle::kC, false},
    {"pytorch/src/host_buffers.cpp", "pytorch/src/host_buffers.cpp", CommentStyle::kC, false},
    {"pytorch/src/prepared_conv2d.h", "pytorch/src/prepared_conv2d.h", CommentStyle::kC, false},
    {"pytorch/src/prepared_conv2d.cpp", "pytorch/src/prepared_conv2d.cpp", CommentStyle::kC, false},
    {"pytorch/src/register_ops.cpp", "pytorch/src/register_ops.cpp", CommentStyle::kC, false},
    {"pytorch/beast_torch/__init__.py", "pytorch/beast_torch/__init__.py", CommentStyle::kHash,
     false},
    {"pytorch/beast_torch/modules.py", "pytorch/beast_torch/modules.py", CommentStyle::kHash,
     false},
    {"examples/pytorch/README.md", "examples/pytorch/README.md", CommentStyle::kMarkdown, false},
    {"examples/pytorch/compare.py", "examples/pytorch/compare.py", CommentStyle::kHash, false},
};

std::string ReadSkeleton(const fs::path& path);

// The generic fallback kernels of the skeleton, compiled to PTX for the
// oldest architecture this NVRTC knows, so the library runs untuned shapes
// on any CUDA GPU since then (none without NVRTC: CUDA contexts then have
// only the tuned entries).
GenericKernels GenericKernelsFrom(const std::string& skeleton_dir) {
  GenericKernels generic;
  generic.source = ReadSkeleton(fs::path(skeleton_dir) / "src/beast_generic.cl");
  if (!harness::NvrtcAvailable()) return generic;
  const std::string arch = harness::OldestNvrtcComputeArch();
  harness::CudaCompileResult ptx = harness::CompileCudaPtx(generic.source, arch);
  if (!ptx.ok) {
    throw Error(ErrorCode::kEnvironment,
                "NVRTC cannot compile the generic kernels for " + arch + ": " + ptx.log);
  }
  generic.ptx = std::move(ptx.ptx);
  generic.ptx_cc = std::atoi(arch.c_str() + arch.find('_') + 1);
  return generic;
}

std::string ReadSkeleton(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw Error(ErrorCode::kNotFound, "export skeleton file " + path.string() + " is missing");
  }
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string Substitute(std::string text,
                       const std::vector<std::pair<std::string, std::string>>& values) {
  for (const auto& [name, value] : values) {
    const std::string key = "@" + name + "@";
    for (size_t at = text.find(key); at != std::string::npos;
         at = text.find(key, at + value.size())) {
      text.replace(at, key.size(), value);
    }
  }
  return text;
}

// Markdown table rows of the entries ('|' in a value would split a cell).
std::string EntryRows(const std::vector<PlannedKernel>& kernels) {
  auto cell = [](std::string s) {
    for (size_t at = s.find('|'); at != std::string::npos; at = s.find('|', at + 2))
      s.replace(at, 1, "\\|");
    return "`" + s + "`";
  };
  std::string rows;
  for (const auto& k : kernels) {
    const ExportEntry& e = k.entry;
    std::ostringstream median;
    median << e.median_ms;
    std::ostringstream distance;
    distance.precision(3);
    distance << std::fixed << e.distance;
    std::string tier =
        e.nearest ? "nearest: " + cell(e.source_problem) + " (distance " + distance.str() + ")"
                  : "exact";
    if (e.calls == EntryCalls::kPrepared) tier += ", calls with prepared weights";
    if (e.calls == EntryCalls::kPlain) tier += ", plain calls";
    if (e.prepare_ms) {
      std::ostringstream prepare;
      prepare << *e.prepare_ms;
      median << " (+ " << prepare.str() << " prepare, once per weight buffer)";
    }
    rows += "| " + cell(e.problem_key) + " | " + tier + " | " + e.template_name + " | " +
            cell(e.config_key) + " | " + e.device_name + " (" + e.device_driver + ") | " +
            median.str() + " |\n";
  }
  return rows;
}

// The stamp file: what was exported, from where, so that `beast export
// --check` can tell later whether the database or the templates moved on.
// The requested problems are kept so that --check can redo the nearest choices.
std::string ExportStamp(const std::string& db, const ExportPlan& plan,
                        const ExportOptions& options) {
  const std::vector<PlannedKernel>& kernels = plan.kernels;
  std::string text = "beast export\nbeast_version " BEAST_VERSION "\ndatabase " + db +
                     "\ntoolchain " + plan.toolchain + "\nentries " +
                     std::to_string(kernels.size()) + "\n";
  for (const auto& key : options.requested)
    text += "requested\t" + Problem::Parse(key).Key() + "\n";
  for (const auto& name : options.devices) text += "device\t" + name + "\n";
  for (const auto& k : kernels) {
    const ExportEntry& e = k.entry;
    text += FormatStampEntry(e) + "\n";
  }
  return text;
}

}  // namespace

ExportOptions ExportOptions::Defaults() {
  Paths paths = Paths::Default();
  ExportOptions o;
  o.templates_dir = paths.templates_dir;
  o.python = paths.python;
  o.render_script = paths.render_script;
  o.skeleton_dir = paths.root + "/beast/export_skeleton";
  return o;
}

ExportSummary ExportLibrary(const ExportOptions& options) {
  if (options.db_path.empty()) throw Error(ErrorCode::kBadArgument, "no database to export (--db)");
  if (options.out_dir.empty())
    throw Error(ErrorCode::kBadArgument, "no folder to export to (--out)");
  CheckExportTarget(options.out_dir);  // before the slow part
  CheckOutsideExport(options.out_dir, options.db_path, "the database");
  CheckOutsideExport(options.out_dir, options.templates_dir, "the templates folder");
  ExportPlan plan = PlanExport(options);

  const std::string db = fs::absolute(options.db_path).lexically_normal().string();
  const std::string generator = "Generated by beast " BEAST_VERSION " (beast export)";
  StagingFolder staging(options.out_dir);
  const std::vector<std::pair<std::string, std::string>> values = {
      {"BEAST_VERSION", BEAST_VERSION}, {"DATABASE", db}, {"ENTRIES", EntryRows(plan.kernels)}};
  auto copy = [&](const SkeletonFile& f) {
    std::string text = ReadSkeleton(fs::path(options.skeleton_dir) / f.from);
    std::string stamp = generator + " from skeleton " + f.from + " (hash " + HashText(text) +
                        "). Do not edit: export again.";
    staging.Write(f.to, Comment(f.style, stamp) + (f.substitute ? Substitute(text, values) : text));
  };
  for (const SkeletonFile& f : kSkeleton) copy(f);
  if (options.pytorch) {
    for (const SkeletonFile& f : kPytorchSkeleton) copy(f);
  }
  const std::string stamp = ExportStamp(db, plan, options);
  staging.Write("src/beast_kernels.c",
                KernelTableSource(
                    plan.kernels, GenericKernelsFrom(options.skeleton_dir), stamp,
                    Comment(CommentStyle::kC, generator + " from database " + db +
                                                  "; each program names its template and hash. Do "
                                                  "not edit: export again.")));
  staging.Write(kExportStampFile, stamp);

  ExportSummary summary;
  fs::path out = fs::absolute(options.out_dir).lexically_normal();
  summary.out_dir = (out.filename().empty() ? out.parent_path() : out).string();
  for (auto& k : plan.kernels) summary.entries.push_back(k.entry);
  summary.files = staging.Files();
  summary.skipped = plan.skipped;
  summary.generic = plan.generic;
  staging.Commit();
  return summary;
}

}  // namespace beast
