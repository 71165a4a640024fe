// The device a --device argument of the analysis verbs (query, export)
// stands for, among the devices a results database holds.
#pragma once

#include <string>

#include "results_db/store.hpp"

namespace beast::cli {

// The exact device name `text` stands for: a name, or a unique part of one
// (case-insensitive). Throws Error: kNotFound when none matches (naming the
// devices there are), kBadArgument when several do.
std::string ResolveDevice(results_db::Store& store, const std::string& text);

}  // namespace beast::cli
