"""Standard questions asked of a beast result database.

winners() picks the same rows as the C++ store's Winners() and
Query(best_only) (results_db/src/store_query.cpp): per (device, problem,
template) the ok measurement with the lowest median (first recorded on a tie),
from the newest version of the template that has one there (the version of
its last ok measurement, by run then id: an edit put back is the first version
again once a run measures it), with its speedup
over that template version's default config.
"""

import contextlib
import json

from beast_analysis.db import connect

# In the schema's order (results_db/schema.sql).
MEASUREMENT_STATUSES = (
    "ok",
    "compile_error",
    "runtime_error",
    "crashed",
    "timeout",
    "wrong_result",
    "pruned_after_compile",
    "compiled",
)

# Filters are bound parameters: :device (name), :problem (key), :template (name).
_FILTER = """
  (:device IS NULL OR d.name = :device) AND (:problem IS NULL OR p.key = :problem)
  AND (:template IS NULL OR t.name = :template)
"""

_WINNERS_SQL = f"""
WITH confirmed AS MATERIALIZED (
  SELECT measurement_id, confirmed_ms, confirmation_id FROM confirmed_medians
),
ok_rows AS (
  SELECT m.id AS measurement_id, m.run_id, m.device_id, d.backend, d.name AS device_name, d.vendor,
         d.driver_version, d.arch, m.problem_id, p.key AS problem_key, p.op, c.template_id,
         t.name AS template_name, t.hash AS template_hash, t.source_path, c.config_key,
         c.params_json, m.median_ms, m.spread, m.gflops, m.prepare_ms,
         (SELECT dm.median_ms FROM measurements dm JOIN configs dc ON dc.id = dm.config_id
           WHERE dm.device_id = m.device_id AND dm.problem_id = m.problem_id
             AND dc.template_id = c.template_id AND dm.is_default = 1
             AND dm.status = 'ok' AND dm.median_ms > 0
           ORDER BY dm.id LIMIT 1) AS default_ms,
         cm.confirmed_ms,
         (SELECT dcm.confirmed_ms FROM measurements dm JOIN configs dc ON dc.id = dm.config_id
            JOIN confirmed dcm ON dcm.measurement_id = dm.id
           WHERE dm.device_id = m.device_id AND dm.problem_id = m.problem_id
             AND dc.template_id = c.template_id AND dm.is_default = 1
             AND dcm.confirmation_id = cm.confirmation_id
           ORDER BY dm.id LIMIT 1) AS default_confirmed_ms
  FROM measurements m
  LEFT JOIN confirmed cm ON cm.measurement_id = m.id
  JOIN devices d ON d.id = m.device_id
  JOIN problems p ON p.id = m.problem_id
  JOIN configs c ON c.id = m.config_id
  JOIN templates t ON t.id = c.template_id
  WHERE m.status = 'ok' AND m.median_ms IS NOT NULL AND {_FILTER}
),
-- The confirmation that stands for a pair ranks first (as beast query --best).
ranked AS (
  SELECT ok_rows.*,
         ROW_NUMBER() OVER (PARTITION BY device_id, problem_id, template_id
                            ORDER BY confirmed_ms IS NULL, confirmed_ms, median_ms,
                                     measurement_id) AS rank_in_version,
         FIRST_VALUE(template_id) OVER (PARTITION BY device_id, problem_id, template_name
                                        ORDER BY run_id DESC, measurement_id DESC)
           AS newest_template_id
  FROM ok_rows
)
SELECT * FROM ranked
WHERE rank_in_version = 1 AND template_id = newest_template_id
ORDER BY device_name, device_id, problem_key, template_name, template_id
"""

_STATUS_SQL = f"""
SELECT m.status, count(*) AS n
FROM measurements m
JOIN devices d ON d.id = m.device_id
JOIN problems p ON p.id = m.problem_id
JOIN configs c ON c.id = m.config_id
JOIN templates t ON t.id = c.template_id
WHERE {_FILTER}
GROUP BY m.status
"""


def _speedup_over_default(row):
    """Default's time / the row's, like against like: their medians in the
    confirmation that stands when both took part in it (as beast query does),
    else their first medians; None without an ok default."""
    if row["confirmed_ms"] is not None and row["default_confirmed_ms"] is not None:
        default_ms, median_ms = row["default_confirmed_ms"], row["confirmed_ms"]
    else:
        default_ms, median_ms = row["default_ms"], row["median_ms"]
    if default_ms is None or median_ms is None or not median_ms > 0:
        return None
    return default_ms / median_ms


def winners(db_path, *, device=None, problem=None, template=None):
    """The best ok config per (device, problem, template), as a list of dicts.

    Each dict: device, device_id, backend, vendor, driver_version, arch,
    problem, op, template, template_hash, source_path, config, params (dict),
    median_ms, prepare_ms (the config's prepare stages, run once per weight
    buffer and not in median_ms; None without them), spread, gflops,
    default_ms, speedup_vs_default (None unless the
    default config of that template version was measured ok; the confirmed
    medians of both when both were confirmed together), confirmed_ms
    (its median in the interleaved re-measurement of its pair's top configs,
    which decides the winner where one stands; else None), default_confirmed_ms
    (the default's median in that same re-measurement, if it took part). Filters match
    exactly: device name, problem key, template name.
    """
    parameters = {"device": device, "problem": problem, "template": template}
    with contextlib.closing(connect(db_path)) as connection:
        rows = connection.execute(_WINNERS_SQL, parameters).fetchall()
    result = []
    for row in rows:
        default_ms = row["default_ms"]
        median_ms = row["median_ms"]
        speedup = _speedup_over_default(row)
        result.append(
            {
                "device": row["device_name"],
                "device_id": row["device_id"],
                "backend": row["backend"],
                "vendor": row["vendor"],
                "driver_version": row["driver_version"],
                "arch": row["arch"],
                "problem": row["problem_key"],
                "op": row["op"],
                "template": row["template_name"],
                "template_hash": row["template_hash"],
                "source_path": row["source_path"],
                "config": row["config_key"],
                "params": json.loads(row["params_json"]),
                "median_ms": median_ms,
                "prepare_ms": row["prepare_ms"],
                "spread": row["spread"],
                "gflops": row["gflops"],
                "default_ms": default_ms,
                "speedup_vs_default": speedup,
                "confirmed_ms": row["confirmed_ms"],
                "default_confirmed_ms": row["default_confirmed_ms"],
            }
        )
    return result


def status_counts(db_path, *, device=None, problem=None, template=None):
    """Measurements per status: a dict with every status in schema order, zeros included.

    Filters as for winners(): device name, problem key, template name.
    """
    parameters = {"device": device, "problem": problem, "template": template}
    with contextlib.closing(connect(db_path)) as connection:
        found = dict(connection.execute(_STATUS_SQL, parameters).fetchall())
    return {status: found.get(status, 0) for status in MEASUREMENT_STATUSES}
