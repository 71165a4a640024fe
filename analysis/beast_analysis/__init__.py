"""beast_analysis: reads a beast result database (winners, status counts, ...).

Opens databases read-only, so it is safe beside a running `beast tune`.
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
    "SCHEMA_VERSION",
    "MEASUREMENT_STATUSES",
    "BeastDatabaseError",
    "connect",
    "status_counts",
    "winners",
]
