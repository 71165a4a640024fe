-- Schema version 8 -> 9: the whole superseded outcome. A failed outcome that
-- `beast tune --retry-failed` measures again moves to superseded_measurements;
-- until now the move dropped its spread, GFLOP/s, error against the
-- reference (what a wrong_result measured) and the compiled kernel's
-- resources. They are kept now; NULL in rows superseded before.
ALTER TABLE superseded_measurements ADD COLUMN spread REAL;
ALTER TABLE superseded_measurements ADD COLUMN gflops REAL;
ALTER TABLE superseded_measurements ADD COLUMN max_error REAL;
ALTER TABLE superseded_measurements ADD COLUMN registers INTEGER;
ALTER TABLE superseded_measurements ADD COLUMN spill_bytes INTEGER;
ALTER TABLE superseded_measurements ADD COLUMN stack_bytes INTEGER;
ALTER TABLE superseded_measurements ADD COLUMN shared_bytes INTEGER;

PRAGMA user_version = 9;
