// What the device worker needs of a backend: one device opened for work,
// measuring rendered instances, confirming a pair's top configs, running a
// vendor library's baseline and the peak FLOP/s microbenchmark, each on the
// problem's inputs made once and kept. The worker loop (worker_main.cpp)
// speaks the protocol; an OpenCL and a CUDA implementation do the work.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "beast/problem/device.hpp"
#include "beast/worker/confirm_protocol.hpp"
#include "beast/worker/instance_measure.hpp"
#include "beast/worker/worker_protocol.hpp"
#include "harness/measure/baseline_result.hpp"
#include "harness/measure/peak_flops.hpp"
#include "harness/measure/timing.hpp"

namespace beast {

class WorkerDevice {
 public:
  virtual ~WorkerDevice() = default;
  virtual const DeviceInfo& device() const = 0;

  // Makes the problem's inputs and reference (and a Winograd kernel's error
  // bound for tile m > 0), or finds them kept: the problem's work before a
  // request, which the tuner does not count against the config's time
  // limit. A problem it cannot make is left to the request to report.
  // Throws only for a device that stopped working.
  virtual void Prepare(const std::string& problem_key, int winograd_tile) = 0;
  // Builds (through the program cache), validates and times request's
  // instance; every failure of the kernel is an Outcome status. Throws only
  // for a device that stopped working.
  virtual Outcome Measure(const MeasureRequest& request, const OnBuilt& on_built) = 0;
  // The interleaved re-measurement of a pair's top configs (measure_steps.hpp).
  virtual std::vector<ConfirmResult> Confirm(const ConfirmRequest& request) = 0;
  // The library's routine for the problem, validated and timed like a kernel.
  virtual harness::BaselineResult Baseline(const BaselineRequest& request) = 0;
  virtual harness::PeakFlopsResult Peak(const PeakRequest& request) = 0;
  // After a kernel or library failed at run time: whether the device still
  // answers (a lost context fails every later call).
  virtual bool StillWorks(const std::string& problem_key) = 0;
  // The same without a problem: a fresh allocation, fill and read (after the
  // peak microbenchmark, whose variants may fault).
  virtual bool DeviceWorks() = 0;
};

// Opens device `device_index` of `backend`, building through the program
// cache in `cache_dir` unless it is empty. Throws beast::Error when it cannot.
std::unique_ptr<WorkerDevice> OpenWorkerDevice(Backend backend, int device_index,
                                               const std::string& cache_dir);
std::unique_ptr<WorkerDevice> OpenOpenCLWorkerDevice(int device_index,
                                                     const std::string& cache_dir);
std::unique_ptr<WorkerDevice> OpenCudaWorkerDevice(int device_index, const std::string& cache_dir);

}  // namespace beast
