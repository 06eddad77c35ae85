"""ARH, the Agent Reliability Harness: validate recorded agent traces against a policy.

The public Python API lives in :mod:`agent_reliability_harness.api`; the most
used names are re-exported here.
"""

from __future__ import annotations

from .api import (
    load_policy,
    load_traces,
    validate,
    validate_paths,
    validate_trace,
)
from .errors import ArhError, InputError, PolicyError, ReportError, TraceError
from .models import Finding, Policy, RunReport, Step, Trace, TraceReport
from .version import __version__

__all__ = [
    "ArhError",
    "Finding",
    "InputError",
    "Policy",
    "PolicyError",
    "ReportError",
    "RunReport",
    "Step",
    "Trace",
    "TraceError",
    "TraceReport",
    "__version__",
    "load_policy",
    "load_traces",
    "validate",
    "validate_paths",
    "validate_trace",
]
