// The database file as a file, before and after SQLite has it: what kind of
// thing the path is (missing, empty, a directory, read-only, SQLite of
// another program), read from the file's first bytes so that a refused file
// gets no -wal or -shm beside it; and the cleanup of a file beast created
// but could not finish (a full disk must not leave an empty database).
#pragma once

#include <string>

namespace results_db::internal {

enum class FileUse { kRead, kWrite };

// What the path held before beast opened it.
struct FileBefore {
  bool existed = false;
  bool empty = false;  // 0 bytes: a new database when written, refused when read
};

// Throws Error(kNotFound / kDatabase) with one line naming `path` and what is
// wrong when it cannot be a beast database for `use`: missing (kRead), a
// directory, empty (kRead), unwritable (kWrite), not SQLite, SQLite with
// another program's application id, or a WAL-mode SQLite file of no
// application (a beast file is marked as beast's before it is ever in WAL).
FileBefore CheckBeforeOpen(const std::string& path, FileUse use);

// Whether `path` is now an SQLite file marked as a beast database (its
// header's application id), whoever made it.
bool IsMarkedBeast(const std::string& path);

// Removes `path` and the -wal, -shm and -journal files SQLite may have made
// beside it (a database beast created and could not finish).
void RemoveCreated(const std::string& path);

}  // namespace results_db::internal
