// Progress line (progress.hpp).
#include "beast/tuner/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

namespace beast {
namespace {

// A terminal line is redrawn at most this often, so thousands of fast
// configs do not flood the terminal; and at least this often by the ticker.
constexpr double kLiveLineSeconds = 0.1;
constexpr double kLiveTickSeconds = 1.0;
constexpr int kBarWidth = 20;

int TerminalColumns() {
  winsize w{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
  return 80;
}

std::string Duration(double seconds) {
  long s = static_cast<long>(seconds + 0.5);
  char text[32];
  if (s >= 3600) {
    std::snprintf(text, sizeof text, "%ldh%02ldm", s / 3600, s % 3600 / 60);
  } else {
    std::snprintf(text, sizeof text, "%ldm%02lds", s / 60, s % 60);
  }
  return text;
}

}  // namespace

Progress::Progress(bool enabled, uint64_t total, bool compile_only, std::string label,
                   double plain_seconds)
    : enabled_(enabled),
      tty_(label.empty() && isatty(STDERR_FILENO)),
      compile_only_(compile_only),
      prefix_(label.empty() ? "" : "[" + label + "] "),
      total_(total),
      plain_seconds_(plain_seconds > 0 ? plain_seconds : 10.0),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_) {
  if (enabled_) ticker_ = std::thread([this] { Tick(); });
}

Progress::~Progress() { StopTicker(); }

void Progress::StopTicker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

void Progress::Tick() {
  const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(tty_ ? kLiveTickSeconds : plain_seconds_));
  std::unique_lock<std::mutex> lock(mutex_);
  while (!finished_) {
    // A line is due a period after the last one, whoever printed it; before
    // the first pair starts there is nothing to show.
    const auto now = std::chrono::steady_clock::now();
    const auto due = label_.empty() ? now + period : last_print_ + period;
    if (wake_.wait_until(lock, due, [this] { return finished_; })) break;
    if (!label_.empty() && std::chrono::steady_clock::now() >= last_print_ + period) Print(true);
  }
}

void Progress::StartPair(std::string label, std::string problem, double flops, double best_ms,
                         double best_gflops) {
  std::lock_guard<std::mutex> lock(mutex_);
  label_ = std::move(label);
  problem_ = std::move(problem);
  flops_ = flops;
  fewest_registers_ = -1;
  best_ms_ = best_ms;
  best_gflops_ = best_gflops;
  ++changes_;
  if (tty_) Print(true);
}

void Progress::SetDeadline(std::chrono::steady_clock::time_point deadline) {
  std::lock_guard<std::mutex> lock(mutex_);
  deadline_ = deadline;
}

void Progress::Skipped(uint64_t count) {
  if (count == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  done_ += count;
  skipped_ += count;
  ++changes_;
  Print(false);
}

void Progress::Done(Status status, std::optional<double> median_ms,
                    std::optional<int64_t> registers) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++done_;
  ++measured_;
  ++changes_;
  if (status != (compile_only_ ? Status::kCompiled : Status::kOk)) {
    ++failed_;
    ++failures_[status];
  } else if (compile_only_) {
    if (registers && (fewest_registers_ < 0 || *registers < fewest_registers_))
      fewest_registers_ = *registers;
  } else if (median_ms && *median_ms > 0 && (best_ms_ < 0 || *median_ms < best_ms_)) {
    best_ms_ = *median_ms;
    best_gflops_ = flops_ / (*median_ms * 1e6);
  }
  Print(false);
}

void Progress::Finish() {
  if (!enabled_) return;
  StopTicker();
  std::lock_guard<std::mutex> lock(mutex_);
  // A plain line the ticker printed after the last config is the last line
  // already (what follows the last config, a hung worker's end, can outlast
  // the ticker's period); a terminal's line is redrawn and ended.
  if (tty_ || !printed_ || changes_ != printed_changes_) Print(true);
  if (tty_ && printed_) std::fputc('\n', stderr);
  std::fflush(stderr);
  enabled_ = false;  // once
}

std::string Progress::Line() const {
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  char head[160];
  std::snprintf(head, sizeof head, "%llu/%llu configs", (unsigned long long)done_,
                (unsigned long long)total_);
  std::string line = prefix_ + label_ + " " + head;
  if (tty_) {
    // [#########-----------]  45%
    const double fraction =
        total_ && done_ < total_ ? static_cast<double>(done_) / static_cast<double>(total_) : 1;
    const int filled = static_cast<int>(fraction * kBarWidth + 0.5);
    char percent[16];
    std::snprintf(percent, sizeof percent, "] %3d%% ", static_cast<int>(fraction * 100 + 0.5));
    line = prefix_ + "[" + std::string(filled, '#') + std::string(kBarWidth - filled, '-') +
           percent + label_ + " " + head;
  }
  if (skipped_) line += " (" + std::to_string(skipped_) + " already measured)";
  if (measured_ && elapsed > 0) {
    double rate = measured_ / elapsed;
    char text[96];
    double eta = static_cast<double>(total_ > done_ ? total_ - done_ : 0) / rate;
    if (deadline_ != std::chrono::steady_clock::time_point::max()) {
      const double left =
          std::chrono::duration<double>(deadline_ - std::chrono::steady_clock::now()).count();
      eta = std::min(eta, std::max(left, 0.0));  // the time budget ends the run then
    }
    std::snprintf(text, sizeof text, ", %.2f configs/s, ETA %s", rate, Duration(eta).c_str());
    line += text;
  }
  char best[96] = "none yet";
  if (compile_only_ && fewest_registers_ >= 0) {
    std::snprintf(best, sizeof best, "%lld", (long long)fewest_registers_);
  } else if (!compile_only_ && best_ms_ >= 0) {
    std::snprintf(best, sizeof best, "%.4f ms (%.1f GFLOP/s)", best_ms_, best_gflops_);
  }
  line += std::string(compile_only_ ? ", fewest registers " : ", best ") + best + ", " +
          std::to_string(failed_) + " failed";
  if (!failures_.empty()) {
    std::string parts;
    for (const auto& [status, n] : failures_) {
      parts += (parts.empty() ? "" : ", ") + std::to_string(n) + " " + StatusName(status);
    }
    line += " (" + parts + ")";
  }
  // The problem key is long: last, where a narrow terminal cuts the line.
  return line + " | " + problem_;
}

void Progress::Print(bool force) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  double since = std::chrono::duration<double>(now - last_print_).count();
  if (!force && since < (tty_ ? kLiveLineSeconds : plain_seconds_)) return;
  last_print_ = now;
  printed_ = true;
  printed_changes_ = changes_;
  std::string line = Line();
  if (tty_) {
    // A line wider than the terminal would wrap, and \r only returns to the
    // start of its last row.
    size_t columns = static_cast<size_t>(TerminalColumns()) - 1;
    if (line.size() > columns) line = line.substr(0, columns);
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

}  // namespace beast
