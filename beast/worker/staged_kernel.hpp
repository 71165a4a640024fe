// A config's kernels as one measured launch: the launches of its sequence
// (harness::LaunchSequence: a multi-stage config's transforms) and then its
// main kernel, all from one program and bound to the same buffers, the
// workspace after the contract's ones. The device time of a launch is the
// sum of its kernels' (each waited for, as one kernel is): what a caller of
// the exported library would wait for. Prepare stages (the weights' own
// transform) are not part of a launch: Prepare runs them, once, before the
// launches that use what they left in the workspace — as the exported
// library's beast_conv2d_prepare does once per weight buffer. One template
// for both backends: the kernel type and how to make one are the caller's.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "beast/core/error.hpp"
#include "harness/measure/launch.hpp"

namespace beast {

template <typename Kernel>
class StagedKernel {
 public:
  // Makes a Kernel of `name` bound to the given arguments.
  using Make = std::function<std::unique_ptr<Kernel>(const std::string& name)>;

  // `main` is the config's kernel; `stages.before` the ones launched first.
  // A stage that cannot be made leaves ok() false with its message.
  StagedKernel(const std::string& main, const harness::LaunchSequence& stages, const Make& make)
      : stages_(stages) {
    for (const harness::StageLaunch& stage : stages.before) {
      before_.push_back(make(stage.kernel));
      if (!before_.back()->ok() && message_.empty()) message_ = before_.back()->message();
    }
    main_ = make(main);
    if (!main_->ok() && message_.empty()) message_ = main_->message();
  }

  bool ok() const { return message_.empty(); }
  const std::string& message() const { return message_; }
  const Kernel& main() const { return *main_; }
  bool has_prepare() const { return !stages_.before.empty() && stages_.before[0].prepare; }

  // The prepare stages in order (device time: their sum); stops at the
  // first that fails. Launch needs it done once first.
  harness::LaunchResult Prepare() {
    harness::LaunchResult total;
    total.status = harness::LaunchStatus::kOk;
    for (size_t i = 0; i < before_.size() && stages_.before[i].prepare; ++i) {
      harness::LaunchResult r = before_[i]->Launch(stages_.before[i].geometry);
      if (!r.ok()) {
        r.message = "prepare stage " + stages_.before[i].kernel + ": " + r.message;
        return r;
      }
      total.kernel_ms += r.kernel_ms;
    }
    return total;
  }

  // The other kernels in order, `first` passed to the first launch only
  // (CUDA's L2 flush); stops at the first that fails.
  template <typename... First>
  harness::LaunchResult Launch(const harness::LaunchGeometry& geometry, First... first) {
    harness::LaunchResult total;
    total.status = harness::LaunchStatus::kOk;
    bool at_first = true;
    auto run = [&](Kernel& kernel, const harness::LaunchGeometry& g) {
      harness::LaunchResult r = at_first ? kernel.Launch(g, first...) : kernel.Launch(g);
      at_first = false;
      if (!r.ok()) return r;
      total.kernel_ms += r.kernel_ms;
      return r;
    };
    for (size_t i = 0; i < before_.size(); ++i) {
      if (stages_.before[i].prepare) continue;
      harness::LaunchResult r = run(*before_[i], stages_.before[i].geometry);
      if (!r.ok()) {
        r.message = "stage " + stages_.before[i].kernel + ": " + r.message;
        return r;
      }
    }
    harness::LaunchResult r = run(*main_, geometry);
    return r.ok() ? total : r;
  }

 private:
  harness::LaunchSequence stages_;
  std::vector<std::unique_ptr<Kernel>> before_;
  std::unique_ptr<Kernel> main_;
  std::string message_;
};

// The device workspace `stages` ask for in *workspace (none when they ask
// for none); the reason when the context cannot give it (a failure of the
// config, not of the run). Context: OpenClContext or CudaContext.
template <typename Context, typename Buffer>
std::optional<std::string> AllocateWorkspace(Context& context,
                                             const harness::LaunchSequence& stages,
                                             std::optional<Buffer>* workspace) {
  if (stages.workspace_bytes <= 0) return std::nullopt;
  try {
    *workspace = context.Allocate(static_cast<size_t>(stages.workspace_bytes));
  } catch (const Error& e) {
    return "the workspace of " + std::to_string(stages.workspace_bytes) + " bytes: " + e.what();
  }
  return std::nullopt;
}

// The contract's buffers, and the workspace after them when there is one.
template <typename Arg, typename Buffer>
std::vector<Arg> WithWorkspace(std::vector<Arg> args, const Buffer* workspace) {
  if (workspace) args.push_back(*workspace);
  return args;
}

}  // namespace beast
