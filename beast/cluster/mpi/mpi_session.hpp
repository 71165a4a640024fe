// MpiSession: MPI for the life of a verb run as a rank of an MPI job — MPI
// started and ended, this rank, the job's size, the host, the rank's place
// among the device ranks of its node (which device `cuda:local` is), and the
// byte messages of RankLink.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "beast/cluster/rank_link.hpp"

namespace beast {

class MpiSession : public RankLink {
 public:
  MpiSession();            // MPI_Init
  ~MpiSession() override;  // MPI_Finalize
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const std::string& host() const { return host_; }
  // Among the ranks on this node other than rank 0 (the coordinator), this
  // one's place, from 0; -1 for rank 0.
  int local_device_index() const { return local_device_index_; }

  void Send(int to, const std::string& payload) override;
  std::optional<RankMessage> Poll() override;

  // Rank 0 gets every rank's `text`, in rank order; the others an empty list.
  std::vector<std::string> Gather(const std::string& text);

 private:
  int rank_ = 0, size_ = 1;
  std::string host_;
  int local_device_index_ = -1;
};

}  // namespace beast
