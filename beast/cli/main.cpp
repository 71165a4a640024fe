// beast: the command-line tool. Dispatches to a verb; a beast::Error becomes
// one line on stderr and exit code 1 (2 for a usage error, 4 when a
// problem's inputs and reference could not be made).
#include <cstdio>
#include <cstring>
#include <iostream>

#include "beast/cli/verbs.hpp"
#include "beast/core/error.hpp"

namespace {

const char kUsage[] =
    "usage: beast VERB [options]   (beast VERB --help for each)\n"
    "verbs:\n"
    "  devices   list OpenCL devices and CUDA GPUs with their limits\n"
    "  space     size a template's search space and explain its pruning\n"
    "  tune      tune templates on problems on one device, into a database\n"
    "  query     read results from a database\n"
    "  export    write the tuned kernel library as a CMake project\n"
    "  report    write an HTML report with plots of a database\n"
    "  import    load a Kernel Tuner cache file into a database\n"
    "  export-results  write a database's results in the T4 format\n"
    "  problems  print the job file (problem keys) of an ONNX model\n"
    "  replay    judge a search strategy offline against a recorded space\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  std::string verb = argv[1];
  beast::cli::Argv args(argv + 2, argv + argc);
  try {
    if (verb == "devices") return beast::cli::Devices(args);
    if (verb == "space") return beast::cli::Space(args);
    if (verb == "tune") return beast::cli::Tune(args);
    if (verb == "query") return beast::cli::Query(args);
    if (verb == "export") return beast::cli::Export(args);
    if (verb == "report") return beast::cli::Report(args);
    if (verb == "import") return beast::cli::Import(args);
    if (verb == "export-results") return beast::cli::ExportResults(args);
    if (verb == "problems") return beast::cli::Problems(args);
    if (verb == "replay") return beast::cli::Replay(args);
    if (verb == "worker") return beast::cli::Worker(args);  // hidden: started by beast tune
    std::fprintf(stderr, "beast: unknown verb \"%s\"\n%s", verb.c_str(), kUsage);
    return 2;
  } catch (const beast::Error& e) {
    std::cout.flush();
    std::fprintf(stderr, "beast %s: %s\n", verb.c_str(), e.what());
    if (e.code() == beast::ErrorCode::kProblemSetup) return 4;
    return e.code() == beast::ErrorCode::kBadArgument ? 2 : 1;
  } catch (const std::exception& e) {
    std::cout.flush();
    std::fprintf(stderr, "beast %s: internal error: %s\n", verb.c_str(), e.what());
    return 1;
  }
}
