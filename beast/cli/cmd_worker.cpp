// beast worker (hidden): the device worker process `beast tune` starts for
// its device, or with --compile one of its compile pool's workers. Speaks the
// framed protocol of beast/worker/worker_protocol.hpp (compile_protocol.hpp)
// on an inherited socket; not meant to be run by hand.
#include "beast/cli/command_line.hpp"
#include "beast/cli/verbs.hpp"
#include "beast/compile/compile_worker.hpp"
#include "beast/core/error.hpp"
#include "beast/worker/device_worker.hpp"

namespace beast::cli {

int Worker(const Argv& argv) {
  VerbApp app("worker",
              "The device worker (or, with --compile, a compile worker) that beast tune "
              "starts itself; not for use by hand.");
  long device_index = -1, fd = -1;
  std::string cache_dir, backend_name = "opencl", arch;
  bool compile = false;
  AddInteger(app, "--device-index", &device_index, "the device of its backend");
  AddInteger(app, "--fd", &fd, "the socket inherited from beast tune");
  app.add_option("--cache-dir", cache_dir, "the program cache");
  app.add_option("--backend", backend_name, "opencl or cuda");
  app.add_option("--arch", arch, "the CUDA architecture a compile worker builds for");
  app.add_flag("--compile", compile, "be a compile worker");
  if (!ParseCommandLine(app, argv)) return 0;
  if (device_index < 0 || fd < 0) {
    throw Error(ErrorCode::kBadArgument,
                "--device-index N --fd FD are required (the tuner starts workers itself)");
  }
  const std::optional<Backend> backend = ParseBackend(backend_name);
  if (!backend) throw Error(ErrorCode::kBadArgument, "--backend must be opencl or cuda");
  if (compile) {
    return RunCompileWorker(*backend, static_cast<int>(device_index), static_cast<int>(fd),
                            cache_dir, arch);
  }
  return RunDeviceWorker(*backend, static_cast<int>(device_index), static_cast<int>(fd), cache_dir);
}

}  // namespace beast::cli
