// The messages between the tuner's compile pool (compile_pool.hpp) and a
// compile worker (`beast worker --compile`, compile_worker_main.cpp), in the
// frames of worker_wire.hpp. The worker starts like a device worker (kReady
// or kFatal of worker_protocol.hpp), then:
//
//   pool -> worker   kCompile   one rendered instance to build into the cache
//   worker -> pool   kCompiled  what came of it
//
// One request at a time; the pool closing its end tells the worker to exit.
#pragma once

#include <cstdint>
#include <string>

#include "harness/opencl/opencl_kernel.hpp"

namespace beast {

// Apart from WorkerMessage's values, so a frame sent to the wrong kind of
// worker is refused by its first byte.
enum class CompileMessage : uint8_t { kCompile = 40, kCompiled = 41 };

struct CompileRequest {
  std::string problem_key;  // the buffers of a warm-up launch have its sizes
  std::string source;
  std::string kernel_name;
  harness::LaunchGeometry geometry;
  harness::LaunchSequence stages;  // kernels launched before it (warmed too)
  // Launch one work-group of the built kernel before storing the binary. On
  // PoCL the code for a work-group size is generated at the first launch and
  // kept in the program binary, so the device worker's first launch skips it.
  bool warm = false;
};

struct CompileReply {
  enum class Result : uint8_t {
    kCached = 0,     // the cache already held the program: nothing built
    kCompiled = 1,   // built now (or rejected by the compiler) and stored
    kNotStored = 2,  // built now, but nothing stored (a runtime failure, a full disk)
  };
  Result result = Result::kCached;
  bool built = false;     // kCompiled, kNotStored: the build succeeded
  double compile_ms = 0;  // kCompiled, kNotStored: wall clock of the build
  double warm_ms = 0;     // wall clock of the warm-up launch, 0 when none ran
};

std::string EncodeCompile(const CompileRequest& request);
CompileRequest DecodeCompile(const std::string& payload);
std::string EncodeCompiled(const CompileReply& reply);
// Throws Error(kInternal, "compile protocol: ...") for a payload of another
// kind or shape.
CompileReply DecodeCompiled(const std::string& payload);

}  // namespace beast
