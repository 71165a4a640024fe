// beast devices: every OpenCL device and CUDA GPU with its limits and the
// compiler that builds its kernels (whose version each measurement records).
// Without a CUDA driver it says so in one line and still lists the OpenCL
// devices. Under mpirun, rank 0 lists every rank's devices with its host.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "beast/cli/command_line.hpp"
#include "beast/cli/json_text.hpp"
#include "beast/cli/verbs.hpp"
#include "beast/cluster/launcher.hpp"
#if BEAST_WITH_MPI
#include "beast/cluster/mpi/mpi_session.hpp"
#endif
#include "harness/cuda/cuda_driver.hpp"
#include "harness/opencl/opencl_devices.hpp"

namespace beast::cli {
namespace {

const char kDetails[] =
    "Lists every OpenCL device (opencl:N) and every CUDA GPU (cuda:N) with its limits and\n"
    "the compiler that builds its kernels: the OpenCL platform's (its name and version) or\n"
    "NVRTC (its version).\n"
    "The CUDA driver is opened at run time; without one, CUDA is reported absent.\n"
    "Under mpirun (a beast built with MPI), rank 0 lists every rank's devices with its host.\n";

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

// printf into a string.
template <typename... Args>
void Appendf(std::string* out, const char* format, Args... args) {
  char line[1024];
  std::snprintf(line, sizeof line, format, args...);
  *out += line;
}

void PrintDevice(std::string* out, const DeviceInfo& d) {
  const DeviceLimits& l = d.limits;
  Appendf(out, "%-9s %s (%s; %s; driver %s)\n", d.Id().c_str(), d.name.c_str(), d.vendor.c_str(),
          d.arch.c_str(), d.driver_version.c_str());
  Appendf(out,
          "          work-group <= %lld (%lld x %lld x %lld), local memory %lld KiB, "
          "global memory %.1f GiB,\n          %lld compute units at %lld MHz, warp/multiple %lld\n",
          (long long)l.max_work_group_size, (long long)l.max_work_item_sizes[0],
          (long long)l.max_work_item_sizes[1], (long long)l.max_work_item_sizes[2],
          (long long)(l.local_mem_bytes / 1024), l.global_mem_bytes / 1073741824.0,
          (long long)l.compute_units, (long long)l.clock_mhz, (long long)l.warp_size);
  Appendf(out, "          compiler %s\n", CompilerText(d).c_str());
}

// This process's devices, as text or JSON.
std::string Listing(bool json) {
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
    return JsonText(out);
  }
  std::string out;
  if (opencl.empty()) out += "no OpenCL device found (is an OpenCL ICD such as PoCL installed?)\n";
  for (const auto& d : opencl) PrintDevice(&out, d);
  if (!cuda.driver_loaded) {
    out += cuda.message + "\n";
  } else {
    if (cuda.devices.empty()) out += "CUDA driver loaded, no CUDA GPU present\n";
    for (const auto& d : cuda.devices) PrintDevice(&out, d);
  }
  return out;
}

#if BEAST_WITH_MPI
// Under mpirun: every rank's devices, with its host, printed by rank 0.
int ListEveryRank(bool json) {
  MpiSession mpi;
  const std::string mine = Listing(json);
  nlohmann::ordered_json me = {{"rank", mpi.rank()}, {"host", mpi.host()}};
  if (json) me["devices"] = nlohmann::ordered_json::parse(mine);
  const std::vector<std::string> all =
      mpi.Gather(json ? JsonText(me, -1)
                      : "rank " + std::to_string(mpi.rank()) + " on " + mpi.host() + ":\n" + mine);
  if (mpi.rank() != 0) return 0;
  if (json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const std::string& rank : all) out.push_back(nlohmann::ordered_json::parse(rank));
    std::printf("%s\n", JsonText(out).c_str());
  } else {
    for (const std::string& rank : all) std::fputs(rank.c_str(), stdout);
  }
  return 0;
}
#endif

}  // namespace

int Devices(const Argv& argv) {
  VerbApp app("devices", "List the OpenCL devices and CUDA GPUs present.", kDetails);
  bool json = false;
  app.add_flag("--json", json, "print JSON");
  if (!ParseCommandLine(app, argv)) return 0;
#if BEAST_WITH_MPI
  if (LaunchedAsRanks()) return ListEveryRank(json);
#endif
  const std::string listing = Listing(json);
  std::fputs(listing.c_str(), stdout);
  if (json) std::fputs("\n", stdout);
  return 0;
}

}  // namespace beast::cli
