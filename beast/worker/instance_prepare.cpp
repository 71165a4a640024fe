// Rendering a config into a measurement request (instance_prepare.hpp).
#include "beast/worker/instance_prepare.hpp"

#include "beast/core/error.hpp"
#include "beast/space/template_vars.hpp"

namespace beast {

harness::LaunchSequence SequenceOf(const Instance& instance) {
  harness::LaunchSequence sequence;
  for (const Instance::Stage& stage : instance.before) {
    harness::StageLaunch launch;
    launch.kernel = stage.kernel;
    launch.prepare = stage.prepare;
    launch.geometry.dims = 3;
    for (int d = 0; d < 3; ++d) {
      launch.geometry.global[d] = stage.global[d];
      launch.geometry.local[d] = stage.local[d];
    }
    sequence.before.push_back(std::move(launch));
  }
  sequence.workspace_bytes = instance.workspace_bytes;
  return sequence;
}

PreparedInstance PrepareInstance(harness::Renderer& renderer, const SpaceSpec& spec,
                                 const Problem& problem, const BoundSpace& space,
                                 const Config& config, Backend backend) {
  PreparedInstance prepared;
  Instance instance = space.Instantiate(config);
  try {
    prepared.request.source =
        renderer.Render(spec.source_rel, TemplateVars(spec, problem, instance, backend));
  } catch (const harness::RenderTimeout& e) {
    // A template whose rendering never ends costs this config only.
    Outcome outcome;
    outcome.status = Status::kTimeout;
    outcome.error_text = std::string("render: ") + e.what();
    prepared.failure = std::move(outcome);
    return prepared;
  } catch (const harness::RenderInterrupted&) {
    throw;
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kBadInput) throw;  // a broken environment stops the run
    Outcome outcome;
    outcome.status = Status::kCompileError;  // a template that fails to render is data
    outcome.error_text = std::string("render: ") + e.what();
    prepared.failure = std::move(outcome);
    return prepared;
  }
  prepared.request.source = SourcePrelude(problem, backend) + prepared.request.source;
  MeasureRequest& request = prepared.request;
  request.problem_key = problem.Key();
  request.kernel_name = spec.kernel_name;
  request.geometry.dims = 3;
  for (int d = 0; d < 3; ++d) {
    request.geometry.global[d] = instance.global[d];
    request.geometry.local[d] = instance.local[d];
  }
  request.geometry.dynamic_local_bytes = instance.dynamic_local_bytes;
  request.geometry.shared_carveout = static_cast<int>(instance.shared_carveout);
  request.winograd_tile = static_cast<int>(instance.winograd_tile);
  request.stages = SequenceOf(instance);
  return prepared;
}

}  // namespace beast
