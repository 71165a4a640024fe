"""The name the report gives each device row of a database.

A device row is (backend, name, driver_version): the same GPU under another
driver or backend is another row, and its timings are another distribution.
The report groups and labels by this text, so two rows of one name are never
drawn as one device: a name held by one row is shown as it is, a name held by
several gets its backend and driver, e.g. "NVIDIA H100 (cuda, driver 550.54)".
"""

import collections
import contextlib

from beast_analysis.db import connect


def labels(db_path):
    """{device_id: label} for every device row of the database."""
    with contextlib.closing(connect(db_path)) as connection:
        rows = connection.execute(
            "SELECT id, backend, name, driver_version FROM devices"
        ).fetchall()
    per_name = collections.Counter(row["name"] for row in rows)
    return {
        row["id"]: row["name"]
        if per_name[row["name"]] == 1
        else f"{row['name']} ({row['backend']}, driver {row['driver_version'] or 'unknown'})"
        for row in rows
    }


def relabel(db_path, frame, *row_lists):
    """frame["device"] and each row dict's "device" (rows carrying device_id)
    become the device's label; frame is changed in place, rows too."""
    by_id = labels(db_path)
    frame["device"] = [by_id[int(i)] for i in frame["device_id"]]
    for rows in row_lists:
        for row in rows:
            row["device"] = by_id[int(row["device_id"])]
