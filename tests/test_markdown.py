"""Markdown renderer: escaping, trace listing order and the GitHub comment budget."""

from __future__ import annotations

import re

import pytest
from msgspec.structs import replace

from agent_reliability_harness.models.common import Severity
from agent_reliability_harness.models.report import Finding, InputFailure, RunReport, TraceReport
from agent_reliability_harness.render import RenderOptions, markdown
from agent_reliability_harness.render._escape import md_code, md_text
from synthetic import synthetic_run

pytestmark = pytest.mark.usefixtures("at_repo_root")  # inputs are read by relative path


def _names_in_order(text: str) -> list[str]:
    return re.findall(r"^#### (?:PASS|FAIL) `([^`]+)`", text, flags=re.MULTILINE)


def test_every_trace_named_and_failures_first(mixed_run: RunReport) -> None:
    text = markdown.render_run(mixed_run, RenderOptions())
    for report in mixed_run.reports:  # ids appear verbatim, in code spans
        assert f"`{report.trace_id}`" in text
    assert _names_in_order(text)[:2] == ["mixed-fail-03", "mixed-jsonl-04"]
    assert "Truncated" not in text
    assert "tests/data/mixed/unreadable.json" in text


def test_code_spans_show_ids_verbatim() -> None:
    assert md_code("refund_ok_0001") == "`refund_ok_0001`"
    assert md_code("a``b") == "```a``b```"
    assert md_code("`x") == "`` `x ``"
    assert md_code("a|b", in_table=True) == "`a\\|b`"
    assert md_code("a\x1bb") == "`a\\u001bb`"


def test_cells_cannot_break_the_table_or_mention() -> None:
    cell = md_text("a|b\nc @octocat <script>`x`</script> [l](http://x) $x$")
    assert "|" not in cell.replace("\\|", "")
    assert "\n" not in cell
    assert "@octocat" not in cell
    assert "<script>" not in cell
    assert "\\`x\\`" in cell


def _report(index: int, findings: int) -> TraceReport:
    found = tuple(
        Finding(
            rule_id="ARH-SAF-001",
            severity=Severity.ERROR,
            category="safety",
            message=f"unsafe pattern matched in text number {n} " + "x" * 200,
            step_id=f"s{n}",
            step_index=n,
        )
        for n in range(findings)
    )
    return TraceReport(
        trace_id=f"t-{index:05d}",
        agent_name="agent",
        workflow="wf",
        policy_id="p",
        score=50.0 if findings else 100.0,
        passed=not findings,
        total_latency_ms=None,
        total_cost_usd=None,
        total_tokens=None,
        citation_coverage=None,
        source_path="traces.jsonl",
        findings=found,
        source_line=index + 1,
    )


def test_truncates_within_budget_with_a_note() -> None:
    reports = tuple(_report(i, 3 if i % 2 else 0) for i in range(2_000))
    run = RunReport.build("p", reports)
    text = markdown.render_run(run, RenderOptions())
    assert len(text.encode("utf-8")) <= markdown.BUDGET
    note = re.search(
        r"\*\*Truncated:\*\* (\d+) of (\d+) entries .*\((\d+) failed traces, "
        r"(\d+) passed traces\)",
        text,
    )
    assert note is not None
    left_out, total, failed, passed = map(int, note.groups())
    assert total == 2_000 and left_out == failed + passed
    shown = _names_in_order(text) + re.findall(r"^\| `(t-\d+)` \|", text, flags=re.MULTILINE)
    assert len(shown) == total - left_out
    # Failing traces come first, so the passing ones are the first to go.
    assert passed == 1_000 and failed < 1_000
    assert all(name in {f"t-{i:05d}" for i in range(1, 2_000, 2)} for name in shown)


def test_findings_per_trace_are_capped() -> None:
    run = RunReport.build("p", (_report(0, markdown.MAX_FINDINGS_PER_TRACE + 7),))
    text = markdown.render_run(run, RenderOptions())
    assert "...and 7 more findings" in text


def test_synthetic_runs_fit_one_comment() -> None:
    text = markdown.render_run(synthetic_run(3_000), RenderOptions())
    size = len(text.encode("utf-8"))
    assert size <= markdown.BUDGET
    assert "Truncated" in text
    assert len(markdown._truncation_note([], 0)) < markdown._NOTE_ROOM  # room kept for the note


def test_one_trace_cannot_fill_the_comment() -> None:
    report = _report(0, 40)
    wide = tuple(replace(f, message="\u20ac" * 600) for f in report.findings)
    text = markdown.render_run(
        RunReport.build("p", (replace(report, findings=wide),)), RenderOptions()
    )
    rows = text.count("| error | [ARH-SAF-001] |")
    assert 0 < rows < 40
    assert f"...and {40 - rows} more findings" in text
    assert len(text.encode("utf-8")) < markdown.MAX_TRACE_BYTES + 4_000


def test_unreadable_inputs_cannot_crowd_out_failures() -> None:
    failures = tuple(InputFailure(f"bad-{n}.json", "invalid JSON " + "x" * 400) for n in range(500))
    run = RunReport.build("p", (_report(1, 2),), failures)
    text = markdown.render_run(run, RenderOptions())
    assert text.count("invalid JSON") == markdown.MAX_INPUTS_LISTED
    assert f"...and {500 - markdown.MAX_INPUTS_LISTED} more unreadable inputs" in text
    assert "#### FAIL `t-00001`" in text
