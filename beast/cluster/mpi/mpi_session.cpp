// MPI for a verb run as a rank (mpi_session.hpp).
#include "beast/cluster/mpi/mpi_session.hpp"

#include <mpi.h>

#include <algorithm>

#include "beast/core/error.hpp"

namespace beast {
namespace {

// Every message of beast's protocol goes under one tag.
constexpr int kTag = 7;

void Check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(ErrorCode::kEnvironment, std::string("MPI: ") + what + ": " + text);
}

}  // namespace

MpiSession::MpiSession() {
  Check(MPI_Init(nullptr, nullptr), "MPI_Init");
  // Errors come back as codes (a line), not an abort of the whole job.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  host_.assign(name, static_cast<size_t>(length));
  // The node's ranks, by world rank: this rank's place among those that
  // serve a device.
  MPI_Comm node;
  Check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
        "MPI_Comm_split_type");
  int node_size = 0;
  MPI_Comm_size(node, &node_size);
  std::vector<int> world_ranks(static_cast<size_t>(node_size));
  Check(MPI_Allgather(&rank_, 1, MPI_INT, world_ranks.data(), 1, MPI_INT, node), "MPI_Allgather");
  MPI_Comm_free(&node);
  if (rank_ != 0) {
    local_device_index_ = static_cast<int>(std::count_if(
        world_ranks.begin(), world_ranks.end(), [&](int r) { return r != 0 && r < rank_; }));
  }
}

MpiSession::~MpiSession() { MPI_Finalize(); }

void MpiSession::Send(int to, const std::string& payload) {
  Check(MPI_Send(payload.data(), static_cast<int>(payload.size()), MPI_BYTE, to, kTag,
                 MPI_COMM_WORLD),
        "MPI_Send");
}

std::optional<RankMessage> MpiSession::Poll() {
  int waiting = 0;
  MPI_Status status;
  Check(MPI_Iprobe(MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &waiting, &status), "MPI_Iprobe");
  if (!waiting) return std::nullopt;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  RankMessage m;
  m.source = status.MPI_SOURCE;
  m.payload.resize(static_cast<size_t>(count));
  Check(MPI_Recv(m.payload.data(), count, MPI_BYTE, status.MPI_SOURCE, kTag, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE),
        "MPI_Recv");
  return m;
}

std::vector<std::string> MpiSession::Gather(const std::string& text) {
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(static_cast<size_t>(size_));
  Check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD),
        "MPI_Gather");
  std::vector<int> offsets(static_cast<size_t>(size_), 0);
  for (int i = 1; i < size_; ++i) offsets[i] = offsets[i - 1] + lengths[i - 1];
  std::string all(rank_ == 0 ? static_cast<size_t>(offsets.back() + lengths.back()) : 0, '\0');
  Check(MPI_Gatherv(text.data(), length, MPI_BYTE, all.data(), lengths.data(), offsets.data(),
                    MPI_BYTE, 0, MPI_COMM_WORLD),
        "MPI_Gatherv");
  std::vector<std::string> out;
  if (rank_ != 0) return out;
  for (int i = 0; i < size_; ++i) out.push_back(all.substr(offsets[i], lengths[i]));
  return out;
}

}  // namespace beast
