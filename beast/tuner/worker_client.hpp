// WorkerClient: the tuner's side of one device. Sends each rendered instance
// to a device worker process and turns whatever happens into an Outcome: the
// worker's reply, `crashed` when the worker dies (its signal or exit code in
// error_text), `timeout` when it runs past its TimeLimit (the worker is
// SIGKILLed). A dead or killed worker is replaced by a fresh one before the
// next config. Never blocks without a deadline.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "instance_measure.hpp"
#include "worker_process.hpp"
#include "worker_protocol.hpp"
#include "worker_time_limit.hpp"

namespace beast {

class WorkerClient {
 public:
  // `executable` is the beast binary (run as `beast worker`); `device_name`
  // is what the tuner resolved opencl:<device_index> to, checked against
  // what the worker opens.
  WorkerClient(std::string executable, int device_index, std::string device_name);

  // Starts the first worker and waits until it has opened the device.
  // Returns false when *stop turned true first. Throws Error(kEnvironment)
  // when the worker cannot start or open the device (the message says why),
  // Error(kInternal) when it is not the worker of this beast or device.
  bool Start(const std::atomic<bool>& stop);

  // Measures one instance. nullopt when `stop` turned true before the
  // outcome: the worker is killed and the config stays unmeasured. Throws
  // like Start when a replacement worker cannot start, and Error(kInternal)
  // for a worker that breaks the protocol.
  std::optional<Outcome> Measure(const MeasureRequest& request, const TimeLimit& limit,
                                 const std::atomic<bool>& stop);

  // SIGKILLs the current worker, if any (a run that stops).
  void Stop();

  // Workers started to replace one that crashed, hung or left.
  int restarts() const { return restarts_; }

 private:
  std::optional<Outcome> Exchange(const MeasureRequest& request, const TimeLimit& limit,
                                  const std::atomic<bool>& stop, bool* not_taken);
  Outcome Crashed(bool built, std::optional<double> compile_ms);

  std::string executable_;
  int device_index_;
  std::string device_name_;
  std::unique_ptr<WorkerProcess> process_;
  bool started_once_ = false;
  int restarts_ = 0;
};

}  // namespace beast
