// A run's roofline in its summary: the device's measured peak FLOP/s and
// memory bandwidth (shown in a line each), and per pair the speed-up over the
// vendor library and the fraction of the peak or of the bandwidth bound its
// winner reaches. Shared by the run on one device and the run under mpirun.
#pragma once

#include <cstdint>
#include <string>

#include "beast/problem/device.hpp"
#include "beast/problem/problem.hpp"
#include "beast/tuner/tuner.hpp"
#include "harness/measure/peak_flops.hpp"
#include "results_db/store.hpp"

namespace beast {

// The peak in the summary, and a line saying what it is.
void ShowPeak(const harness::PeakFlopsResult& peak, const DeviceInfo& device, bool progress,
              TuneSummary* summary);

// Each pair's speed-up over the library (recorded by this run or an earlier
// one: --baselines none measures none) and its fraction of the peak.
void AddBaselinesAndPeak(results_db::Store& store, int64_t device_id, const DeviceInfo& device,
                         const std::string& library, TuneSummary* summary);

// The harness::TensorInput a tensor-core template computes the problem
// with (f16, bf16, or tf32 for an f32 problem with math=tf32); -1 for none.
int TensorInputOf(const Problem& problem);

// A pair's fraction of the peak of its arithmetic (a tensor-core template's:
// the tensor cores' peak of its mma input type, none where that was not
// measured) and, where the bandwidth bounds the problem below that peak, of
// the bandwidth bound; nothing for a pair without a winner.
void PlaceUnderRoof(const Problem& problem, const TuneSummary& summary, PairSummary* pair);

}  // namespace beast
