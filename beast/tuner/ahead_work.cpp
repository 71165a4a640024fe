// Work done ahead on a few threads (ahead_work.hpp).
#include "beast/tuner/ahead_work.hpp"

#include <chrono>

namespace beast {

AheadWork::AheadWork(unsigned threads) : threads_(threads < 1 ? 1 : threads) {}

AheadWork::~AheadWork() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  queued_cv_.notify_all();
  for (std::thread& t : pool_) t.join();
}

void AheadWork::Want(const std::string& id, Task task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (running_.count(id) || done_.count(id)) return;
    for (const auto& [queued, unused] : queue_) {
      if (queued == id) return;
    }
    queue_.emplace_back(id, std::move(task));
    // The threads start with the first work: a run with nothing to do starts none.
    while (pool_.size() < threads_) pool_.emplace_back([this] { Work(); });
  }
  queued_cv_.notify_one();
}

std::optional<Outcome> AheadWork::Take(const std::string& id, const Task& task,
                                       const std::atomic<bool>& stop) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!running_.count(id) && !done_.count(id)) {
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
      if (it->first == id) {
        queue_.erase(it);
        break;
      }
    }
    queue_.emplace_front(id, task);
    while (pool_.size() < threads_) pool_.emplace_back([this] { Work(); });
    queued_cv_.notify_one();
  }
  while (!done_.count(id)) {
    if (stop) return std::nullopt;
    done_cv_.wait_for(lock, std::chrono::milliseconds(100));
  }
  Result result = std::move(done_.at(id));
  done_.erase(id);
  if (result.failure) std::rethrow_exception(result.failure);
  return result.outcome;
}

void AheadWork::DropQueued() {
  std::lock_guard<std::mutex> lock(mutex_);
  queue_.clear();
}

void AheadWork::Work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    queued_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    auto [id, task] = std::move(queue_.front());
    queue_.pop_front();
    running_.insert(id);
    lock.unlock();
    Result result;
    try {
      result.outcome = task();
    } catch (...) {
      result.failure = std::current_exception();
    }
    lock.lock();
    running_.erase(id);
    done_[id] = std::move(result);
    done_cv_.notify_all();
  }
}

}  // namespace beast
