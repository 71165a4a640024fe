// Reading a verb's command line with CLI11 (command_line.hpp).
#include "beast/cli/command_line.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "beast/core/error.hpp"

namespace beast::cli {
namespace {

[[noreturn]] void Refuse(const std::string& why) { throw Error(ErrorCode::kBadArgument, why); }

// "--max-configs" of CLI11's "--max-configs: 1 required INT missing".
std::string OptionOf(const std::string& message) { return message.substr(0, message.find(':')); }

}  // namespace

VerbApp::VerbApp(const std::string& verb, const std::string& summary, const std::string& details)
    : CLI::App(summary, "beast " + verb) {
  allow_extras();  // refused by ParseCommandLine, in beast's words
  get_formatter()->column_width(30);
  if (!details.empty()) footer(details);
}

CLI::Option* AddRepeated(CLI::App& app, const std::string& name, std::vector<std::string>* values,
                         const std::string& help) {
  return app.add_option(name, *values, help)->type_size(1)->allow_extra_args(false);
}

CLI::Option* AddInteger(CLI::App& app, const std::string& name, long* value,
                        const std::string& help) {
  return app
      .add_option_function<std::string>(
          name,
          [name, value](const std::string& text) {
            char* end = nullptr;
            errno = 0;
            const long v = std::strtol(text.c_str(), &end, 10);
            if (text.empty() || *end || errno)
              Refuse(name + " must be an integer, not \"" + text + "\"");
            *value = v;
          },
          help)
      ->type_name("INT");
}

namespace {

// The longest duration taken: a year. Far beyond any tuning, and far below
// where seconds as steady_clock nanoseconds (about 292 years) overflow.
constexpr double kMaxDurationSeconds = 365.0 * 24 * 3600;

}  // namespace

CLI::Option* AddSeconds(CLI::App& app, const std::string& name, double* value,
                        const std::string& help) {
  return app
      .add_option_function<std::string>(
          name,
          [name, value](const std::string& text) {
            size_t used = 0;
            double v = 0;
            try {
              v = std::stod(text, &used);
            } catch (const std::exception&) {
              used = 0;
            }
            if (used != text.size() || !(v > 0) || !(v <= kMaxDurationSeconds))
              Refuse(name + " must be a positive number of seconds up to a year, not \"" + text +
                     "\"");
            *value = v;
          },
          help)
      ->type_name("S");
}

namespace {

// "1h30m" -> 5400, "90" -> 90; nullopt when the text is not a positive
// duration up to a year. A number without a unit is seconds only when it is
// the whole text: "1h30" could mean 30 minutes.
std::optional<double> ParseDuration(const std::string& text) {
  if (text.empty()) return std::nullopt;
  double total = 0;
  size_t at = 0;
  std::string units = "hms";  // each at most once, in this order
  while (at < text.size()) {
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(text.substr(at), &used);
    } catch (const std::exception&) {
      return std::nullopt;
    }
    if (!std::isdigit(static_cast<unsigned char>(text[at])) && text[at] != '.') return std::nullopt;
    at += used;
    if (at == text.size()) {  // a plain number: seconds, alone
      if (at != used) return std::nullopt;
      total += v;
      break;
    }
    const size_t unit = units.find(text[at]);
    if (unit == std::string::npos) return std::nullopt;
    total += v * (text[at] == 'h' ? 3600 : text[at] == 'm' ? 60 : 1);
    units = units.substr(unit + 1);
    ++at;
  }
  if (!(total > 0) || !(total <= kMaxDurationSeconds)) return std::nullopt;
  return total;
}

}  // namespace

CLI::Option* AddDuration(CLI::App& app, const std::string& name, double* seconds,
                         const std::string& help) {
  return app
      .add_option_function<std::string>(
          name,
          [name, seconds](const std::string& text) {
            const std::optional<double> v = ParseDuration(text);
            if (!v)
              Refuse(name + " must be a duration such as 90m, 1h30m or 45s, up to a year, not \"" +
                     text + "\"");
            *seconds = *v;
          },
          help)
      ->type_name("DURATION");
}

bool ParseCommandLine(CLI::App& app, const Argv& args, std::vector<std::string>* positional) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // as CLI11 consumes them
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return false;
  } catch (const CLI::ArgumentMismatch& e) {
    // CLI11 says "At Most 1 required but received 2" for an option given
    // twice, "1 required INT missing" for one without its value.
    const std::string what = e.what();
    if (what.find("received") != std::string::npos)
      Refuse(OptionOf(what) + " is given more than once (it takes one value)");
    Refuse(OptionOf(what) + " needs a value");
  } catch (const CLI::ParseError& e) {
    Refuse(e.what());
  }
  for (const std::string& extra : app.remaining()) {
    if (extra.rfind("--", 0) == 0 && extra != "--") {
      Refuse("unknown option " + extra.substr(0, extra.find('=')) + " (see beast " +
             app.get_name().substr(6) + " --help)");
    }
    if (!positional) Refuse("unexpected argument '" + extra + "'");
    positional->push_back(extra);
  }
  return true;
}

}  // namespace beast::cli
