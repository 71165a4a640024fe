// The wire format between the tuner and its device worker: length-prefixed
// frames (a 4-byte little-endian payload length, then the payload) over a
// Unix stream socket, and a tiny binary serializer for the payloads. Fields
// are written and read back in the same fixed order; integers are
// little-endian, doubles are their IEEE-754 bits, strings carry their length.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "beast/core/status.hpp"

namespace beast {

// No message comes near this (a source or build log is kilobytes); a larger
// length means the stream is corrupt.
constexpr uint32_t kMaxFrameBytes = 64u << 20;

class WireWriter {
 public:
  void U8(uint8_t v);
  void I64(int64_t v);
  void F64(double v);
  void Str(const std::string& v);
  void OptF64(const std::optional<double>& v);
  void F64s(const std::vector<double>& v);
  void StatusCode(Status v);  // one byte
  const std::string& bytes() const { return bytes_; }

 private:
  void Raw(const void* data, size_t n);
  std::string bytes_;
};

// Reads what a WireWriter wrote. A payload that ends early or holds an
// impossible length throws Error(kInternal, "worker protocol: ...").
class WireReader {
 public:
  explicit WireReader(const std::string& payload) : payload_(payload) {}
  uint8_t U8();
  int64_t I64();
  double F64();
  std::string Str();
  std::optional<double> OptF64();
  std::vector<double> F64s();
  Status StatusCode();  // throws for a byte that is no status
  // Throws when bytes are left over (a message of another shape).
  void ExpectEnd() const;

 private:
  void Raw(void* data, size_t n);
  const std::string& payload_;
  size_t pos_ = 0;
};

// Writes one frame, waiting at most until `deadline` for the peer to take it.
// Returns false when the peer is gone or the deadline passed (never SIGPIPE).
bool WriteFrame(int fd, const std::string& payload, std::chrono::steady_clock::time_point deadline);

// Blocking read of one frame (the worker's side). Returns false at end of
// stream before the first byte of a frame; throws Error(kInternal) for a
// stream that ends inside a frame or announces an impossible length.
bool ReadFrame(int fd, std::string* payload);

// Collects bytes as they arrive on a non-blocking descriptor and hands out
// complete frames (the tuner's side, which never blocks on a worker).
class FrameBuffer {
 public:
  void Append(const char* data, size_t n) { buffer_.append(data, n); }
  // Moves the next complete frame into *payload; false when none is complete.
  // Throws Error(kInternal) for an impossible length.
  bool Next(std::string* payload);
  void Clear() { buffer_.clear(); }

 private:
  std::string buffer_;
};

}  // namespace beast
