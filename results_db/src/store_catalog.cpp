// The names a database holds (problem keys, template names), for the CLI to
// check a filter against before it runs: an unknown name is an error that
// lists the known ones, not an empty result.
#include "results_db/store.hpp"
#include "sqlite_handle.hpp"
#include "store_impl.hpp"

namespace results_db {

std::vector<std::string> Store::ProblemKeys() {
  auto& query = impl_->Prepared("SELECT key FROM problems ORDER BY key", "listing problems");
  internal::StatementScope scope(query);
  std::vector<std::string> keys;
  while (query.Step()) keys.push_back(query.ColumnText(0));
  return keys;
}

std::vector<std::string> Store::TemplateNames() {
  auto& query =
      impl_->Prepared("SELECT DISTINCT name FROM templates ORDER BY name", "listing templates");
  internal::StatementScope scope(query);
  std::vector<std::string> names;
  while (query.Step()) names.push_back(query.ColumnText(0));
  return names;
}

}  // namespace results_db
