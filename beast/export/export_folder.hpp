// The folder an export is written to: written whole in a staging folder
// beside it and renamed into place, so a reader never sees half an export and
// a failed export leaves the previous one untouched. Private to the exporter.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace beast {

// Throws Error(kBadArgument) unless out_dir is absent, an empty folder, or a
// previous export (it holds kExportStampFile).
void CheckExportTarget(const std::filesystem::path& out_dir);
// Throws Error(kBadArgument) when `input` (the database, the templates: what
// the export reads, `what` names it) lies inside out_dir, which an export
// replaces whole: it would be deleted with the old export.
void CheckOutsideExport(const std::filesystem::path& out_dir, const std::filesystem::path& input,
                        const std::string& what);

class StagingFolder {
 public:
  // Creates a fresh hidden folder beside out_dir (its parent is created too).
  explicit StagingFolder(const std::filesystem::path& out_dir);
  // Removes the staging folder unless Commit() moved it into place.
  ~StagingFolder();
  StagingFolder(const StagingFolder&) = delete;
  StagingFolder& operator=(const StagingFolder&) = delete;

  // Writes text to rel (forward slashes), creating folders on the way.
  void Write(const std::string& rel, const std::string& text);
  // The paths written, sorted.
  std::vector<std::string> Files() const;
  // Replaces out_dir by the staging folder (checking out_dir again first).
  void Commit();

 private:
  std::filesystem::path out_dir_;
  std::filesystem::path staging_;
  std::vector<std::string> files_;
  bool committed_ = false;
};

}  // namespace beast
