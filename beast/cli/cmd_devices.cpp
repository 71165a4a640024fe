// beast devices: every OpenCL device and CUDA GPU with its limits and the
// compiler that builds its kernels (whose version each measurement records).
// Without a CUDA driver it says so in one line and still lists the OpenCL devices.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "beast/cli/command_line.hpp"
#include "beast/cli/verbs.hpp"
#include "harness/cuda/cuda_driver.hpp"
#include "harness/opencl/opencl_devices.hpp"

namespace beast::cli {
namespace {

const char kDetails[] =
    "Lists every OpenCL device (opencl:N) and every CUDA GPU (cuda:N) with its limits and\n"
    "the compiler that builds its kernels: the OpenCL platform's (its name and version) or\n"
    "NVRTC (its version).\n"
    "The CUDA driver is opened at run time; without one, CUDA is reported absent.\n";

nlohmann::ordered_json DeviceJson(const DeviceInfo& d) {
  const DeviceLimits& l = d.limits;
  return {{"id", d.Id()},
          {"backend", BackendName(d.backend)},
          {"name", d.name},
          {"vendor", d.vendor},
          {"driver", d.driver_version},
          {"arch", d.arch},
          {"max_work_group_size", l.max_work_group_size},
          {"max_work_item_sizes",
           {l.max_work_item_sizes[0], l.max_work_item_sizes[1], l.max_work_item_sizes[2]}},
          {"local_mem_bytes", l.local_mem_bytes},
          {"global_mem_bytes", l.global_mem_bytes},
          {"max_alloc_bytes", l.max_alloc_bytes},
          {"fp64", l.fp64},
          {"compute_units", l.compute_units},
          {"clock_mhz", l.clock_mhz},
          {"warp_size", l.warp_size},
          {"max_registers_per_thread", l.max_registers_per_thread},
          {"compiler", d.compiler},
          {"compiler_version", d.compiler_version}};
}

// "opencl: Portable Computing Language OpenCL 3.0 PoCL ...", "nvrtc: 12.4".
std::string CompilerText(const DeviceInfo& d) {
  if (d.compiler.empty()) return "unknown";
  if (!d.compiler_version.empty()) return d.compiler + ": " + d.compiler_version;
  if (d.compiler == "nvrtc") return "nvrtc: none (this beast was built without NVRTC)";
  return d.compiler + ": version unknown";
}

void PrintDevice(const DeviceInfo& d) {
  const DeviceLimits& l = d.limits;
  std::printf("%-9s %s (%s; %s; driver %s)\n", d.Id().c_str(), d.name.c_str(), d.vendor.c_str(),
              d.arch.c_str(), d.driver_version.c_str());
  std::printf(
      "          work-group <= %lld (%lld x %lld x %lld), local memory %lld KiB, "
      "global memory %.1f GiB,\n          %lld compute units at %lld MHz, warp/multiple %lld\n",
      (long long)l.max_work_group_size, (long long)l.max_work_item_sizes[0],
      (long long)l.max_work_item_sizes[1], (long long)l.max_work_item_sizes[2],
      (long long)(l.local_mem_bytes / 1024), l.global_mem_bytes / 1073741824.0,
      (long long)l.compute_units, (long long)l.clock_mhz, (long long)l.warp_size);
  std::printf("          compiler %s\n", CompilerText(d).c_str());
}

}  // namespace

int Devices(const Argv& argv) {
  VerbApp app("devices", "List the OpenCL devices and CUDA GPUs present.", kDetails);
  bool json = false;
  app.add_flag("--json", json, "print JSON");
  if (!ParseCommandLine(app, argv)) return 0;
  std::vector<DeviceInfo> opencl = harness::ListOpenClDevices();
  harness::CudaProbe cuda = harness::ProbeCuda();
  if (json) {
    nlohmann::ordered_json out;
    out["opencl"] = nlohmann::ordered_json::array();
    for (const auto& d : opencl) out["opencl"].push_back(DeviceJson(d));
    out["cuda"] = {{"driver_loaded", cuda.driver_loaded},
                   {"message", cuda.message},
                   {"devices", nlohmann::ordered_json::array()}};
    for (const auto& d : cuda.devices) out["cuda"]["devices"].push_back(DeviceJson(d));
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  if (opencl.empty())
    std::printf("no OpenCL device found (is an OpenCL ICD such as PoCL installed?)\n");
  for (const auto& d : opencl) PrintDevice(d);
  if (!cuda.driver_loaded) {
    std::printf("%s\n", cuda.message.c_str());
  } else {
    if (cuda.devices.empty()) std::printf("CUDA driver loaded, no CUDA GPU present\n");
    for (const auto& d : cuda.devices) PrintDevice(d);
  }
  return 0;
}

}  // namespace beast::cli
