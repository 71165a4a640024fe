-- Schema version 1 -> 2: vendor-library baselines, the compiler of each
-- measurement, and the measurement_provenance view. Run by beast in one
-- transaction with the check of the version it upgrades from; the text of each
-- CREATE below is the one in schema.sql.
ALTER TABLE measurements ADD COLUMN compiler TEXT NOT NULL DEFAULT '';
ALTER TABLE measurements ADD COLUMN compiler_version TEXT NOT NULL DEFAULT '';

CREATE TABLE baselines (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs (id),
  device_id INTEGER NOT NULL REFERENCES devices (id),
  problem_id INTEGER NOT NULL REFERENCES problems (id),
  library TEXT NOT NULL,                 -- 'clblast', 'cublas', 'cudnn', ...
  routine TEXT NOT NULL,                 -- 'Sgemm', 'Convgemm', an algorithm name
  status TEXT NOT NULL
    CHECK (status IN ('ok', 'compile_error', 'runtime_error', 'crashed', 'timeout',
                      'wrong_result', 'unsupported')),
  samples_json TEXT NOT NULL DEFAULT '[]', -- raw samples in ms
  median_ms REAL,
  spread REAL,                           -- (p75 - p25) / median
  gflops REAL,
  max_error REAL,
  error_text TEXT NOT NULL DEFAULT '',
  library_version TEXT NOT NULL DEFAULT '',
  measured_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (device_id, problem_id, library, routine)
);

CREATE INDEX baselines_by_run ON baselines (run_id);

CREATE VIEW measurement_provenance AS
SELECT m.id AS measurement_id, m.run_id, r.beast_version, r.command,
       d.backend, d.name AS device_name, d.vendor, d.arch, d.driver_version,
       json_extract(d.limits_json, '$.clock_mhz') AS clock_mhz,
       m.compiler, m.compiler_version,
       t.name AS template_name, t.hash AS template_hash, t.source_path,
       p.key AS problem_key, c.config_key, c.params_json,
       m.status, m.samples_json, m.median_ms, m.spread, m.gflops, m.max_error,
       m.compile_ms, m.error_text, m.created_at
FROM measurements m
JOIN runs r ON r.id = m.run_id
JOIN devices d ON d.id = m.device_id
JOIN problems p ON p.id = m.problem_id
JOIN configs c ON c.id = m.config_id
JOIN templates t ON t.id = c.template_id;

PRAGMA user_version = 2;
