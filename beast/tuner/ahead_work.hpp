// AheadWork: a few threads that do the work of the configs a run will ask
// for next (compile-only: render and compile them with NVRTC), so every core
// is busy while one thread records results in the order the search wants
// them. Work is named by an id; asking for one not started yet puts it first.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "beast/worker/instance_measure.hpp"

namespace beast {

class AheadWork {
 public:
  using Task = std::function<Outcome()>;
  explicit AheadWork(unsigned threads);
  // Waits for the work in progress; drops what was not started.
  ~AheadWork();
  AheadWork(const AheadWork&) = delete;
  AheadWork& operator=(const AheadWork&) = delete;

  // Queues `task` under `id` unless that id is queued, running or done.
  void Want(const std::string& id, Task task);
  // The outcome of `id` (queued first, with `task`, when it is not there),
  // waiting for it; rethrows what its task threw; nullopt when `stop`
  // turned true first.
  std::optional<Outcome> Take(const std::string& id, const Task& task,
                              const std::atomic<bool>& stop);
  // Forgets the queued work nobody will take.
  void DropQueued();

 private:
  struct Result {
    Outcome outcome;
    std::exception_ptr failure;
  };
  void Work();

  const unsigned threads_;
  std::mutex mutex_;
  std::condition_variable queued_cv_, done_cv_;
  std::deque<std::pair<std::string, Task>> queue_;
  std::set<std::string> running_;
  std::map<std::string, Result> done_;
  bool stopping_ = false;
  std::vector<std::thread> pool_;
};

}  // namespace beast
