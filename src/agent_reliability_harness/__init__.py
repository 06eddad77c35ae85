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
from .compare import Comparison, GateMode, GateOptions
from .compare import compare as compare_reports
from .errors import ArhError, InputError, PolicyError, ReportError, TraceError
from .models import Finding, Policy, RunReport, Step, Trace, TraceReport
from .models.baseline import load_report, parse_report
from .version import __version__

__all__ = [
    "ArhError",
    "Comparison",
    "Finding",
    "GateMode",
    "GateOptions",
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
    "compare_reports",
    "load_policy",
    "load_report",
    "load_traces",
    "parse_report",
    "validate",
    "validate_paths",
    "validate_trace",
]
