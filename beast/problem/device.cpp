// Device identity, expression variables and --device selectors (device.hpp).
#include "beast/problem/device.hpp"

#include <algorithm>
#include <cstdlib>

#include "beast/core/error.hpp"

namespace beast {

std::string DeviceInfo::Id() const {
  return std::string(BackendName(backend)) + ":" + (index >= 0 ? std::to_string(index) : arch);
}

std::map<std::string, int64_t> DeviceInfo::Variables() const {
  return {{"device_max_work_group_size", limits.max_work_group_size},
          {"device_max_work_item_size_0", limits.max_work_item_sizes[0]},
          {"device_max_work_item_size_1", limits.max_work_item_sizes[1]},
          {"device_max_work_item_size_2", limits.max_work_item_sizes[2]},
          {"device_local_mem_bytes", limits.local_mem_bytes},
          {"device_static_local_mem_bytes", StaticLocalMemBytes()},
          {"device_compute_units", limits.compute_units},
          {"device_warp_size", limits.warp_size},
          {"device_max_registers_per_thread", limits.max_registers_per_thread},
          {"device_is_cuda", backend == Backend::kCuda ? 1 : 0},
          {"device_cuda_cc", CudaComputeCapability()},
          {"device_max_groups_1", MaxGroupsBeyondFirstDimension()},
          {"device_max_groups_2", MaxGroupsBeyondFirstDimension()}};
}

int64_t DeviceInfo::MaxGroupsBeyondFirstDimension() const {
  // CUDA's gridDim.y and gridDim.z; OpenCL has no such limit.
  return backend == Backend::kCuda ? 65535 : 2147483647;
}

int64_t DeviceInfo::CudaComputeCapability() const {
  if (backend != Backend::kCuda || arch.rfind("sm_", 0) != 0) return 0;
  int64_t cc = 0;
  for (size_t i = 3; i < arch.size() && arch[i] >= '0' && arch[i] <= '9'; ++i)
    cc = cc * 10 + (arch[i] - '0');
  return cc;
}

int64_t DeviceInfo::StaticLocalMemBytes() const {
  // CUDA caps statically declared __shared__ arrays at 48 KiB per block;
  // only dynamic shared memory may opt in to more.
  constexpr int64_t kCudaStaticShared = 48 * 1024;
  return backend == Backend::kCuda ? std::min(limits.local_mem_bytes, kCudaStaticShared)
                                   : limits.local_mem_bytes;
}

DeviceSelector DeviceSelector::Parse(const std::string& text) {
  auto fail = [&](const std::string& why) -> DeviceSelector {
    throw Error(ErrorCode::kBadArgument,
                "device \"" + text + "\": " + why +
                    " (expected opencl:N, cuda:N, cuda:sm_XX or, under mpirun, cuda:local)");
  };
  auto colon = text.find(':');
  if (colon == std::string::npos) return fail("no backend");
  DeviceSelector sel;
  std::string backend = text.substr(0, colon), rest = text.substr(colon + 1);
  std::optional<Backend> parsed = ParseBackend(backend);
  if (!parsed) return fail("unknown backend \"" + backend + "\"");
  sel.backend = *parsed;
  if (sel.backend == Backend::kCuda && rest.rfind("sm_", 0) == 0) {
    if (rest.size() < 5 || rest.find_first_not_of("0123456789", 3) != std::string::npos) {
      return fail("architecture must look like sm_90");
    }
    sel.arch = rest;
    sel.index = -1;
    return sel;
  }
  if (rest == "local") {
    sel.local = true;
    sel.index = -1;
    return sel;
  }
  if (rest.empty() || rest.find_first_not_of("0123456789") != std::string::npos ||
      rest.size() > 6) {
    return fail("device index must be a number");
  }
  sel.index = std::atoi(rest.c_str());
  return sel;
}

}  // namespace beast
