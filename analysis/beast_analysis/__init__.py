"""beast_analysis: reads a beast result database (winners, status counts, ...).

The readers open databases read-only, so they are safe beside a running
`beast tune`. The modules behind `beast report` (report.py), `beast import`
(kernel_tuner_import.py) and `beast export-results` (t4_export.py) run as
`python -m beast_analysis SUBCOMMAND` (cli.py); only the import writes.
"""

from beast_analysis.db import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    BeastDatabaseError,
    connect,
)
from beast_analysis.queries import MEASUREMENT_STATUSES, status_counts, winners

__all__ = [
    "APPLICATION_ID",
    "MEASUREMENT_STATUSES",
    "SCHEMA_VERSION",
    "BeastDatabaseError",
    "connect",
    "status_counts",
    "winners",
]
