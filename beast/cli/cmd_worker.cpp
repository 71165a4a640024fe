// beast worker (hidden): the device worker process `beast tune` starts for
// its device, or with --compile one of its compile pool's workers. Speaks the
// framed protocol of beast/tuner/worker_protocol.hpp (compile_protocol.hpp) on
// an inherited socket; not meant to be run by hand.
#include "args.hpp"
#include "beast/error.hpp"
#include "beast/tuner.hpp"
#include "verbs.hpp"

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
  if (backend_name != "opencl" && backend_name != "cuda")
    throw Error(ErrorCode::kBadArgument, "--backend must be opencl or cuda");
  const Backend backend = backend_name == "cuda" ? Backend::kCuda : Backend::kOpenCL;
  if (args.Has("compile")) {
    return RunCompileWorker(backend, static_cast<int>(device_index), static_cast<int>(fd),
                            args.Get("cache-dir", ""), args.Get("arch", ""));
  }
  return RunDeviceWorker(backend, static_cast<int>(device_index), static_cast<int>(fd),
                         args.Get("cache-dir", ""));
}

}  // namespace beast::cli
