-- beast result database, schema version 9.
-- Executed in one transaction when `beast` creates a new database. The two
-- header fields below identify the file: application_id 0x42454153 ('BEAS')
-- says it is a beast database, user_version is the schema version that
-- migrations/NNNN_name.sql files upgrade from. A migration adds columns at the
-- end of a table, so every column a migration adds is listed last here, in the
-- same order (a test compares a migrated database with a fresh one).
PRAGMA application_id = 1111834963;
PRAGMA user_version = 9;

-- A compute device as it was when measured: a driver update is a new device
-- row, because timings from different drivers must not be mixed.
CREATE TABLE devices (
  id INTEGER PRIMARY KEY,
  backend TEXT NOT NULL,                 -- 'opencl' or 'cuda'
  name TEXT NOT NULL,
  vendor TEXT NOT NULL DEFAULT '',
  driver_version TEXT NOT NULL DEFAULT '',
  arch TEXT NOT NULL DEFAULT '',
  limits_json TEXT NOT NULL DEFAULT '{}',
  UNIQUE (backend, name, driver_version)
);

-- One operation and shape, identified by its canonical key
-- ("conv2d:N=1,C=64,..." or "gemm:M=512,...").
CREATE TABLE problems (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  op TEXT NOT NULL,                      -- 'conv2d' or 'gemm'
  flops REAL NOT NULL                    -- floating-point operations of one run
);

-- A template version: editing the template or its space gives a new hash and
-- so a new row, and its configs are measured afresh.
CREATE TABLE templates (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,                    -- 'gemm/tiled'
  hash TEXT NOT NULL,                    -- hex hash of template + space text
  source_path TEXT NOT NULL DEFAULT '',
  UNIQUE (name, hash)
);

-- One point of a template version's space.
CREATE TABLE configs (
  id INTEGER PRIMARY KEY,
  template_id INTEGER NOT NULL REFERENCES templates (id),
  config_key TEXT NOT NULL,              -- canonical 'MWG=32,NWG=64,...'
  config_hash TEXT NOT NULL,
  params_json TEXT NOT NULL,             -- {"MWG": 32, ...}
  UNIQUE (template_id, config_key)
);

-- One invocation of `beast tune`; 'running' with no finished_at after the
-- process is gone means it was killed.
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  finished_at TEXT,
  command TEXT NOT NULL DEFAULT '',
  beast_version TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL DEFAULT 'running'
    CHECK (status IN ('running', 'finished', 'interrupted'))
);

-- One config measured (or failed) on one device for one problem. The UNIQUE
-- key is what makes a resumed tune skip work already done: the first result
-- recorded is kept. 'pruned_after_compile': compiled, then rejected by a
-- post-compile constraint on its resources and not run; 'compiled' (version
-- 3): compiled fine for a device that is not present (compile-only tuning).
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
  -- Version 5: the search strategy that chose the config ('model', 'random',
  -- 'exhaustive'), 'default' for the template's default; '' before version 5.
  strategy TEXT NOT NULL DEFAULT '',
  -- Version 6: how many times the config was measured before this outcome:
  -- 2 when its device worker died the first time (killed from outside, or
  -- the kernel's doing: only a second death is recorded `crashed`).
  attempts INTEGER NOT NULL DEFAULT 1,
  -- Version 7: the device time of the config's prepare stages (the weights'
  -- transform, run once per weight buffer: not part of median_ms); NULL
  -- when it has none.
  prepare_ms REAL,
  UNIQUE (device_id, problem_id, config_id)
);

-- Version 2: a vendor library's time for a problem (CLBlast, cuBLAS, cuDNN...),
-- measured in the same run and on the same device as the tuned kernels, so
-- queries and reports can state the speed-up over it. One row per (device,
-- problem, library, routine): a resumed run skips what is here, and the first
-- result recorded is kept. 'unsupported' marks a problem the routine cannot
-- compute (a layout or transpose it lacks).
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

-- The UNIQUE constraints above index devices, problems, templates, configs by
-- their identities and measurements by (device, problem, config).
CREATE INDEX configs_by_template ON configs (template_id);
CREATE INDEX measurements_by_problem ON measurements (problem_id, device_id, status);
CREATE INDEX measurements_by_config ON measurements (config_id);
CREATE INDEX measurements_by_run ON measurements (run_id);
CREATE INDEX measurements_defaults ON measurements (device_id, problem_id, is_default);
CREATE INDEX baselines_by_run ON baselines (run_id);

-- Version 2: everything a measurement was taken with, one row per measurement:
-- the device (name, architecture, driver, clock where known), the compiler and
-- its version, beast's version, the template version (its hash covers the
-- template and space text), the problem and config, the raw samples, status
-- and error text; since version 3 also the compiled resources.
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

-- Version 4: the re-measurement that confirms a pair's winner. At the end of
-- tuning a template on a problem, its top few ok configs (by median) are
-- measured again side by side, in rounds that run each of them once in turn,
-- and the winner is the fastest of that re-measurement. One confirmations row
-- per re-measurement of a (device, problem, template version); one
-- confirmation_results row per config it compared.
CREATE TABLE confirmations (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs (id),
  device_id INTEGER NOT NULL REFERENCES devices (id),
  problem_id INTEGER NOT NULL REFERENCES problems (id),
  template_id INTEGER NOT NULL REFERENCES templates (id),
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE confirmation_results (
  id INTEGER PRIMARY KEY,
  confirmation_id INTEGER NOT NULL REFERENCES confirmations (id),
  config_id INTEGER NOT NULL REFERENCES configs (id),
  status TEXT NOT NULL
    CHECK (status IN ('ok', 'compile_error', 'runtime_error', 'crashed', 'timeout')),
  samples_json TEXT NOT NULL DEFAULT '[]', -- raw samples in ms, one per round
  median_ms REAL,
  spread REAL,                           -- (p75 - p25) / median
  error_text TEXT NOT NULL DEFAULT '',
  UNIQUE (confirmation_id, config_id)
);

CREATE INDEX confirmations_by_pair ON confirmations (device_id, problem_id, template_id);

-- Version 4: each ok measurement's median in the latest confirmation of its
-- (device, problem, template version), when it took part and that
-- confirmation still stands: the fastest config by median is one of those it
-- compared (a faster config measured since makes it stale). Winners are
-- ranked by this first, then by median.
CREATE VIEW confirmed_medians AS
WITH latest AS (
  SELECT device_id, problem_id, template_id, MAX(id) AS confirmation_id
  FROM confirmations GROUP BY device_id, problem_id, template_id
),
fastest AS (
  SELECT device_id, problem_id, template_id, config_id FROM (
    SELECT m.device_id, m.problem_id, c.template_id, m.config_id,
           ROW_NUMBER() OVER (PARTITION BY m.device_id, m.problem_id, c.template_id
                              ORDER BY m.median_ms, m.id) AS rank_by_median
    FROM measurements m JOIN configs c ON c.id = m.config_id
    WHERE m.status = 'ok' AND m.median_ms IS NOT NULL)
  WHERE rank_by_median = 1
)
SELECT m.id AS measurement_id, r.median_ms AS confirmed_ms, l.confirmation_id
FROM measurements m
JOIN configs c ON c.id = m.config_id
JOIN latest l ON l.device_id = m.device_id AND l.problem_id = m.problem_id
             AND l.template_id = c.template_id
JOIN confirmation_results r ON r.confirmation_id = l.confirmation_id
                           AND r.config_id = m.config_id AND r.status = 'ok'
JOIN fastest f ON f.device_id = m.device_id AND f.problem_id = m.problem_id
              AND f.template_id = c.template_id
WHERE m.status = 'ok' AND r.median_ms IS NOT NULL
  AND EXISTS (SELECT 1 FROM confirmation_results fr
              WHERE fr.confirmation_id = l.confirmation_id AND fr.config_id = f.config_id);

-- Version 5: the state of a pair's search that its measurements do not hold:
-- the measurement id below which its transfer set reads (the trials of the
-- template on other problems and devices), fixed when the search starts, so
-- a resumed search, or a device sharing it, learns from the same trials.
CREATE TABLE searches (
  device_id INTEGER NOT NULL REFERENCES devices (id),
  problem_id INTEGER NOT NULL REFERENCES problems (id),
  template_id INTEGER NOT NULL REFERENCES templates (id),
  transfer_before_id INTEGER NOT NULL,
  -- Version 8: the proposed configs the search keeps ahead of its
  -- measurements, the largest any of its runs had (its trajectory depends
  -- on it); NULL for one begun before.
  lead INTEGER,
  PRIMARY KEY (device_id, problem_id, template_id)
);

-- Version 6: failed outcomes that `beast tune --retry-failed` measured again,
-- kept as history; the measurements row with the same id holds the new one.
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
  attempts INTEGER NOT NULL DEFAULT 1,
  prepare_ms REAL,
  -- Version 9: the rest of the superseded outcome (NULL in rows superseded
  -- before).
  spread REAL,
  gflops REAL,
  max_error REAL,
  registers INTEGER,
  spill_bytes INTEGER,
  stack_bytes INTEGER,
  shared_bytes INTEGER
);

CREATE INDEX superseded_by_measurement ON superseded_measurements (measurement_id);
