// Rendering a template's configs for CUDA and compiling them with NVRTC, as
// the compile-only tests of the templates do (no GPU needed): a Job per
// (config, problem, arch), rendered first by the one renderer process, then
// compiled on every core (NVRTC is thread-safe).
#pragma once

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "beast/core/paths.hpp"
#include "beast/space/bound_space.hpp"
#include "beast/space/template_vars.hpp"
#include "harness/cuda/nvrtc_compiler.hpp"
#include "harness/render/renderer.hpp"

namespace beast::testing {

inline const std::string kSourceTemplatesDir =
    std::string(BEAST_TEST_SOURCE_DIR) + "/kernel_templates";

struct CudaJob {
  std::string what;  // template, problem, config, arch
  std::string source, arch, kernel;
  harness::CudaCompileResult result;
};

// The renderer of this source tree's templates.
inline harness::Renderer SourceTemplateRenderer() {
  return harness::Renderer(Paths::Default().python,
                           std::string(BEAST_TEST_SOURCE_DIR) + "/harness/render/render.py",
                           kSourceTemplatesDir);
}

// The CUDA rendering of config of spec's space for problem, to compile for arch.
inline CudaJob RenderCudaJob(harness::Renderer& renderer, const SpaceSpec& spec,
                             const BoundSpace& space, const Problem& problem, const Config& config,
                             const std::string& arch) {
  const Instance instance = space.Instantiate(config);
  return {spec.name + " " + problem.Key() + " " + config.Key() + " " + arch,
          renderer.Render(spec.source_rel, TemplateVars(spec, problem, instance, Backend::kCuda)),
          arch,
          spec.kernel_name,
          {}};
}

// Compiles every job on every core.
inline void CompileAll(std::vector<CudaJob>* jobs) {
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); ++t) {
    threads.emplace_back([&] {
      for (size_t i; (i = next++) < jobs->size();) {
        CudaJob& job = (*jobs)[i];
        job.result = harness::CompileCuda(job.source, job.arch, job.kernel);
      }
    });
  }
  for (auto& t : threads) t.join();
}

}  // namespace beast::testing
