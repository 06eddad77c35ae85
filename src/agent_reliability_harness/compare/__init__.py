"""Regression compare: a baseline report against a candidate, and the CI gate over the result.

Pure; rendering lives in render/, file handling and exit codes in cli/.
"""

from __future__ import annotations

from .engine import GateOptions, check_unique_ids, compare, decide, index_reports
from .matching import MatchResult, fingerprint, match_findings
from .model import (
    Comparison,
    Gate,
    GateMode,
    GateReason,
    ReasonKind,
    RunSide,
    TraceComparison,
    TraceStatus,
    Transition,
)

__all__ = [
    "Comparison",
    "Gate",
    "GateMode",
    "GateOptions",
    "GateReason",
    "MatchResult",
    "ReasonKind",
    "RunSide",
    "TraceComparison",
    "TraceStatus",
    "Transition",
    "check_unique_ids",
    "compare",
    "decide",
    "fingerprint",
    "index_reports",
    "match_findings",
]
