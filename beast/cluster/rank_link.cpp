// Waiting for a rank's message (rank_link.hpp).
#include "beast/cluster/rank_link.hpp"

#include <thread>

namespace beast {

std::optional<RankMessage> RankLink::Wait(std::chrono::steady_clock::duration timeout,
                                          const std::atomic<bool>* stop) {
  // Short enough that a result waits little next to a kernel's runs, long
  // enough that a waiting rank takes no core from a CPU device.
  constexpr auto kLookInterval = std::chrono::microseconds(200);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (std::optional<RankMessage> m = Poll()) return m;
    if ((stop && *stop) || std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(kLookInterval);
  }
}

}  // namespace beast
