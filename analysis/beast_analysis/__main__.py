"""`python -m beast_analysis SUBCOMMAND ...`: the Python side of the beast
verbs report, import and export-results (see cli.py)."""

import sys

from beast_analysis.cli import main

sys.exit(main())
