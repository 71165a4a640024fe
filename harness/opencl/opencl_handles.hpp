// The OpenCL objects behind the harness's opaque handles, and the device
// queries shared by the device list and the context. Private to the harness:
// only .cpp files of harness/opencl include it.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <vector>

#include "beast/problem/device.hpp"
#include "harness/opencl/opencl_context.hpp"

namespace beast::harness {

struct ProgramImpl {
  cl_program program = nullptr;
  cl_context context = nullptr;  // not owned: the program retains it
  ~ProgramImpl() {
    if (program) clReleaseProgram(program);
  }
};

struct BufferImpl {
  cl_mem mem = nullptr;
  size_t bytes = 0;
  cl_context context = nullptr;  // not owned: the buffer retains it
  ~BufferImpl() {
    if (mem) clReleaseMemObject(mem);
  }
};

struct OpenClContext::Impl {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  beast::DeviceInfo info;
  ~Impl() {
    if (queue) clReleaseCommandQueue(queue);
    if (context) clReleaseContext(context);
  }
};

// Every device of every platform, flattened; empty when there is none.
std::vector<cl_device_id> EnumerateOpenClDevices();

// Fills a DeviceInfo from live queries; `context` (one containing `device`)
// builds the probe kernel that gives warp_size.
beast::DeviceInfo QueryOpenClDevice(cl_device_id device, int index, cl_context context);

}  // namespace beast::harness
