// Staging and replacing an export folder (export_folder.hpp).
#include "beast/export/export_folder.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <system_error>

#include "beast/core/error.hpp"
#include "beast/export/exporter.hpp"

namespace beast {
namespace fs = std::filesystem;
namespace {

// A fresh hidden folder beside target, "<parent>/.<name>.<what>-<random>",
// created with the umask's permissions (mkdtemp would make it private, and
// the staging folder becomes the export).
fs::path MakeSibling(const fs::path& target, const std::string& what) {
  std::random_device random;
  std::error_code ec;
  for (int attempt = 0; attempt < 100; ++attempt) {
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "%08x", static_cast<unsigned>(random()));
    fs::path path =
        target.parent_path() / ("." + target.filename().string() + "." + what + "-" + suffix);
    if (fs::create_directory(path, ec)) return path;
    if (ec) break;
  }
  throw Error(ErrorCode::kEnvironment,
              "cannot create a folder beside " + target.string() + (ec ? ": " + ec.message() : ""));
}

// out_dir made absolute, without a trailing slash, so its name and parent
// are the folder's own.
fs::path Normalize(const fs::path& dir) {
  fs::path p = fs::absolute(dir).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p;
}

}  // namespace

void CheckExportTarget(const fs::path& out_dir) {
  fs::path dir = Normalize(out_dir);
  std::error_code ec;
  fs::file_status st = fs::symlink_status(dir, ec);
  if (!fs::exists(st)) return;
  if (!fs::is_directory(st)) {
    throw Error(ErrorCode::kBadArgument, dir.string() + " exists and is not a folder");
  }
  if (fs::exists(dir / kExportStampFile) || fs::is_empty(dir, ec)) return;
  throw Error(ErrorCode::kBadArgument, dir.string() + " exists and is not a beast export (no " +
                                           kExportStampFile + " in it): choose another --out");
}

void CheckOutsideExport(const fs::path& out_dir, const fs::path& input, const std::string& what) {
  if (input.empty()) return;  // nothing read from there
  std::error_code dir_ec, input_ec;
  // Links resolved: a database reached through a link into the folder is in it.
  const fs::path dir = fs::weakly_canonical(Normalize(out_dir), dir_ec);
  const fs::path absolute = fs::absolute(input, input_ec);
  const fs::path file = input_ec ? absolute : fs::weakly_canonical(absolute, input_ec);
  if (dir_ec || input_ec) return;  // what cannot be resolved is refused by whoever reads it
  const fs::path inside = file.lexically_relative(dir);
  if (inside.empty() || *inside.begin() == "..") return;
  throw Error(ErrorCode::kBadArgument,
              what + " " + input.string() + " lies inside --out " + out_dir.string() +
                  ", which an export replaces whole: choose another --out");
}

StagingFolder::StagingFolder(const fs::path& out_dir) : out_dir_(Normalize(out_dir)) {
  std::error_code ec;
  fs::create_directories(out_dir_.parent_path(), ec);
  if (ec) {
    throw Error(ErrorCode::kEnvironment,
                "cannot create " + out_dir_.parent_path().string() + ": " + ec.message());
  }
  staging_ = MakeSibling(out_dir_, "beast-export");
}

StagingFolder::~StagingFolder() {
  if (committed_) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);  // best effort: an exception is already on its way
}

void StagingFolder::Write(const std::string& rel, const std::string& text) {
  fs::path path = staging_ / rel;
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::ofstream file(path, std::ios::binary);
  file << text;
  file.close();
  if (ec || !file) throw Error(ErrorCode::kEnvironment, "cannot write " + path.string());
  files_.push_back(rel);
}

std::vector<std::string> StagingFolder::Files() const {
  std::vector<std::string> files = files_;
  std::sort(files.begin(), files.end());
  return files;
}

void StagingFolder::Commit() {
  CheckExportTarget(out_dir_);  // it may have changed while the export ran
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(out_dir_))) {
    fs::rename(staging_, out_dir_, ec);
    if (ec) {
      throw Error(ErrorCode::kEnvironment,
                  "cannot move the export into " + out_dir_.string() + ": " + ec.message());
    }
    committed_ = true;
    return;
  }
  // rename() replaces only an empty folder: move the old export aside first.
  fs::path old = MakeSibling(out_dir_, "beast-old");
  fs::rename(out_dir_, old, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(old, ignored);
    throw Error(ErrorCode::kEnvironment,
                "cannot replace " + out_dir_.string() + ": " + ec.message());
  }
  fs::rename(staging_, out_dir_, ec);
  if (ec) {
    std::error_code ignored;
    fs::rename(old, out_dir_, ignored);  // put the previous export back
    throw Error(ErrorCode::kEnvironment,
                "cannot move the export into " + out_dir_.string() + ": " + ec.message());
  }
  committed_ = true;
  fs::remove_all(old, ec);
}

}  // namespace beast
