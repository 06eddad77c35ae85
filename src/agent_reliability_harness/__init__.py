"""ARH, the Agent Reliability Harness: validate recorded agent traces against a policy.

The public Python API lives in :mod:`agent_reliability_harness.api`; the most
used names are re-exported here, imported on first use so that `arh --version`
and other light entry points stay fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .version import __version__

if TYPE_CHECKING:
    from .api import (
        load_policies,
        load_policy,
        load_traces,
        validate,
        validate_paths,
        validate_trace,
    )
    from .compare import Comparison, GateMode, GateOptions
    from .compare import compare as compare_reports
    from .errors import ArhError, InputError, PolicyError, ReportError, TraceError
    from .guard import Decision, Guard
    from .models import Finding, Policy, RunReport, Step, Trace, TraceReport
    from .models.baseline import load_report, parse_report

# Public name -> (module, attribute).
_LAZY: dict[str, tuple[str, str]] = {
    "load_policies": (".api", "load_policies"),
    "load_policy": (".api", "load_policy"),
    "load_traces": (".api", "load_traces"),
    "validate": (".api", "validate"),
    "validate_paths": (".api", "validate_paths"),
    "validate_trace": (".api", "validate_trace"),
    "Comparison": (".compare", "Comparison"),
    "GateMode": (".compare", "GateMode"),
    "GateOptions": (".compare", "GateOptions"),
    "compare_reports": (".compare", "compare"),
    "ArhError": (".errors", "ArhError"),
    "InputError": (".errors", "InputError"),
    "PolicyError": (".errors", "PolicyError"),
    "ReportError": (".errors", "ReportError"),
    "TraceError": (".errors", "TraceError"),
    "Finding": (".models", "Finding"),
    "Guard": (".guard.api", "Guard"),
    "Decision": (".guard.api", "Decision"),
    "Policy": (".models", "Policy"),
    "RunReport": (".models", "RunReport"),
    "Step": (".models", "Step"),
    "Trace": (".models", "Trace"),
    "TraceReport": (".models", "TraceReport"),
    "load_report": (".models.baseline", "load_report"),
    "parse_report": (".models.baseline", "parse_report"),
}


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(target[0], __name__), target[1])
    globals()[name] = value
    return value


__all__ = [
    "ArhError",
    "Comparison",
    "Decision",
    "Finding",
    "GateMode",
    "GateOptions",
    "Guard",
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
    "load_policies",
    "load_policy",
    "load_report",
    "load_traces",
    "parse_report",
    "validate",
    "validate_paths",
    "validate_trace",
]
