// Device: what beast knows of a compute device — backend, name, architecture
// and the limits that hard constraints read. Filled from a live query
// (harness) or from a spec table for a device that is not present.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "beast/core/backend.hpp"

namespace beast {

struct DeviceLimits {
  int64_t max_work_group_size = 0;  // threads per work-group / block
  int64_t max_work_item_sizes[3] = {0, 0, 0};
  int64_t local_mem_bytes = 0;  // shared / local memory per group
  int64_t global_mem_bytes = 0;
  int64_t max_alloc_bytes = 0;  // the largest single buffer; 0 when unknown
  bool fp64 = false;            // double precision arithmetic (OpenCL: cl_khr_fp64)
  int64_t compute_units = 0;
  int64_t clock_mhz = 0;
  int64_t warp_size = 1;                 // warp / wavefront / preferred multiple
  int64_t max_registers_per_thread = 0;  // 0 when unknown (OpenCL)
  double peak_gflops = 0;                // 0 when unknown
  double bandwidth_gbs = 0;              // 0 when unknown
};

struct DeviceInfo {
  Backend backend = Backend::kOpenCL;
  int index = 0;  // position in `beast devices` for its backend
  std::string name;
  std::string vendor;
  std::string driver_version;
  std::string arch;  // "sm_90", or the OpenCL device version string
  DeviceLimits limits;
  // What builds kernels for it, recorded with each measurement: "opencl" (the
  // platform's own compiler; version: the platform name and version string,
  // e.g. PoCL's) or "nvrtc" (version "12.4"). Empty when unknown.
  std::string compiler;
  std::string compiler_version;

  std::string Id() const;  // "opencl:0", "cuda:1"
  // Names a space expression may read, all prefixed "device_":
  // device_max_work_group_size, device_max_work_item_size_0..2,
  // device_local_mem_bytes (the most local / shared memory a group may have:
  // on CUDA with the opt-in, so for memory sized at launch),
  // device_static_local_mem_bytes (the most a kernel may declare in its
  // source: 48 KiB on CUDA), device_compute_units, device_warp_size,
  // device_max_registers_per_thread, device_is_cuda (1 for a CUDA
  // device or spec table, 0 for OpenCL) and device_cuda_cc (the compute
  // capability as a number, 90 for sm_90; 0 for OpenCL),
  // device_max_groups_1 and _2 (the most work-groups a launch may have along
  // its second and third dimension: 65535 blocks on CUDA; on OpenCL 2^31 - 1,
  // as far as the templates' int indices go).
  std::map<std::string, int64_t> Variables() const;
  int64_t MaxGroupsBeyondFirstDimension() const;
  int64_t StaticLocalMemBytes() const;
  int64_t CudaComputeCapability() const;  // of arch "sm_XY": XY; else 0
};

// A parsed --device argument: "opencl:N", "cuda:N", "cuda:sm_XX", or
// "cuda:local" / "opencl:local" (under mpirun: the device of the rank's
// place among the device ranks of its node; harness LocalDevice).
struct DeviceSelector {
  Backend backend = Backend::kOpenCL;
  int index = 0;
  std::string arch;  // set for compile-only "cuda:sm_XX"
  bool local = false;
  static DeviceSelector Parse(const std::string& text);  // throws kBadArgument
};

}  // namespace beast

namespace beast {
// The limits as a JSON object (stored with each device in the database) and
// back; keys are the DeviceLimits field names. Throws Error(kBadInput) for
// text that is not such an object.
std::string DeviceLimitsToJson(const DeviceLimits& limits);
DeviceLimits DeviceLimitsFromJson(const std::string& json);
}  // namespace beast
