// Transfer from earlier tunings: the trials of the same template on other
// problems and devices that the database holds, as a search strategy learns
// from them (strategy.hpp, TransferSet). Only measurements recorded before
// the pair's search started count (Store::TransferCutoff), so a resumed run
// learns from exactly what the interrupted one did, and only configs that
// are points of the pair's space
// (with the same parameters), so every one is a config the search could
// propose here. Of each other (device, problem), at most
// kMaxTransferTrialsPerGroup: a fixed uniform sample of them.
#pragma once

#include <cstdint>
#include <string>

#include "beast/search/search_space.hpp"
#include "beast/search/strategy.hpp"
#include "results_db/store.hpp"

namespace beast {

// The pair is (device_id, problem_id) of `template_name`; its own trials are
// not transferred; only measurements with an id below before_id are.
TransferSet TransferFor(results_db::Store& store, const SearchSpace& space,
                        const std::string& template_name, int64_t device_id, int64_t problem_id,
                        int64_t before_id);

}  // namespace beast
