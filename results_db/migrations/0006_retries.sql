-- Schema version 5 -> 6: retries. measurements.attempts says how many times
-- a config was measured before its recorded outcome (2 when its device
-- worker died the first time and it was measured once more in a fresh one);
-- superseded_measurements keeps the history of `beast tune --retry-failed`:
-- a failed outcome measured again is moved here, and its measurements row
-- (same id) holds the new outcome. The text of the CREATE is the one in
-- schema.sql.
ALTER TABLE measurements ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1;

CREATE TABLE superseded_measurements (
  id INTEGER PRIMARY KEY,
  measurement_id INTEGER NOT NULL REFERENCES measurements (id),
  superseded_by_run INTEGER NOT NULL REFERENCES runs (id),
  superseded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  run_id INTEGER NOT NULL REFERENCES runs (id),
  status TEXT NOT NULL,
  samples_json TEXT NOT NULL DEFAULT '[]',
  median_ms REAL,
  compile_ms REAL,
  error_text TEXT NOT NULL DEFAULT '',
  build_log TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  compiler TEXT NOT NULL DEFAULT '',
  compiler_version TEXT NOT NULL DEFAULT '',
  strategy TEXT NOT NULL DEFAULT '',
  attempts INTEGER NOT NULL DEFAULT 1
);

CREATE INDEX superseded_by_measurement ON superseded_measurements (measurement_id);

PRAGMA user_version = 6;
