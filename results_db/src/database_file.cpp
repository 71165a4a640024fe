// Checks of a database file before SQLite opens it (database_file.hpp).
#include "database_file.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>

#include "beast/core/error.hpp"
#include "results_db/store.hpp"

namespace results_db::internal {
namespace {

using beast::Error;
using beast::ErrorCode;

// The SQLite file header (https://www.sqlite.org/fileformat.html): a magic
// string, the write and read format versions at 18 and 19 (2 = WAL), and
// big-endian application_id at 68.
constexpr size_t kHeaderBytes = 100;
constexpr char kMagic[] = "SQLite format 3";

uint32_t BigEndian32(const std::array<unsigned char, kHeaderBytes>& h, size_t at) {
  return (uint32_t{h[at]} << 24) | (uint32_t{h[at + 1]} << 16) | (uint32_t{h[at + 2]} << 8) |
         uint32_t{h[at + 3]};
}

// The first kHeaderBytes of `path`; false when it has fewer or cannot be read.
bool ReadFileHeader(const std::string& path, std::array<unsigned char, kHeaderBytes>* header) {
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(header->data()), kHeaderBytes);
  return in.gcount() == static_cast<std::streamsize>(kHeaderBytes);
}

bool IsSqlite(const std::array<unsigned char, kHeaderBytes>& header) {
  return std::equal(kMagic, kMagic + sizeof kMagic, header.begin());
}

}  // namespace

FileBefore CheckBeforeOpen(const std::string& path, FileUse use) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  FileBefore before;
  if (!fs::exists(status)) {
    if (use == FileUse::kRead) throw Error(ErrorCode::kNotFound, path + ": no such database file");
    return before;
  }
  before.existed = true;
  if (fs::is_directory(status))
    throw Error(ErrorCode::kDatabase, path + " is a directory, not a database file");
  if (!fs::is_regular_file(status))
    throw Error(ErrorCode::kDatabase, path + " is not a regular file");
  const uintmax_t size = fs::file_size(path, error);
  if (error) throw Error(ErrorCode::kDatabase, path + ": cannot read its size: " + error.message());
  if (access(path.c_str(), R_OK) != 0)
    throw Error(ErrorCode::kDatabase, path + ": no permission to read it");
  if (use == FileUse::kWrite && access(path.c_str(), W_OK) != 0)
    throw Error(ErrorCode::kDatabase,
                path + " is read-only: tuning and importing write to the database");
  if (size == 0) {
    if (use == FileUse::kRead)
      throw Error(ErrorCode::kDatabase, path + " is an empty file, not a beast database");
    before.empty = true;
    return before;
  }
  std::array<unsigned char, kHeaderBytes> header{};
  const bool sqlite = ReadFileHeader(path, &header) && IsSqlite(header);
  const uint32_t application_id = sqlite ? BigEndian32(header, 68) : 0;
  const bool wal = sqlite && (header[18] == 2 || header[19] == 2);
  if (!sqlite || (application_id != 0 && application_id != static_cast<uint32_t>(kApplicationId)) ||
      (application_id == 0 && wal))
    throw Error(ErrorCode::kDatabase, path + " is not a beast database");
  return before;
}

bool IsMarkedBeast(const std::string& path) {
  std::array<unsigned char, kHeaderBytes> header{};
  return ReadFileHeader(path, &header) && IsSqlite(header) &&
         BigEndian32(header, 68) == static_cast<uint32_t>(kApplicationId);
}

void RemoveCreated(const std::string& path) {
  std::error_code ignored;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    std::filesystem::remove(path + suffix, ignored);
}

}  // namespace results_db::internal
