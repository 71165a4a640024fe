// The tuner's handle on one device worker process (worker_process.hpp).
#include "beast/worker/worker_process.hpp"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "beast/core/stopped_time.hpp"

namespace beast {
namespace {

constexpr int kPollSliceMs = 100;  // how often a wait looks at the stop flag

ChildProcess::Options WorkerOptions(const std::string& executable, int device_index,
                                    const std::vector<std::string>& extra_args,
                                    const std::string& verb) {
  ChildProcess::Options o;
  o.argv = {executable, verb, "--device-index", std::to_string(device_index), "--fd", "3"};
  o.argv.insert(o.argv.end(), extra_args.begin(), extra_args.end());
  o.socket_fd = 3;
  o.nonblocking_socket = true;
  o.die_with_parent = true;
  o.ignore_interrupt = true;  // Ctrl-C is the tuner's to handle; it kills the worker itself
  o.no_core_dump = true;
  return o;
}

}  // namespace

WorkerProcess::WorkerProcess(const std::string& executable, int device_index,
                             const std::vector<std::string>& extra_args, const std::string& verb)
    : child_(WorkerOptions(executable, device_index, extra_args, verb),
             "cannot start the device worker " + executable) {}

bool WorkerProcess::Send(const std::string& payload, Clock::time_point deadline) {
  return child_.socket() >= 0 && WriteFrame(child_.socket(), payload, deadline);
}

WorkerProcess::Wait WorkerProcess::Receive(std::string* payload, Clock::time_point deadline,
                                           const std::atomic<bool>* stop) {
  char chunk[65536];
  StoppedTime watch;
  while (true) {
    const Clock::duration stood = watch.Stopped();
    stopped_ += stood;
    deadline += stood;
    const Clock::time_point now = Clock::now();
    if (frames_.Next(payload)) return Wait::kFrame;
    const int fd = child_.socket();
    if (fd < 0) return Wait::kGone;
    if (stop && *stop) return Wait::kStopped;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    if (left <= 0) return Wait::kDeadline;
    pollfd fds[2] = {{fd, POLLIN, 0}, {child_.output(), POLLIN, 0}};
    const int slice = static_cast<int>(std::min<long long>(left, kPollSliceMs));
    watch.Waiting(std::chrono::milliseconds(slice));
    int ready = ::poll(fds, child_.output() >= 0 ? 2 : 1, slice);
    if (ready <= 0) continue;  // timeout or EINTR (Ctrl-C): look at the flags again
    if (child_.output() >= 0 && fds[1].revents) child_.DrainOutput();
    if (!fds[0].revents) continue;
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n > 0) {
      frames_.Append(chunk, static_cast<size_t>(n));
    } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
      // The worker closed its end: it is leaving or dead. Complete frames
      // were handed out above, so what is left is a frame cut short.
      child_.CloseSocket();
      frames_.Clear();
      return Wait::kGone;
    }
  }
}

}  // namespace beast
