// The on-disk program cache (program_cache.hpp). An entry file holds, in
// order: the magic "BEASTPC1", a built flag (1 byte), compile_ms (the IEEE-754
// bits, 8 bytes), then options, compiler, source, log and binary, each as an
// 8-byte length and its bytes, and last an FNV-1a 64 checksum of all that.
// Integers are little-endian.
#include "harness/cache/program_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <vector>

#include "beast/core/config.hpp"
#include "beast/core/error.hpp"

namespace beast::harness {
namespace {

constexpr char kMagic[8] = {'B', 'E', 'A', 'S', 'T', 'P', 'C', '1'};
constexpr const char* kSuffix = ".clprog";
constexpr auto kAbandonedAfter = std::chrono::hours(1);

uint64_t Fnv1a(const std::string& bytes, size_t count) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < count; ++i) {
    h ^= static_cast<unsigned char>(bytes[i]);
    h *= 1099511628211ULL;
  }
  return h;
}

void PutU64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

void PutStr(std::string& out, const std::string& s) {
  PutU64(out, s.size());
  out += s;
}

// Reads fields back, refusing to run past the end.
class Reader {
 public:
  Reader(const std::string& bytes, size_t end) : bytes_(bytes), end_(end) {}
  bool U64(uint64_t* v) {
    if (end_ - pos_ < 8) return false;
    *v = 0;
    for (int i = 0; i < 8; ++i)
      *v |= static_cast<uint64_t>(static_cast<unsigned char>(bytes_[pos_ + i])) << (8 * i);
    pos_ += 8;
    return true;
  }
  bool U8(uint8_t* v) {
    if (end_ - pos_ < 1) return false;
    *v = static_cast<uint8_t>(bytes_[pos_++]);
    return true;
  }
  bool Str(std::string* s) {
    uint64_t n = 0;
    if (!U64(&n) || n > end_ - pos_) return false;
    s->assign(bytes_, pos_, n);
    pos_ += n;
    return true;
  }
  bool AtEnd() const { return pos_ == end_; }

 private:
  const std::string& bytes_;
  size_t end_;
  size_t pos_ = sizeof kMagic;
};

std::string Encode(const ProgramKey& key, const CachedProgram& p) {
  std::string out(kMagic, sizeof kMagic);
  out.push_back(p.built ? 1 : 0);
  uint64_t bits = 0;
  static_assert(sizeof bits == sizeof p.compile_ms);
  std::memcpy(&bits, &p.compile_ms, sizeof bits);
  PutU64(out, bits);
  PutStr(out, key.options);
  PutStr(out, key.compiler);
  PutStr(out, key.source);
  PutStr(out, p.log);
  PutStr(out, p.binary);
  PutU64(out, Fnv1a(out, out.size()));
  return out;
}

bool WriteAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// A name no other writer (thread or process) uses at the same time.
std::string TempName(const std::string& dir, const std::string& hash) {
  static std::atomic<uint64_t> counter{0};
  return dir + "/.tmp-" + hash + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

}  // namespace

std::string ProgramKey::Hash() const {
  return HashText(std::to_string(source.size()) + ":" + source + std::to_string(options.size()) +
                  ":" + options + std::to_string(compiler.size()) + ":" + compiler);
}

ProgramCache::ProgramCache(std::string dir, std::optional<uint64_t> max_bytes)
    : dir_(std::move(dir)) {
  auto fail = [this](const std::string& why) {
    throw Error(ErrorCode::kEnvironment,
                "cannot use the program cache directory " + dir_ + ": " + why);
  };
  if (max_bytes) {
    max_bytes_ = *max_bytes;
  } else if (const char* mb = std::getenv("BEAST_CACHE_MAX_MB"); mb && *mb) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(mb, &end, 10);
    if (*end || *mb == '-' || v > (uint64_t{1} << 40))
      fail(std::string("BEAST_CACHE_MAX_MB must be a whole number of MiB, not \"") + mb + "\"");
    max_bytes_ = static_cast<uint64_t>(v) << 20;
  }
  if (dir_.empty()) fail("the path is empty");
  std::error_code ec;
  // Private: an entry is a binary a device worker loads and runs (on a CPU
  // device, native code in its process) and records as the config's. The
  // folder is made 0700 at once (several workers open it at the same time),
  // and one of this user's that others may write to (an older beast's under
  // umask 002) is made so; another user's is refused.
  std::filesystem::path leaf(dir_);
  if (!leaf.has_filename()) leaf = leaf.parent_path();  // "a/b/" is "a/b"
  if (leaf.has_parent_path()) std::filesystem::create_directories(leaf.parent_path(), ec);
  if (ec) fail(ec.message());
  if (::mkdir(leaf.c_str(), 0700) != 0 && errno != EEXIST) fail(std::strerror(errno));
  if (!std::filesystem::is_directory(dir_, ec)) fail("not a directory");
  struct stat st;
  if (::stat(dir_.c_str(), &st) != 0) fail(std::strerror(errno));
  if (st.st_uid != ::geteuid()) {
    fail(
        "another user's folder, so a program planted there would be measured as a config's: "
        "use a folder of your own (--cache-dir or BEAST_CACHE_DIR)");
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && ::chmod(dir_.c_str(), st.st_mode & 07755) != 0) {
    fail(std::string("others may write to it and it cannot be made private: ") +
         std::strerror(errno));
  }
  // Creating a file is what Store does; find out now rather than per entry.
  std::string probe = TempName(dir_, "probe");
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) fail(std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
  RemoveAbandonedTemporaries();
  Prune();
}

void ProgramCache::Prune() const {
  if (max_bytes_ == 0) return;
  struct Entry {
    std::filesystem::file_time_type used;
    uint64_t bytes;
    std::filesystem::path path;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= std::strlen(kSuffix) ||
        name.compare(name.size() - std::strlen(kSuffix), std::string::npos, kSuffix) != 0)
      continue;
    std::error_code e;
    const uint64_t bytes = entry.file_size(e);
    const auto used = entry.last_write_time(e);
    if (e) continue;  // removed meanwhile
    entries.push_back({used, bytes, entry.path()});
    total += bytes;
  }
  if (total <= max_bytes_) return;
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.used < b.used; });
  for (const Entry& e : entries) {
    if (total <= max_bytes_ / 4 * 3) break;
    std::error_code gone;
    std::filesystem::remove(e.path, gone);
    total -= e.bytes;
  }
}

void ProgramCache::RemoveAbandonedTemporaries() const {
  // A writer renames its temporary file within moments; one this old was left
  // by a process killed while writing. Errors (another process removing the
  // same file) do not matter.
  const auto before = std::filesystem::file_time_type::clock::now() - kAbandonedAfter;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
    if (entry.path().filename().string().rfind(".tmp-", 0) != 0) continue;
    std::error_code age;
    if (entry.last_write_time(age) < before && !age) std::filesystem::remove(entry.path(), age);
  }
}

std::string ProgramCache::PathOf(const ProgramKey& key) const {
  return dir_ + "/" + key.Hash() + kSuffix;
}

std::optional<CachedProgram> ProgramCache::Load(const ProgramKey& key) const {
  const std::string path = PathOf(key);
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad() || bytes.size() < sizeof kMagic + 8 ||
      std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    return std::nullopt;
  }
  const size_t body = bytes.size() - 8;
  uint64_t checksum = 0;
  for (int i = 0; i < 8; ++i)
    checksum |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[body + i])) << (8 * i);
  if (checksum != Fnv1a(bytes, body)) return std::nullopt;
  Reader r(bytes, body);
  CachedProgram p;
  uint8_t built = 0;
  uint64_t bits = 0;
  std::string options, compiler, source;
  if (!r.U8(&built) || !r.U64(&bits) || !r.Str(&options) || !r.Str(&compiler) || !r.Str(&source) ||
      !r.Str(&p.log) || !r.Str(&p.binary) || !r.AtEnd() || built > 1) {
    return std::nullopt;
  }
  if (options != key.options || compiler != key.compiler || source != key.source)
    return std::nullopt;
  p.built = built == 1;
  std::memcpy(&p.compile_ms, &bits, sizeof bits);
  if (p.built && p.binary.empty()) return std::nullopt;
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // used now: Prune keeps it longer
  return p;
}

bool ProgramCache::Store(const ProgramKey& key, const CachedProgram& program) const {
  const std::string bytes = Encode(key, program);
  const std::string temp = TempName(dir_, key.Hash());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  // No fsync: a killed process loses nothing written (the page cache has it),
  // and an entry a power cut truncates fails its checksum and is rebuilt.
  bool ok = WriteAll(fd, bytes);
  ok = ::close(fd) == 0 && ok;
  if (ok) ok = ::rename(temp.c_str(), PathOf(key).c_str()) == 0;
  if (!ok) ::unlink(temp.c_str());
  if (ok && ++stored_ % kPruneEvery == 0) Prune();
  return ok;
}

}  // namespace beast::harness
