// Enumerates OpenCL platforms and devices and turns their properties into
// beast::DeviceInfo.
#include "harness/opencl/opencl_devices.hpp"

#include <string>
#include <vector>

#include "harness/opencl/opencl_handles.hpp"

namespace beast::harness {
namespace {

// Built on each device only to ask the compiler for the work-group multiple
// it prefers: OpenCL has no device-level warp size, and this kernel-level
// query is what the runtime itself uses when choosing group sizes.
constexpr const char* kProbeSource =
    "__kernel void beast_probe(__global float* x) { x[get_global_id(0)] = 0.0f; }\n";

std::string DeviceString(cl_device_id device, cl_device_info what) {
  size_t size = 0;
  if (clGetDeviceInfo(device, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string text(size, '\0');
  if (clGetDeviceInfo(device, what, size, text.data(), nullptr) != CL_SUCCESS) return "";
  while (!text.empty() && (text.back() == '\0' || text.back() == ' ')) text.pop_back();
  return text;
}

// "PLATFORM_NAME PLATFORM_VERSION" of the device's platform, e.g. "Portable
// Computing Language OpenCL 3.0 PoCL 5.0+debian Linux, ...": its compiler's version.
std::string PlatformVersion(cl_device_id device) {
  cl_platform_id platform = nullptr;
  if (clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr) !=
      CL_SUCCESS) {
    return "";
  }
  auto text = [&](cl_platform_info what) {
    size_t size = 0;
    if (clGetPlatformInfo(platform, what, 0, nullptr, &size) != CL_SUCCESS || size == 0)
      return std::string();
    std::string value(size, '\0');
    if (clGetPlatformInfo(platform, what, size, value.data(), nullptr) != CL_SUCCESS)
      return std::string();
    while (!value.empty() && (value.back() == '\0' || value.back() == ' ')) value.pop_back();
    return value;
  };
  std::string name = text(CL_PLATFORM_NAME), version = text(CL_PLATFORM_VERSION);
  return name.empty() ? version : version.empty() ? name : name + " " + version;
}

template <typename T>
T DeviceValue(cl_device_id device, cl_device_info what) {
  T value{};
  if (clGetDeviceInfo(device, what, sizeof(T), &value, nullptr) != CL_SUCCESS) return T{};
  return value;
}

int64_t PreferredMultiple(cl_device_id device, cl_context context) {
  if (context == nullptr) return 1;
  const char* source = kProbeSource;
  cl_int status = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(context, 1, &source, nullptr, &status);
  if (status != CL_SUCCESS) return 1;
  int64_t multiple = 1;
  if (clBuildProgram(program, 1, &device, "", nullptr, nullptr) == CL_SUCCESS) {
    cl_kernel kernel = clCreateKernel(program, "beast_probe", &status);
    if (status == CL_SUCCESS) {
      size_t value = 0;
      if (clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                   sizeof(value), &value, nullptr) == CL_SUCCESS &&
          value > 0) {
        multiple = static_cast<int64_t>(value);
      }
      clReleaseKernel(kernel);
    }
  }
  clReleaseProgram(program);
  return multiple;
}

}  // namespace

std::vector<cl_device_id> EnumerateOpenClDevices() {
  std::vector<cl_device_id> devices;
  cl_uint platform_count = 0;
  // With no ICD file the loader answers CL_PLATFORM_NOT_FOUND_KHR: no devices.
  if (clGetPlatformIDs(0, nullptr, &platform_count) != CL_SUCCESS || platform_count == 0) {
    return devices;
  }
  std::vector<cl_platform_id> platforms(platform_count);
  if (clGetPlatformIDs(platform_count, platforms.data(), nullptr) != CL_SUCCESS) return devices;
  for (cl_platform_id platform : platforms) {
    cl_uint count = 0;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS ||
        count == 0) {
      continue;
    }
    std::vector<cl_device_id> ids(count);
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, ids.data(), nullptr) != CL_SUCCESS) {
      continue;
    }
    devices.insert(devices.end(), ids.begin(), ids.end());
  }
  return devices;
}

beast::DeviceInfo QueryOpenClDevice(cl_device_id device, int index, cl_context context) {
  beast::DeviceInfo info;
  info.backend = beast::Backend::kOpenCL;
  info.index = index;
  info.name = DeviceString(device, CL_DEVICE_NAME);
  info.vendor = DeviceString(device, CL_DEVICE_VENDOR);
  info.driver_version = DeviceString(device, CL_DRIVER_VERSION);
  info.arch = DeviceString(device, CL_DEVICE_VERSION);
  info.compiler = "opencl";
  info.compiler_version = PlatformVersion(device);

  beast::DeviceLimits& limits = info.limits;
  limits.max_work_group_size =
      static_cast<int64_t>(DeviceValue<size_t>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE));
  cl_uint dims = DeviceValue<cl_uint>(device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
  if (dims > 0) {
    std::vector<size_t> sizes(dims, 0);
    if (clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof(size_t) * dims, sizes.data(),
                        nullptr) == CL_SUCCESS) {
      for (cl_uint i = 0; i < dims && i < 3; ++i) {
        limits.max_work_item_sizes[i] = static_cast<int64_t>(sizes[i]);
      }
    }
  }
  limits.local_mem_bytes =
      static_cast<int64_t>(DeviceValue<cl_ulong>(device, CL_DEVICE_LOCAL_MEM_SIZE));
  limits.global_mem_bytes =
      static_cast<int64_t>(DeviceValue<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE));
  limits.max_alloc_bytes =
      static_cast<int64_t>(DeviceValue<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE));
  // A device without double precision reports no fp64 capabilities.
  limits.fp64 = DeviceValue<cl_device_fp_config>(device, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
  limits.compute_units = DeviceValue<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS);
  limits.clock_mhz = DeviceValue<cl_uint>(device, CL_DEVICE_MAX_CLOCK_FREQUENCY);
  limits.warp_size = PreferredMultiple(device, context);
  return info;
}

std::vector<beast::DeviceInfo> ListOpenClDevices() {
  std::vector<beast::DeviceInfo> infos;
  std::vector<cl_device_id> devices = EnumerateOpenClDevices();
  for (size_t i = 0; i < devices.size(); ++i) {
    cl_device_id device = devices[i];
    cl_int status = CL_SUCCESS;
    cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
    infos.push_back(
        QueryOpenClDevice(device, static_cast<int>(i), status == CL_SUCCESS ? context : nullptr));
    if (status == CL_SUCCESS) clReleaseContext(context);
  }
  return infos;
}

bool IsCpuOpenClDevice(int device_index) {
  std::vector<cl_device_id> devices = EnumerateOpenClDevices();
  if (device_index < 0 || static_cast<size_t>(device_index) >= devices.size()) return false;
  cl_device_type type = 0;
  return clGetDeviceInfo(devices[device_index], CL_DEVICE_TYPE, sizeof type, &type, nullptr) ==
             CL_SUCCESS &&
         (type & CL_DEVICE_TYPE_CPU) != 0;
}

}  // namespace beast::harness
