// Frames and the binary serializer of the worker protocol (worker_wire.hpp).
#include "beast/worker/worker_wire.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>

#include "beast/core/error.hpp"

namespace beast {
namespace {

// The host is little-endian on every platform beast builds for (x86-64,
// aarch64); both ends are the same binary anyway, so the byte order only has
// to be consistent, and memcpy of native values is.
static_assert(sizeof(double) == 8, "doubles travel as 8 bytes");

[[noreturn]] void Malformed(const std::string& what) {
  throw Error(ErrorCode::kInternal, "worker protocol: " + what);
}

std::string LengthPrefix(uint32_t n) {
  char bytes[4] = {static_cast<char>(n & 0xff), static_cast<char>((n >> 8) & 0xff),
                   static_cast<char>((n >> 16) & 0xff), static_cast<char>((n >> 24) & 0xff)};
  return std::string(bytes, 4);
}

uint32_t ReadLength(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return uint32_t(u[0]) | uint32_t(u[1]) << 8 | uint32_t(u[2]) << 16 | uint32_t(u[3]) << 24;
}

// Reads exactly n bytes; returns the count read before end of stream.
size_t ReadFully(int fd, char* data, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::read(fd, data + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  return got;
}

}  // namespace

void WireWriter::Raw(const void* data, size_t n) {
  bytes_.append(static_cast<const char*>(data), n);
}

void WireWriter::U8(uint8_t v) { Raw(&v, 1); }
void WireWriter::I64(int64_t v) { Raw(&v, 8); }
void WireWriter::F64(double v) { Raw(&v, 8); }
void WireWriter::StatusCode(Status v) { U8(static_cast<uint8_t>(v)); }

void WireWriter::Str(const std::string& v) {
  I64(static_cast<int64_t>(v.size()));
  Raw(v.data(), v.size());
}

void WireWriter::OptF64(const std::optional<double>& v) {
  U8(v.has_value());
  if (v) F64(*v);
}

void WireWriter::F64s(const std::vector<double>& v) {
  I64(static_cast<int64_t>(v.size()));
  for (double d : v) F64(d);
}

void WireReader::Raw(void* data, size_t n) {
  if (payload_.size() - pos_ < n) Malformed("a message ended early");
  std::memcpy(data, payload_.data() + pos_, n);
  pos_ += n;
}

uint8_t WireReader::U8() {
  uint8_t v;
  Raw(&v, 1);
  return v;
}

Status WireReader::StatusCode() {
  const uint8_t v = U8();
  if (v >= std::size(kAllStatuses))
    throw Error(ErrorCode::kInternal, "worker protocol: status code " + std::to_string(v));
  return kAllStatuses[v];
}

int64_t WireReader::I64() {
  int64_t v;
  Raw(&v, 8);
  return v;
}

double WireReader::F64() {
  double v;
  Raw(&v, 8);
  return v;
}

std::string WireReader::Str() {
  int64_t n = I64();
  if (n < 0 || static_cast<uint64_t>(n) > payload_.size() - pos_)
    Malformed("a string overruns its message");
  std::string v = payload_.substr(pos_, static_cast<size_t>(n));
  pos_ += static_cast<size_t>(n);
  return v;
}

std::optional<double> WireReader::OptF64() {
  if (!U8()) return std::nullopt;
  return F64();
}

std::vector<double> WireReader::F64s() {
  int64_t n = I64();
  if (n < 0 || static_cast<uint64_t>(n) > (payload_.size() - pos_) / 8)
    Malformed("a list overruns its message");
  std::vector<double> v(static_cast<size_t>(n));
  for (double& d : v) d = F64();
  return v;
}

void WireReader::ExpectEnd() const {
  if (pos_ != payload_.size())
    Malformed("a message has " + std::to_string(payload_.size() - pos_) + " extra bytes");
}

bool WriteFrame(int fd, const std::string& payload,
                std::chrono::steady_clock::time_point deadline) {
  if (payload.size() > kMaxFrameBytes)
    Malformed("a message of " + std::to_string(payload.size()) + " bytes");
  std::string frame = LengthPrefix(static_cast<uint32_t>(payload.size())) + payload;
  size_t sent = 0;
  while (sent < frame.size()) {
    ssize_t n = ::send(fd, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return false;  // EPIPE: the peer is gone
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLOUT, 0};
    ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
  }
  return true;
}

bool ReadFrame(int fd, std::string* payload) {
  char prefix[4];
  size_t got = ReadFully(fd, prefix, 4);
  if (got == 0) return false;
  if (got < 4) Malformed("the stream ended inside a frame header");
  uint32_t n = ReadLength(prefix);
  if (n > kMaxFrameBytes) Malformed("a frame announces " + std::to_string(n) + " bytes");
  payload->resize(n);
  if (ReadFully(fd, payload->data(), n) < n) Malformed("the stream ended inside a frame");
  return true;
}

bool FrameBuffer::Next(std::string* payload) {
  if (buffer_.size() < 4) return false;
  uint32_t n = ReadLength(buffer_.data());
  if (n > kMaxFrameBytes) Malformed("a frame announces " + std::to_string(n) + " bytes");
  if (buffer_.size() - 4 < n) return false;
  payload->assign(buffer_, 4, n);
  buffer_.erase(0, 4 + static_cast<size_t>(n));
  return true;
}

}  // namespace beast
