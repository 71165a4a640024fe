// Building OpenCL programs through a ProgramCache: a cached binary is loaded
// instead of compiling the source again, a cached compile failure returns its
// log, and anything else is compiled and its outcome stored. An entry that
// will not load (another runtime wrote it, it is damaged) is compiled afresh
// and replaced, so the cache can only save time, never change an outcome.
#pragma once

#include <string>

#include "harness/cache/program_cache.hpp"
#include "harness/opencl/opencl_context.hpp"

namespace beast::harness {

// The key of `source` built with `options` by `context`'s compiler.
ProgramKey OpenClKeyFor(const OpenClContext& context, const std::string& source,
                        const std::string& options);

// Through the cache, as above. Never throws for a bad source (that is data);
// a cache entry that cannot be written is simply not written.
OpenClBuildResult BuildOpenClThroughCache(OpenClContext& context, const ProgramCache& cache,
                                          const std::string& source, const std::string& options);

// The binary of a built program (CL_PROGRAM_BINARIES of its one device);
// empty when the runtime gives none.
std::string ProgramBinary(const OpenClProgram& program);

// Creates a program from `binary` and builds it with `options`; ok=false with
// the reason in `log` when the runtime refuses it. compile_ms is the time this
// took.
OpenClBuildResult BuildFromBinary(OpenClContext& context, const std::string& binary,
                                  const std::string& options);

// Stores `build`'s outcome under `key`: the binary of a program that built
// (taken now, so it holds whatever the runtime generated since the build), or
// the log of a source the compiler rejected. Other failures are not stored
// (they may not happen again). False when nothing was written.
bool StoreBuild(const ProgramCache& cache, const ProgramKey& key, const OpenClBuildResult& build);

}  // namespace beast::harness
