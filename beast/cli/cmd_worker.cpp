// beast worker (hidden): the device worker process `beast tune` starts for
// its device, or with --compile one of its compile pool's workers. Speaks the
// framed protocol of beast/tuner/worker_protocol.hpp (compile_protocol.hpp) on
// an inherited socket; not meant to be run by hand.
#include "beast/cli/args.hpp"
#include "beast/core/error.hpp"
#include "beast/compile/compile_worker.hpp"
#include "beast/worker/device_worker.hpp"
#include "beast/cli/verbs.hpp"

namespace beast::cli {

int Worker(const Argv& argv) {
  Args args(argv, {"device-index", "fd", "cache-dir", "backend", "arch"}, {"compile"}, "worker");
  long device_index = args.GetInt("device-index", -1);
  long fd = args.GetInt("fd", -1);
  if (device_index < 0 || fd < 0) {
    throw Error(
        ErrorCode::kBadArgument,
        "--device-index N --fd FD are required (the tuner starts workers itself)");
  }
  const std::string backend_name = args.Get("backend", "opencl");
  const std::optional<Backend> parsed = ParseBackend(backend_name);
  if (!parsed)
    throw Error(ErrorCode::kBadArgument, "--backend must be opencl or cuda");
  const Backend backend = *parsed;
  if (args.Has("compile")) {
    return RunCompileWorker(backend, static_cast<int>(device_index), static_cast<int>(fd),
                            args.Get("cache-dir", ""), args.Get("arch", ""));
  }
  return RunDeviceWorker(backend, static_cast<int>(device_index), static_cast<int>(fd),
                         args.Get("cache-dir", ""));
}

}  // namespace beast::cli
