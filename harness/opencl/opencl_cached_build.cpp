// OpenCL builds through the program cache (cached_build.hpp).
#include "harness/opencl/opencl_cached_build.hpp"

#include <chrono>
#include <memory>
#include <optional>

#include "harness/opencl/opencl_errors.hpp"
#include "harness/opencl/opencl_handles.hpp"

namespace beast::harness {
namespace {

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

ProgramKey OpenClKeyFor(const OpenClContext& context, const std::string& source,
                        const std::string& options) {
  const DeviceInfo& d = context.device();
  return ProgramKey{source, options, d.name + "\n" + d.driver_version + "\n" + d.compiler_version};
}

std::string ProgramBinary(const OpenClProgram& program) {
  if (!program) return "";
  size_t size = 0;
  if (clGetProgramInfo(program->program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) !=
          CL_SUCCESS ||
      size == 0) {
    return "";
  }
  std::string binary(size, '\0');
  unsigned char* data = reinterpret_cast<unsigned char*>(binary.data());
  if (clGetProgramInfo(program->program, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr) !=
      CL_SUCCESS) {
    return "";
  }
  return binary;
}

OpenClBuildResult BuildFromBinary(OpenClContext& context, const std::string& binary,
                                  const std::string& options) {
  OpenClBuildResult result;
  auto start = std::chrono::steady_clock::now();
  OpenClContext::Impl& impl = context.impl();
  const unsigned char* data = reinterpret_cast<const unsigned char*>(binary.data());
  size_t length = binary.size();
  cl_int binary_status = CL_SUCCESS;
  cl_int status = CL_SUCCESS;
  cl_program program = clCreateProgramWithBinary(impl.context, 1, &impl.device, &length, &data,
                                                 &binary_status, &status);
  if (status != CL_SUCCESS || binary_status != CL_SUCCESS) {
    if (status == CL_SUCCESS) clReleaseProgram(program);
    result.log = "clCreateProgramWithBinary failed: " +
                 OpenClErrorText(status != CL_SUCCESS ? status : binary_status);
    return result;
  }
  auto owner = std::make_shared<ProgramImpl>();
  owner->program = program;
  owner->context = impl.context;
  status = clBuildProgram(program, 1, &impl.device, options.c_str(), nullptr, nullptr);
  result.compile_ms = MsSince(start);
  if (status != CL_SUCCESS) {
    result.log = "clBuildProgram of a binary failed: " + OpenClErrorText(status);
    return result;
  }
  result.ok = true;
  result.program = std::move(owner);
  return result;
}

bool StoreBuild(const ProgramCache& cache, const ProgramKey& key, const OpenClBuildResult& build) {
  CachedProgram entry;
  entry.built = build.ok;
  entry.log = build.log;
  entry.compile_ms = build.compile_ms;
  if (build.ok) {
    entry.binary = ProgramBinary(build.program);
    if (entry.binary.empty()) return false;
  } else if (!build.rejected) {
    return false;
  }
  return cache.Store(key, entry);
}

OpenClBuildResult BuildOpenClThroughCache(OpenClContext& context, const ProgramCache& cache,
                                          const std::string& source, const std::string& options) {
  auto start = std::chrono::steady_clock::now();
  const ProgramKey key = OpenClKeyFor(context, source, options);
  if (std::optional<CachedProgram> entry = cache.Load(key)) {
    if (!entry->built) {
      OpenClBuildResult failed;
      failed.log = entry->log;
      failed.rejected = true;
      failed.compile_ms = entry->compile_ms;
      failed.from_cache = true;
      failed.load_ms = MsSince(start);
      return failed;
    }
    OpenClBuildResult loaded = BuildFromBinary(context, entry->binary, options);
    if (loaded.ok) {
      loaded.log = entry->log;
      loaded.compile_ms = entry->compile_ms;
      loaded.from_cache = true;
      loaded.load_ms = MsSince(start);
      return loaded;
    }
    // Falls through: built again from the source, and the entry replaced.
  }
  OpenClBuildResult built = context.BuildFromSource(source, options);
  StoreBuild(cache, key, built);
  return built;
}

}  // namespace beast::harness
