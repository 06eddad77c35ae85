"""Data models: canonical traces, compiled policies and reports (parse at the boundary)."""

from __future__ import annotations

from .common import Category, Severity, Status, StepType
from .policy import ArgSpec, Budgets, Completion, ErrorHandling, Grounding, Policy, ToolSchema
from .report import Finding, InputFailure, RunReport, Summary, SummaryBuilder, TraceReport
from .trace import Step, Trace, parse_trace

__all__ = [
    "ArgSpec",
    "Budgets",
    "Category",
    "Completion",
    "ErrorHandling",
    "Finding",
    "Grounding",
    "InputFailure",
    "Policy",
    "RunReport",
    "Severity",
    "Status",
    "Step",
    "StepType",
    "Summary",
    "SummaryBuilder",
    "ToolSchema",
    "Trace",
    "TraceReport",
    "parse_trace",
]
