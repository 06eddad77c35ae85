"""Builders for compare tests: report dicts in the contract's shape, and CLI runs in-process."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.models.baseline import parse_report
from agent_reliability_harness.models.report import RunReport

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "samples"
DATA = Path(__file__).resolve().parent / "data"


def finding(
    rule_id: str | None = "ARH-SCH-003",
    severity: str = "error",
    category: str = "schema",
    step_id: str | None = "s1",
    message: str = "something is wrong",
    **extra: Any,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "rule_id": rule_id,
        "severity": severity,
        "category": category,
        "message": message,
        "step_id": step_id,
    }
    if rule_id is None:
        del out["rule_id"]  # v0.1 reports have no key at all
    out.update(extra)
    return out


def trace(
    trace_id: str,
    findings: list[dict[str, Any]] | None = None,
    passed: bool | None = None,
    score: float | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A per-trace report; passed/score default to what the findings imply."""
    findings = findings or []
    errors = any(f["severity"] == "error" for f in findings)
    out: dict[str, Any] = {
        "trace_id": trace_id,
        "agent_name": "agent",
        "workflow": "flow",
        "policy_id": "p1",
        "score": (90.0 if errors else 100.0) if score is None else score,
        "passed": (not errors) if passed is None else passed,
        "total_latency_ms": 1000,
        "total_cost_usd": 0.01,
        "total_tokens": 100,
        "citation_coverage": None,
        "source_path": f"traces/{trace_id}.json",
        "findings": findings,
    }
    out.update(extra)
    return out


def report(*traces: dict[str, Any], **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"schema_version": "1", "policy_id": "p1", "reports": list(traces)}
    out.update(extra)
    return out


def run_of(data: dict[str, Any]) -> RunReport:
    return parse_report(data)


def cli(*argv: str, stdin: bytes = b"") -> tuple[int, str, str]:
    """Run `arh` in-process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(out, err, io.BytesIO(stdin)))
    return code, out.getvalue(), err.getvalue()
