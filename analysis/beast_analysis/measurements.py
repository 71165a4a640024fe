"""Every measurement of a database as one table (a pandas DataFrame), for the
report and the T4 export.

Only the newest version of a template is kept per (device, problem, template
name), as winners() chooses it (the version of the last ok measurement; of
the last measurement where none ran ok): an edited template is a new space,
and its old timings would mix two spaces in one distribution. Filters match exactly and
a filter naming nothing in the database is an error, since it is most likely
a typo.
"""

import contextlib
import json

from beast_analysis.db import connect
from beast_analysis.errors import InputError

_SQL = """
SELECT m.id AS measurement_id, m.run_id, m.device_id, d.name AS device, d.backend,
       d.driver_version AS driver, d.limits_json,
       m.problem_id, p.key AS problem, p.op, p.flops, c.template_id, t.name AS template,
       t.hash AS template_hash, m.config_id, c.config_key AS config, c.params_json,
       m.is_default, m.status, m.samples_json, m.median_ms, m.spread, m.gflops, m.max_error,
       m.compile_ms, m.error_text, m.created_at, m.strategy
FROM measurements m
JOIN devices d ON d.id = m.device_id
JOIN problems p ON p.id = m.problem_id
JOIN configs c ON c.id = m.config_id
JOIN templates t ON t.id = c.template_id
ORDER BY m.id
"""

COLUMNS = (
    "measurement_id",
    "run_id",
    "device_id",
    "device",
    "backend",
    "driver",
    "limits_json",
    "problem_id",
    "problem",
    "op",
    "flops",
    "template_id",
    "template",
    "template_hash",
    "config_id",
    "config",
    "params_json",
    "is_default",
    "status",
    "samples_json",
    "median_ms",
    "spread",
    "gflops",
    "max_error",
    "compile_ms",
    "error_text",
    "created_at",
    "strategy",
)


def _check_filter(frame, db_path, option, value):
    known = sorted(frame[option].unique())
    if value not in known:
        listed = ", ".join(known[:8]) + (", ..." if len(known) > 8 else "")
        raise InputError(
            f'--{option} "{value}": no such {option} in {db_path} ({option}s: {listed or "none"})'
        )


def load(db_path, *, device=None, problem=None, template=None, driver=None):
    """A DataFrame with one row per measurement: ids, device (name, backend,
    driver, limits_json), problem (key, op, flops), template (name, hash),
    config (key, params: dict), is_default, status, samples_json, median_ms,
    spread, gflops, max_error, compile_ms, error_text, created_at, strategy
    (what chose the config; "" before schema version 5). Filters: device
    name, problem key, template name, driver version (of the device: one
    name may have rows of several drivers, whose timings are not mixed)."""
    import pandas  # here, so that importing the package stays light

    with contextlib.closing(connect(db_path)) as connection:
        rows = [tuple(row) for row in connection.execute(_SQL)]
    frame = pandas.DataFrame(rows, columns=list(COLUMNS))
    filters = {"device": device, "problem": problem, "template": template, "driver": driver}
    for option, value in filters.items():
        if value is not None:
            _check_filter(frame, db_path, option, value)
            frame = frame[frame[option] == value]
    frame = frame[frame["template_id"] == _newest_versions(frame)].copy()
    frame["params"] = [json.loads(text) for text in frame["params_json"]]
    return frame.reset_index(drop=True)


def _newest_versions(frame):
    """Per row, the template version its (device, problem, template name) keeps:
    that of the last ok measurement there (by run, then id), else of the last
    measurement."""
    keys = ["device_id", "problem_id", "template"]
    ok = (frame["status"] == "ok") & frame["median_ms"].notna()
    # Ok rows sort after the others, then by id: each group's last row decides.
    order = frame.assign(_ok=ok).sort_values(["_ok", "run_id", "measurement_id"])
    last = order.groupby(keys)["template_id"].last()
    return frame.join(last.rename("_newest"), on=keys)["_newest"]


def param_names(frame, template):
    """The parameters of a template in their space order (the order of params_json)."""
    names = []
    for params in frame.loc[frame["template"] == template, "params"]:
        for name in params:
            if name not in names:
                names.append(name)
    return names
