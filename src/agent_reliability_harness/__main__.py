"""`python -m agent_reliability_harness` runs the `arh` command line."""

from __future__ import annotations

import sys

from .cli import main

sys.exit(main())
