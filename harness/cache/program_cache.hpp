// ProgramCache: built OpenCL programs on disk, one file per program, named by
// a hash of everything that decides the binary (the source, the build options
// and the compiler: device name, driver and platform version), so a repeated
// or resumed run builds nothing twice and several runs can share one
// directory. Entries are written atomically (a temporary file, then rename)
// and carry their full key and a checksum: an entry cut short, corrupted or
// written for another key (a hash collision) reads as absent and is rebuilt.
// No OpenCL here: the entries are bytes (cached_build.hpp builds with them).
// The folder is kept under a size (BEAST_CACHE_MAX_MB, default 5 GiB): past
// it, the entries used longest ago go first (a load marks an entry used).
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

namespace beast::harness {

// What decides a program binary.
struct ProgramKey {
  std::string source;
  std::string options;
  std::string compiler;  // device name, driver version, platform version, one per line
  // 16 hex digits (FNV-1a 64 of the three fields, each length-prefixed).
  std::string Hash() const;
};

// One entry: the binary of a build that succeeded, or the log of one that
// failed (a source that does not compile is not compiled twice either).
struct CachedProgram {
  bool built = false;
  std::string binary;     // clGetProgramInfo(CL_PROGRAM_BINARIES) when built
  std::string log;        // the compiler's build log
  double compile_ms = 0;  // wall clock of the build from source that made the entry
};

class ProgramCache {
 public:
  // Creates `dir` (and its parents) when missing and checks that a file can be
  // created in it. Throws Error(kEnvironment) "cannot use the program cache
  // directory DIR: WHY" otherwise. Removes temporary files over an hour old
  // (writers killed before their rename), and entries past `max_bytes`
  // (nullopt: BEAST_CACHE_MAX_MB MiB, or kDefaultMaxBytes; 0: no limit).
  explicit ProgramCache(std::string dir, std::optional<uint64_t> max_bytes = std::nullopt);
  static constexpr uint64_t kDefaultMaxBytes = uint64_t{5} << 30;

  const std::string& dir() const { return dir_; }
  // DIR/<key hash>.clprog
  std::string PathOf(const ProgramKey& key) const;

  // The entry for `key`; nullopt when there is none or it cannot be trusted
  // (unreadable, cut short, checksum wrong, another key's).
  std::optional<CachedProgram> Load(const ProgramKey& key) const;

  // Writes the entry for `key`, replacing any. Readers see the old entry or
  // the whole new one, never a part. False when it cannot be written (a full
  // disk, a directory gone): the caller goes on without caching it.
  bool Store(const ProgramKey& key, const CachedProgram& program) const;

  // Removes the entries used longest ago while the folder holds more than
  // the limit, down to three quarters of it (Store calls it every
  // kPruneEvery entries it writes). Entries in use by a reader stay readable
  // (POSIX), and another process removing the same file does no harm.
  void Prune() const;
  static constexpr uint64_t kPruneEvery = 64;

 private:
  void RemoveAbandonedTemporaries() const;
  std::string dir_;
  uint64_t max_bytes_ = kDefaultMaxBytes;
  mutable std::atomic<uint64_t> stored_{0};
};

}  // namespace beast::harness
