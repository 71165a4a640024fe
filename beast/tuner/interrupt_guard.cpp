// Ctrl-C, SIGTERM and SIGHUP stop a tuning run (interrupt_guard.hpp).
#include "beast/tuner/interrupt_guard.hpp"

namespace beast {
namespace {

std::atomic<bool> g_interrupted{false};

void OnInterrupt(int) { g_interrupted = true; }

}  // namespace

InterruptGuard::InterruptGuard() {
  g_interrupted = false;
  struct sigaction action = {};
  action.sa_handler = OnInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &previous_int_);
  sigaction(SIGTERM, &action, &previous_term_);
  sigaction(SIGHUP, &action, &previous_hup_);
}
InterruptGuard::~InterruptGuard() {
  // A stop under way keeps the handler until the process ends: the caller
  // still prints the summary, and a second Ctrl-C arriving now must not
  // kill it first.
  if (g_interrupted) return;
  sigaction(SIGINT, &previous_int_, nullptr);
  sigaction(SIGTERM, &previous_term_, nullptr);
  sigaction(SIGHUP, &previous_hup_, nullptr);
}

const std::atomic<bool>& InterruptGuard::Stop() { return g_interrupted; }

}  // namespace beast
