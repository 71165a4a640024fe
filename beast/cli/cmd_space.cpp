// beast space: the size of a template's space for a problem and device,
// before pruning and after each constraint, and the final count.
#include <chrono>
#include <cstdio>

#include "beast/cli/args.hpp"
#include "beast/space/bound_space.hpp"
#include "harness/devices/device_resolver.hpp"
#include "beast/core/error.hpp"
#include "beast/core/json.hpp"
#include "beast/core/paths.hpp"
#include "beast/space/t1_import.hpp"
#include "beast/space/user_constraints.hpp"
#include "beast/cli/verbs.hpp"

namespace beast::cli {
namespace {

const char kHelp[] =
    "usage: beast space TEMPLATE --problem P --device D [--json] [--list N]\n"
    "       beast space --t1 FILE [--count] [--json] [--list N]\n"
    "                   [--constraint EXPR]... [--constraints FILE]... [--ignore-soft]\n"
    "Prints the raw size of TEMPLATE's space (e.g. gemm/tiled) for problem P on device D,\n"
    "what each constraint removed where it is checked, the count left after it and every\n"
    "constraint before it, and the number of valid configs. --list N prints the first N.\n"
    "--constraint adds a soft user constraint (\"hard: EXPR\" for a hard one).\n"
    "--t1 reads a tuning problem in the T1 JSON format (Kernel Tuner, KTT, BAT);\n"
    "--count prints only the raw and valid sizes and the seconds counting took.\n";

}  // namespace

int PrintSpace(const BoundSpace& space, const std::string& problem_key,
               const std::string& device_text, const Args& args);

int Space(const Argv& argv) {
  if (PrintHelpIfAsked(argv, kHelp)) return 0;
  Args args(argv, {"problem", "device", "list", "constraint", "constraints", "templates", "t1"},
            {"json", "ignore-soft", "stats", "count"}, "space");
  BindOptions options;
  options.ignore_soft = args.Has("ignore-soft");
  for (const auto& text : args.GetAll("constraint"))
    options.extra.push_back(ParseUserConstraint(text));
  for (const auto& file : args.GetAll("constraints")) {
    for (auto& c : LoadConstraintFile(file, Paths::Default().constraints_dir))
      options.extra.push_back(c);
  }
  if (args.Has("t1")) {
    if (!args.positional().empty())
      throw Error(ErrorCode::kBadArgument, "give a TEMPLATE or --t1 FILE, not both");
    SpaceSpec spec = LoadT1(args.Get("t1"));
    auto start = std::chrono::steady_clock::now();
    BoundSpace space(spec, {}, options);
    if (args.Has("count")) {
      uint64_t raw = space.RawSize(), valid = space.Count();
      double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (args.Has("json")) {
        std::printf("{\"raw\": %llu, \"valid\": %llu, \"seconds\": %s}\n", (unsigned long long)raw,
                    (unsigned long long)valid, JsonNumber(seconds).c_str());
      } else {
        std::printf("raw %llu, valid %llu, %.6f s\n", (unsigned long long)raw,
                    (unsigned long long)valid, seconds);
      }
      return 0;
    }
    return PrintSpace(space, "t1", "", args);
  }
  if (args.positional().size() != 1)
    throw Error(ErrorCode::kBadArgument, "expected one TEMPLATE (see --help)");
  Paths paths = Paths::Default();
  SpaceSpec spec =
      SpaceSpec::Load(args.Get("templates", paths.templates_dir), args.positional()[0]);
  Problem problem = Problem::Parse(args.Require("problem"));
  // Counting needs the device's limits only, not a compiler for it.
  DeviceInfo device =
      ResolveDevice(DeviceSelector::Parse(args.Get("device", "opencl:0")), /*to_compile=*/false);
  BoundSpace space(spec, problem, device, options);
  return PrintSpace(space, problem.Key(), device.Id() + " " + device.name, args);
}

int PrintSpace(const BoundSpace& space, const std::string& problem_key,
               const std::string& device_text, const Args& args) {
  const SpaceSpec& spec = space.spec();
  SpaceReport report = space.Explain();
  long list = args.GetInt("list", 0);
  std::vector<Config> first = space.Enumerate(list > 0 ? static_cast<size_t>(list) : 0);
  if (args.Has("json")) {
    std::string out =
        "{\"template\": " + JsonString(spec.name) + ", \"problem\": " + JsonString(problem_key) +
        ", \"device\": " + JsonString(device_text) + ", \"raw\": " + std::to_string(report.raw) +
        ", \"valid\": " + std::to_string(report.valid) + ", \"constraints\": [";
    for (size_t i = 0; i < report.constraints.size(); ++i) {
      const auto& r = report.constraints[i];
      out += std::string(i ? ", " : "") + "{\"expr\": " + JsonString(r.spec->expr.text()) +
             ", \"kind\": " + JsonString(ConstraintKindName(r.spec->kind)) +
             ", \"class\": " + JsonString(ConstraintClassName(r.spec->cls)) +
             ", \"where\": " + JsonString(r.spec->where.ToString()) +
             ", \"checked_at\": " + JsonString(r.checked_at) +
             ", \"removed\": " + std::to_string(r.removed) +
             ", \"remaining\": " + std::to_string(r.remaining) + "}";
    }
    out += "], \"configs\": [";
    for (size_t i = 0; i < first.size(); ++i) out += std::string(i ? ", " : "") + first[i].ToJson();
    std::printf("%s]}\n", out.c_str());
  } else {
    std::printf("template %s (%s)\nproblem  %s\ndevice   %s\n", spec.name.c_str(),
                spec.space_path.c_str(), problem_key.c_str(), device_text.c_str());
    std::printf("raw space: %llu points over %zu parameters\n", (unsigned long long)report.raw,
                spec.params.size());
    std::printf("%3s  %-4s  %-11s  %-14s  %10s  %10s  %s\n", "#", "kind", "class", "checked at",
                "removed", "remaining", "constraint");
    for (size_t i = 0; i < report.constraints.size(); ++i) {
      const auto& r = report.constraints[i];
      std::string at = r.checked_at + (r.prefilter ? " (values)" : "");
      std::printf("%3zu  %-4s  %-11s  %-14s  %10llu  %10llu  %s\n", i + 1,
                  ConstraintKindName(r.spec->kind), ConstraintClassName(r.spec->cls), at.c_str(),
                  (unsigned long long)r.removed, (unsigned long long)r.remaining,
                  r.spec->expr.text().c_str());
    }
    if (report.derived_errors) {
      std::printf("derived values that could not be computed removed %llu points\n",
                  (unsigned long long)report.derived_errors);
    }
    std::printf("valid: %llu configs\n", (unsigned long long)report.valid);
    for (const auto& c : first) std::printf("  %s\n", c.Key().c_str());
  }
  if (report.valid == 0) {
    throw Error(ErrorCode::kEmptySpace, "the space of " + spec.name + " is empty for " +
                                            problem_key + ": " + WhyEmpty(report));
  }
  return 0;
}

}  // namespace beast::cli
