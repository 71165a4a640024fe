// Store::Batch: several writes committed in one transaction (see store.hpp).
#include <sqlite3.h>

#include "beast/core/error.hpp"
#include "results_db/store.hpp"
#include "store_impl.hpp"

namespace results_db {

Store::Batch::Batch(Store& store) : store_(store) {
  if (store_.impl_->in_batch) {
    throw beast::Error(beast::ErrorCode::kInternal,
                       store_.path() + ": a batch is already open on this connection");
  }
  // BEGIN IMMEDIATE takes the write lock now, so no statement inside the batch
  // can fail to upgrade a read lock because another process wrote meanwhile.
  store_.impl_->connection.Exec("BEGIN IMMEDIATE", "starting a batch");
  store_.impl_->in_batch = true;
}

Store::Batch::~Batch() {
  if (!open_) return;
  // A failed statement may already have rolled back; ROLLBACK then errors, and
  // there is nothing more to undo.
  sqlite3_exec(store_.impl_->connection.get(), "ROLLBACK", nullptr, nullptr, nullptr);
  store_.impl_->in_batch = false;
}

void Store::Batch::Commit() {
  if (!open_) {
    throw beast::Error(beast::ErrorCode::kInternal, store_.path() + ": batch committed twice");
  }
  store_.impl_->connection.Exec("COMMIT", "committing a batch");
  open_ = false;
  store_.impl_->in_batch = false;
}

}  // namespace results_db
