// RankLink: how the processes of a tuning run under mpirun reach each other —
// byte messages to a rank, and the next message from any rank. MPI is the
// one transport (mpi/mpi_link.hpp); the coordinator and the device ranks are
// written against this, so their logic builds without MPI and its cost can be
// measured apart from MPI's (tests/bench/coordinator_bench.cpp).
#pragma once

#include <atomic>
#include <chrono>
#include <optional>
#include <string>

namespace beast {

struct RankMessage {
  int source = 0;  // the sending rank
  std::string payload;
};

class RankLink {
 public:
  virtual ~RankLink() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual void Send(int to, const std::string& payload) = 0;
  // The next message, if one has come; never blocks.
  virtual std::optional<RankMessage> Poll() = 0;

  // The next message, waiting for it up to `timeout` (a short sleep between
  // looks: ranks share CPU cores with the devices they time). nullopt when
  // none came in time or `stop` turned true first.
  std::optional<RankMessage> Wait(std::chrono::steady_clock::duration timeout,
                                  const std::atomic<bool>* stop);
};

}  // namespace beast
