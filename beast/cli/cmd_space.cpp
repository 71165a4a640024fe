// beast space: the size of a template's space for a problem and device,
// before pruning and after each constraint, and the final count.
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "beast/cli/command_line.hpp"
#include "beast/cli/json_text.hpp"
#include "beast/cli/verbs.hpp"
#include "beast/core/error.hpp"
#include "beast/core/paths.hpp"
#include "beast/space/bound_space.hpp"
#include "beast/space/t1_import.hpp"
#include "beast/space/user_constraints.hpp"
#include "harness/devices/device_resolver.hpp"

namespace beast::cli {
namespace {

const char kDetails[] =
    "Prints the raw size of TEMPLATE's space (e.g. gemm/tiled) for problem P on device D\n"
    "(default opencl:0), what each constraint removed where it is checked (partial configs,\n"
    "counted where the walk checks it), the configs it cuts from those the constraints above\n"
    "it left (the cut column adds up to computable - valid: the raw points less those with a\n"
    "derived value that cannot be computed, which no constraint is charged with), the count\n"
    "left after it and every constraint before it, and the number of valid configs. --list N\n"
    "prints the first N. --constraint adds a soft user constraint (\"hard: EXPR\" for a hard\n"
    "one). --t1 FILE reads a tuning problem in the T1 JSON format (Kernel Tuner, KTT, BAT)\n"
    "instead of a template; --count then prints only the raw and valid sizes and the\n"
    "seconds counting took.\n";

struct SpaceArgs {
  std::vector<std::string> positional, constraints, constraint_files;
  std::string problem, device = "opencl:0", templates, t1;
  long list = 0;
  bool json = false, ignore_soft = false, count = false;
};

void PrintJson(const BoundSpace& space, const SpaceReport& report, const std::string& problem_key,
               const std::string& device_text, const std::vector<Config>& first) {
  nlohmann::ordered_json out = {{"template", space.spec().name},
                                {"problem", problem_key},
                                {"device", device_text},
                                {"raw", report.raw},
                                {"computable", report.computable},
                                {"valid", report.valid},
                                {"constraints", nlohmann::ordered_json::array()},
                                {"configs", nlohmann::ordered_json::array()}};
  // A constraint is charged with what it removes of the configs whose
  // derived values compute (raw - computable is no constraint's doing).
  uint64_t before = report.computable;
  for (const auto& r : report.constraints) {
    const uint64_t cut = before - r.remaining;
    before = r.remaining;
    out["constraints"].push_back({{"expr", r.spec->expr.text()},
                                  {"kind", ConstraintKindName(r.spec->kind)},
                                  {"class", ConstraintClassName(r.spec->cls)},
                                  {"where", r.spec->where.ToString()},
                                  {"checked_at", r.checked_at},
                                  {"removed", r.removed},
                                  {"invalid", r.invalid_eval},
                                  {"cut", cut},
                                  {"remaining", r.remaining}});
  }
  for (const Config& c : first) out["configs"].push_back(nlohmann::ordered_json::parse(c.ToJson()));
  std::printf("%s\n", JsonText(out).c_str());
}

void PrintTable(const BoundSpace& space, const SpaceReport& report, const std::string& problem_key,
                const std::string& device_text, const std::vector<Config>& first) {
  const SpaceSpec& spec = space.spec();
  // A T1 file is its own space: no template folder, problem or device.
  if (spec.name == spec.space_path) {
    std::printf("T1 file %s\n", spec.space_path.c_str());
  } else {
    std::printf("template %s (%s)\nproblem  %s\n", spec.name.c_str(), spec.space_path.c_str(),
                problem_key.c_str());
  }
  if (!device_text.empty()) std::printf("device   %s\n", device_text.c_str());
  std::printf("raw space: %llu points over %zu parameters", (unsigned long long)report.raw,
              spec.params.size());
  if (report.computable < report.raw)
    std::printf("; %llu of them with a derived value that cannot be computed",
                (unsigned long long)(report.raw - report.computable));
  std::printf("\n");
  std::printf("%3s  %-4s  %-11s  %-14s  %10s  %10s  %10s  %s\n", "#", "kind", "class", "checked at",
              "removed", "cut", "remaining", "constraint");
  uint64_t before = report.computable;
  for (size_t i = 0; i < report.constraints.size(); ++i) {
    const auto& r = report.constraints[i];
    const uint64_t cut = before - r.remaining;
    before = r.remaining;
    std::string at = r.checked_at + (r.prefilter ? " (values)" : "");
    std::printf("%3zu  %-4s  %-11s  %-14s  %10llu  %10llu  %10llu  %s\n", i + 1,
                ConstraintKindName(r.spec->kind), ConstraintClassName(r.spec->cls), at.c_str(),
                (unsigned long long)r.removed, (unsigned long long)cut,
                (unsigned long long)r.remaining, r.spec->expr.text().c_str());
  }
  // A removal by an evaluation that failed (a division by zero, an int64
  // overflow) is not the constraint saying no: name it.
  for (size_t i = 0; i < report.constraints.size(); ++i) {
    if (report.constraints[i].invalid_eval == 0) continue;
    std::printf(
        "constraint %zu could not be evaluated for %llu of the points it removed "
        "(a division by zero or an integer overflow)\n",
        i + 1, (unsigned long long)report.constraints[i].invalid_eval);
  }
  if (report.derived_errors) {
    std::printf("derived values that could not be computed removed %llu points\n",
                (unsigned long long)report.derived_errors);
  }
  std::printf("valid: %llu configs\n", (unsigned long long)report.valid);
  for (const auto& c : first) std::printf("  %s\n", c.Key().c_str());
}

int PrintSpace(const BoundSpace& space, const std::string& problem_key,
               const std::string& device_text, const SpaceArgs& args) {
  const SpaceReport report = space.Explain();
  const std::vector<Config> first =
      space.Enumerate(args.list > 0 ? static_cast<size_t>(args.list) : 0);
  if (args.json) {
    PrintJson(space, report, problem_key, device_text, first);
  } else {
    PrintTable(space, report, problem_key, device_text, first);
  }
  if (report.valid == 0) {
    throw Error(ErrorCode::kEmptySpace, "the space of " + space.spec().name + " is empty for " +
                                            problem_key + ": " + WhyEmpty(report));
  }
  return 0;
}

// --t1 FILE: a T1 tuning problem, counted or explained.
int T1Space(const SpaceArgs& args, const BindOptions& options) {
  if (!args.positional.empty())
    throw Error(ErrorCode::kBadArgument, "give a TEMPLATE or --t1 FILE, not both");
  SpaceSpec spec = LoadT1(args.t1);
  const auto start = std::chrono::steady_clock::now();
  BoundSpace space(spec, {}, options);
  if (!args.count) return PrintSpace(space, "t1", "", args);
  const uint64_t raw = space.RawSize(), valid = space.Count();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (args.json) {
    const nlohmann::ordered_json out = {{"raw", raw}, {"valid", valid}, {"seconds", seconds}};
    std::printf("%s\n", JsonText(out, -1).c_str());
  } else {
    std::printf("raw %llu, valid %llu, %.6f s\n", (unsigned long long)raw,
                (unsigned long long)valid, seconds);
  }
  return 0;
}

}  // namespace

int Space(const Argv& argv) {
  VerbApp app("space",
              "Size a template's search space and explain its pruning.\n"
              "usage: beast space TEMPLATE --problem P [--device D] | --t1 FILE",
              kDetails);
  SpaceArgs args;
  app.add_option("--problem", args.problem, "the problem the space is bound to");
  app.add_option("--device", args.device, "the device (default opencl:0)");
  AddInteger(app, "--list", &args.list, "print the first N configs");
  AddRepeated(app, "--constraint", &args.constraints, "an extra constraint (repeatable)");
  AddRepeated(app, "--constraints", &args.constraint_files, "a constraint file (repeatable)");
  app.add_option("--templates", args.templates, "the templates folder");
  app.add_option("--t1", args.t1, "a T1 tuning problem instead of a template");
  app.add_flag("--json", args.json, "print JSON");
  app.add_flag("--ignore-soft", args.ignore_soft, "apply the hard constraints only");
  app.add_flag("--count", args.count, "with --t1: only the raw and valid sizes");
  if (!ParseCommandLine(app, argv, &args.positional)) return 0;
  if (args.list < 0) throw Error(ErrorCode::kBadArgument, "--list must not be negative");
  // What one form takes and the other would ignore without a word.
  if (Given(app, "--t1")) {
    for (const char* option : {"--problem", "--device", "--templates"})
      if (Given(app, option))
        throw Error(ErrorCode::kBadArgument,
                    std::string("--t1 takes no ") + option + " (a T1 file holds its space whole)");
  } else if (args.count) {
    throw Error(ErrorCode::kBadArgument, "--count goes with --t1");
  }
  BindOptions options;
  options.ignore_soft = args.ignore_soft;
  for (const auto& text : args.constraints) options.extra.push_back(ParseUserConstraint(text));
  for (const auto& file : args.constraint_files) {
    for (auto& c : LoadConstraintFile(file, Paths::Default().constraints_dir))
      options.extra.push_back(c);
  }
  if (Given(app, "--t1")) return T1Space(args, options);
  if (args.positional.size() != 1)
    throw Error(ErrorCode::kBadArgument, "expected one TEMPLATE (see --help)");
  const Paths paths = Paths::Default();
  SpaceSpec spec = SpaceSpec::Load(args.templates.empty() ? paths.templates_dir : args.templates,
                                   args.positional[0]);
  if (!Given(app, "--problem")) throw Error(ErrorCode::kBadArgument, "--problem is required");
  Problem problem = Problem::Parse(args.problem);
  // Counting needs the device's limits only, not a compiler for it.
  DeviceInfo device = ResolveDevice(DeviceSelector::Parse(args.device), /*to_compile=*/false);
  BoundSpace space(spec, problem, device, options);
  return PrintSpace(space, problem.Key(), device.Id() + " " + device.name, args);
}

}  // namespace beast::cli
