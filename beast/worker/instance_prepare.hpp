// Turning a config into what the device worker measures: the instance's
// constants, the rendered source and its launch geometry. Shared by the tuner
// and its compile pool, which prepares the next configs ahead of the device.
#pragma once

#include <optional>

#include "beast/problem/device.hpp"
#include "beast/problem/problem.hpp"
#include "beast/space/bound_space.hpp"
#include "beast/worker/instance_measure.hpp"
#include "beast/worker/worker_protocol.hpp"
#include "harness/render/renderer.hpp"

namespace beast {

struct PreparedInstance {
  // problem_key, source, kernel_name and geometry; the plan is left for the
  // tuner to set.
  MeasureRequest request;
  // Set when the template did not render for this config: a compile_error to
  // record as it is (nothing to build).
  std::optional<Outcome> failure;
};

// The launches an instance makes before its kernel, and their workspace.
harness::LaunchSequence SequenceOf(const Instance& instance);

// Renders `config` of `space` (bound to `problem`) with `renderer`. A template
// that fails to render is data (`failure`); a broken renderer throws
// beast::Error. Thread-safe as the renderer is.
PreparedInstance PrepareInstance(harness::Renderer& renderer, const SpaceSpec& spec,
                                 const Problem& problem, const BoundSpace& space,
                                 const Config& config, Backend backend);

}  // namespace beast
