// beast space: the size of a template's space for a problem and device,
// before pruning and after each constraint, and the final count.
#include <cstdio>

#include "args.hpp"
#include "beast/bound_space.hpp"
#include "beast/device_resolver.hpp"
#include "beast/error.hpp"
#include "beast/json.hpp"
#include "beast/paths.hpp"
#include "beast/user_constraints.hpp"
#include "verbs.hpp"

namespace beast::cli {
namespace {

const char kHelp[] =
    "usage: beast space TEMPLATE --problem P --device D [--json] [--list N]\n"
    "                   [--constraint EXPR]... [--constraints FILE]... [--ignore-soft]\n"
    "Prints the raw size of TEMPLATE's space (e.g. gemm/tiled) for problem P on device D,\n"
    "what each constraint removed where it is checked, the count left after it and every\n"
    "constraint before it, and the number of valid configs. --list N prints the first N.\n"
    "--constraint adds a soft user constraint (\"hard: EXPR\" for a hard one).\n";

}  // namespace

int Space(const Argv& argv) {
  if (PrintHelpIfAsked(argv, kHelp)) return 0;
  Args args(argv, {"problem", "device", "list", "constraint", "constraints", "templates"},
            {"json", "ignore-soft", "stats"}, "space");
  if (args.positional().size() != 1) throw Error(ErrorCode::kBadArgument, "beast space: expected one TEMPLATE (see --help)");
  Paths paths = Paths::Default();
  std::string templates_dir = args.Get("templates", paths.templates_dir);
  SpaceSpec spec = SpaceSpec::Load(templates_dir, args.positional()[0]);
  Problem problem = Problem::Parse(args.Require("problem"));
  DeviceInfo device = ResolveDevice(DeviceSelector::Parse(args.Get("device", "opencl:0")));
  BindOptions options;
  options.ignore_soft = args.Has("ignore-soft");
  for (const auto& text : args.GetAll("constraint")) options.extra.push_back(ParseUserConstraint(text));
  for (const auto& file : args.GetAll("constraints")) {
    for (auto& c : LoadConstraintFile(file)) options.extra.push_back(c);
  }
  BoundSpace space(spec, problem, device, options);
  SpaceReport report = space.Explain();
  long list = args.GetInt("list", 0);
  std::vector<Config> first = space.Enumerate(list > 0 ? static_cast<size_t>(list) : 0);
  if (args.Has("json")) {
    std::string out = "{\"template\": " + JsonString(spec.name) + ", \"problem\": " + JsonString(problem.Key()) +
                      ", \"device\": " + JsonString(device.Id()) + ", \"raw\": " + std::to_string(report.raw) +
                      ", \"valid\": " + std::to_string(report.valid) + ", \"constraints\": [";
    for (size_t i = 0; i < report.constraints.size(); ++i) {
      const auto& r = report.constraints[i];
      out += std::string(i ? ", " : "") + "{\"expr\": " + JsonString(r.spec->expr.text()) +
             ", \"kind\": " + JsonString(ConstraintKindName(r.spec->kind)) +
             ", \"class\": " + JsonString(ConstraintClassName(r.spec->cls)) +
             ", \"where\": " + JsonString(r.spec->where.ToString()) +
             ", \"checked_at\": " + JsonString(r.checked_at) + ", \"removed\": " + std::to_string(r.removed) +
             ", \"remaining\": " + std::to_string(r.remaining) + "}";
    }
    out += "], \"configs\": [";
    for (size_t i = 0; i < first.size(); ++i) out += std::string(i ? ", " : "") + first[i].ToJson();
    std::printf("%s]}\n", out.c_str());
  } else {
    std::printf("template %s (%s)\nproblem  %s\ndevice   %s %s\n", spec.name.c_str(), spec.space_path.c_str(),
                problem.Key().c_str(), device.Id().c_str(), device.name.c_str());
    std::printf("raw space: %llu points over %zu parameters\n", (unsigned long long)report.raw, spec.params.size());
    std::printf("%3s  %-4s  %-11s  %-14s  %10s  %10s  %s\n", "#", "kind", "class", "checked at", "removed",
                "remaining", "constraint");
    for (size_t i = 0; i < report.constraints.size(); ++i) {
      const auto& r = report.constraints[i];
      std::string at = r.checked_at + (r.prefilter ? " (values)" : "");
      std::printf("%3zu  %-4s  %-11s  %-14s  %10llu  %10llu  %s\n", i + 1, ConstraintKindName(r.spec->kind),
                  ConstraintClassName(r.spec->cls), at.c_str(), (unsigned long long)r.removed,
                  (unsigned long long)r.remaining, r.spec->expr.text().c_str());
    }
    if (report.derived_errors) {
      std::printf("derived values that could not be computed removed %llu points\n",
                  (unsigned long long)report.derived_errors);
    }
    std::printf("valid: %llu configs\n", (unsigned long long)report.valid);
    for (const auto& c : first) std::printf("  %s\n", c.Key().c_str());
  }
  if (report.valid == 0) {
    throw Error(ErrorCode::kEmptySpace, "the space of " + spec.name + " is empty for " + problem.Key() + ": " + WhyEmpty(report));
  }
  return 0;
}

}  // namespace beast::cli
