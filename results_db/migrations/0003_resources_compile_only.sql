-- Schema version 2 -> 3: the compiled resources of each measurement
-- (registers, spill bytes, stack bytes, shared / local memory bytes; NULL where
-- the backend does not report one) and the status 'compiled' (compile-only
-- tuning for a device that is not present). SQLite cannot widen a CHECK in
-- place, so measurements is rebuilt: renamed aside, created anew with the text
-- of schema.sql, its rows copied with their ids, the old table dropped, its
-- indexes and the view that reads it made again. Run by beast in one
-- transaction with the check of the version it upgrades from.
DROP VIEW measurement_provenance;
ALTER TABLE measurements RENAME TO measurements_v2;

CREATE TABLE measurements (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs (id),
  device_id INTEGER NOT NULL REFERENCES devices (id),
  problem_id INTEGER NOT NULL REFERENCES problems (id),
  config_id INTEGER NOT NULL REFERENCES configs (id),
  is_default INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
  status TEXT NOT NULL
    CHECK (status IN ('ok', 'compile_error', 'runtime_error', 'crashed', 'timeout',
                      'wrong_result', 'pruned_after_compile', 'compiled')),
  samples_json TEXT NOT NULL DEFAULT '[]', -- raw samples in ms
  median_ms REAL,
  spread REAL,                           -- (p75 - p25) / median
  gflops REAL,
  max_error REAL,
  compile_ms REAL,
  error_text TEXT NOT NULL DEFAULT '',
  build_log TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  -- Version 2: the compiler that built the kernel ('opencl' for the OpenCL
  -- platform's compiler, 'nvrtc') and its version (the OpenCL platform
  -- version string, e.g. PoCL's, or NVRTC's "12.4"). '' when unknown.
  compiler TEXT NOT NULL DEFAULT '',
  compiler_version TEXT NOT NULL DEFAULT '',
  -- Version 3: what the compiled kernel needs, as its compiler reports it;
  -- NULL where the backend does not say (OpenCL reports no registers or
  -- spills) or nothing was compiled.
  registers INTEGER,                     -- per thread (ptxas)
  spill_bytes INTEGER,                   -- spill stores + spill loads (ptxas)
  stack_bytes INTEGER,                   -- ptxas stack frame; OpenCL private memory
  shared_bytes INTEGER,                  -- per group: CUDA static shared, OpenCL local memory
  UNIQUE (device_id, problem_id, config_id)
);

INSERT INTO measurements (
  id, run_id, device_id, problem_id, config_id, is_default, status, samples_json, median_ms,
  spread, gflops, max_error, compile_ms, error_text, build_log, created_at, compiler,
  compiler_version)
SELECT
  id, run_id, device_id, problem_id, config_id, is_default, status, samples_json, median_ms,
  spread, gflops, max_error, compile_ms, error_text, build_log, created_at, compiler,
  compiler_version
FROM measurements_v2;

DROP TABLE measurements_v2;

CREATE INDEX measurements_by_problem ON measurements (problem_id, device_id, status);
CREATE INDEX measurements_by_config ON measurements (config_id);
CREATE INDEX measurements_by_run ON measurements (run_id);
CREATE INDEX measurements_defaults ON measurements (device_id, problem_id, is_default);

CREATE VIEW measurement_provenance AS
SELECT m.id AS measurement_id, m.run_id, r.beast_version, r.command,
       d.backend, d.name AS device_name, d.vendor, d.arch, d.driver_version,
       json_extract(d.limits_json, '$.clock_mhz') AS clock_mhz,
       m.compiler, m.compiler_version,
       t.name AS template_name, t.hash AS template_hash, t.source_path,
       p.key AS problem_key, c.config_key, c.params_json,
       m.status, m.samples_json, m.median_ms, m.spread, m.gflops, m.max_error,
       m.compile_ms, m.error_text, m.created_at,
       m.registers, m.spill_bytes, m.stack_bytes, m.shared_bytes
FROM measurements m
JOIN runs r ON r.id = m.run_id
JOIN devices d ON d.id = m.device_id
JOIN problems p ON p.id = m.problem_id
JOIN configs c ON c.id = m.config_id
JOIN templates t ON t.id = c.template_id;

PRAGMA user_version = 3;
