// The messages of a run under mpirun (beast/cluster/cluster_protocol.hpp):
// each comes back as it was sent, a payload of another kind is refused, and
// a launch as several ranks is read from the launcher's environment.
#include "beast/cluster/cluster_protocol.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "beast/cluster/launcher.hpp"
#include "beast/core/error.hpp"

namespace beast {
namespace {

TEST(ClusterProtocol, AHelloComesBackWithItsDeviceHostPeakSlotsAndPlan) {
  RankHello hello;
  hello.device.backend = Backend::kCuda;
  hello.device.index = 3;
  hello.device.name = "NVIDIA H100 80GB HBM3";
  hello.device.driver_version = "550.54";
  hello.device.arch = "sm_90";
  hello.device.limits.max_work_group_size = 1024;
  hello.device.limits.local_mem_bytes = 232448;
  hello.device.compiler = "nvrtc";
  hello.device.compiler_version = "12.4";
  hello.host = "node17";
  hello.peak = std::string("\x01\x00peak", 6);
  hello.slots = 5;
  hello.compile_jobs = 16;
  hello.plan = "gemm/tiled abc gemm:M=1 8 model\n";
  const RankHello back = DecodeHello(EncodeHello(hello));
  EXPECT_EQ(back.device.backend, Backend::kCuda);
  EXPECT_EQ(back.device.index, 3);
  EXPECT_EQ(back.device.Id(), "cuda:3");
  EXPECT_EQ(back.device.name, hello.device.name);
  EXPECT_EQ(back.device.driver_version, "550.54");
  EXPECT_EQ(back.device.arch, "sm_90");
  EXPECT_EQ(back.device.limits.max_work_group_size, 1024);
  EXPECT_EQ(back.device.limits.local_mem_bytes, 232448);
  EXPECT_EQ(back.device.compiler_version, "12.4");
  EXPECT_EQ(back.host, "node17");
  EXPECT_EQ(back.peak, hello.peak);
  EXPECT_EQ(back.slots, 5);
  EXPECT_EQ(back.compile_jobs, 16);
  EXPECT_EQ(back.plan, hello.plan);
}

TEST(ClusterProtocol, AMeasuredConfigKeepsItsOutcomeAndAttempts) {
  MeasuredTask task;
  task.pair = 2;
  task.config_key = "MWG=64,NWG=32";
  task.outcome.status = Status::kOk;
  task.outcome.samples_ms = {1.5, 1.25, 1.75};
  task.outcome.median_ms = 1.5;
  task.outcome.build_log = "built";
  task.outcome.from_cache = true;
  task.outcome.attempts = 2;
  const MeasuredTask back = DecodeMeasuredTask(EncodeMeasuredTask(task));
  EXPECT_EQ(back.pair, 2);
  EXPECT_EQ(back.config_key, "MWG=64,NWG=32");
  EXPECT_EQ(back.outcome.samples_ms, task.outcome.samples_ms);
  EXPECT_EQ(back.outcome.median_ms, 1.5);
  EXPECT_EQ(back.outcome.build_log, "built");
  EXPECT_TRUE(back.outcome.from_cache);
  EXPECT_EQ(back.outcome.attempts, 2);
}

TEST(ClusterProtocol, ATaskWrappedRequestsByeAndKindsComeBack) {
  MeasureTask task{4, "A=1", 0.25};
  const MeasureTask back = DecodeMeasureTask(EncodeMeasureTask(task));
  EXPECT_EQ(back.pair, 4);
  EXPECT_EQ(back.config_key, "A=1");
  EXPECT_EQ(back.best_ms, 0.25);
  EXPECT_FALSE(DecodeMeasureTask(EncodeMeasureTask({0, "A=2", std::nullopt})).best_ms);
  const Wrapped w = DecodeWrapped(ClusterMessage::kBaseline,
                                  EncodeWrapped(ClusterMessage::kBaseline, "inner", "Sgemm", 300));
  EXPECT_EQ(w.inner, "inner");
  EXPECT_EQ(w.routine, "Sgemm");
  EXPECT_EQ(w.timeout_seconds, 300);
  EXPECT_TRUE(DecodeBye(EncodeBye(true)));
  EXPECT_FALSE(DecodeBye(EncodeBye(false)));
  EXPECT_EQ(ClusterKind(EncodeDone()), ClusterMessage::kDone);
  EXPECT_EQ(DecodeClusterFatal(EncodeClusterFatal("rank 2 on n1: no GPU")), "rank 2 on n1: no GPU");
}

TEST(ClusterProtocol, APayloadOfAnotherKindIsRefused) {
  EXPECT_THROW(DecodeMeasureTask(EncodeBye(false)), Error);
  EXPECT_THROW(ClusterKind(""), Error);
  EXPECT_THROW(ClusterKind(std::string(1, '\x05')), Error);  // a worker's message
  // A hello with no slot is no hello.
  RankHello hello;
  hello.slots = 0;
  EXPECT_THROW(DecodeHello(EncodeHello(hello)), Error);
}

TEST(Launcher, SeveralRanksAreReadFromTheLaunchersEnvironment) {
  unsetenv("OMPI_COMM_WORLD_SIZE");
  unsetenv("PMI_SIZE");
  unsetenv("PMIX_RANK");
  unsetenv("SLURM_STEP_NUM_TASKS");
  EXPECT_FALSE(LaunchedAsRanks());
  setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
  EXPECT_FALSE(LaunchedAsRanks());  // one rank is a plain run
  setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
  ASSERT_TRUE(LaunchedAsRanks());
  EXPECT_EQ(LaunchedAsRanks()->ranks, 4);
  EXPECT_EQ(LaunchedAsRanks()->variable, "OMPI_COMM_WORLD_SIZE");
  unsetenv("OMPI_COMM_WORLD_SIZE");
  // srun --mpi=pmix: a PMIx rank in a step of several tasks; a batch
  // script's plain command (no PMIx) is not one.
  setenv("SLURM_STEP_NUM_TASKS", "8", 1);
  EXPECT_FALSE(LaunchedAsRanks());
  setenv("PMIX_RANK", "0", 1);
  ASSERT_TRUE(LaunchedAsRanks());
  EXPECT_EQ(LaunchedAsRanks()->ranks, 8);
  unsetenv("PMIX_RANK");
  unsetenv("SLURM_STEP_NUM_TASKS");
  try {
    RefuseLaunchWithoutMpi({3, "PMI_SIZE"});
    FAIL() << "no refusal";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find("started as 3 ranks (PMI_SIZE), but this beast was built "
                                         "without MPI"),
              0u)
        << e.what();
  }
}

}  // namespace
}  // namespace beast
