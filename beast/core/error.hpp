// Error tiers of beast: BEAST_CHECK for broken invariants (a bug: abort with
// file and line), beast::Error for misuse or a bad environment (the CLI prints
// its one-line message and exits non-zero). A kernel that fails is data, never
// an Error.
#pragma once

#include <stdexcept>
#include <string>

namespace beast {

enum class ErrorCode {
  kBadArgument,  // malformed command line, problem string, device selector
  kBadInput,     // malformed file (space description, constraint set, T1 file)
  kNotFound,     // unknown template, device, parameter, file
  kEmptySpace,   // constraints prune the space to nothing
  kDatabase,     // not a beast database, wrong schema version, I/O failure
  kDamaged,      // a database file with damaged pages: never written into
  kEnvironment,  // missing driver, compiler, interpreter
  kInternal,     // a failure of a tool beast drives (e.g. renderer crashed)
  // The device worker could not make a problem's inputs and reference
  // (beast tune exits 4: a run on several devices must not redo it).
  kProblemSetup,
};

const char* ErrorCodeName(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

[[noreturn]] void CheckFailed(const char* file, int line, const char* condition);

}  // namespace beast

#define BEAST_CHECK(condition)                                              \
  do {                                                                      \
    if (!(condition)) ::beast::CheckFailed(__FILE__, __LINE__, #condition); \
  } while (0)
