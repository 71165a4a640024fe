-- Schema version 3 -> 4: confirmations of each pair's winner (the interleaved
-- re-measurement of its top configs) and the view that ranks winners by them.
-- Run by beast in one transaction with the check of the version it upgrades
-- from; the text of each CREATE below is the one in schema.sql.
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

PRAGMA user_version = 4;
