"""The SARIF log written a trace at a time (render/sarif_stream.py) is the log that
`sarif.render_run` writes from the whole run, byte for byte: for any findings, with
repeated trace ids (their fingerprints count earlier occurrences) and with the results
cap cutting at any severity."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_reliability_harness.models.common import Severity
from agent_reliability_harness.models.report import Finding, RunReport, TraceReport
from agent_reliability_harness.render import sarif
from agent_reliability_harness.render.base import RenderOptions
from agent_reliability_harness.render.sarif_stream import SarifWriter, trace_fragment

RULES = ("ARH-SCH-005", "ARH-BUD-002", "ARH-SEQ-001", None)
SEVERITIES = tuple(Severity)


@st.composite
def findings(draw: st.DrawFn) -> Finding:
    step = draw(st.sampled_from([None, "s1", "s2"]))
    return Finding(
        draw(st.sampled_from(RULES)),
        draw(st.sampled_from(SEVERITIES)),
        draw(st.sampled_from(["schema", "budget"])),
        # Control characters, quotes and %-format specifiers included.
        draw(st.text(max_size=12) | st.sampled_from(["%s", "%%s", "100%", "%(x)d"])),
        step_id=step,
        step_index=None if step is None else int(step[1]),
    )


@st.composite
def reports(draw: st.DrawFn) -> TraceReport:
    found = draw(st.lists(findings(), max_size=5))
    return TraceReport(
        draw(st.sampled_from(["t1", "t2", "t\x1f3", "t%s"])),
        "agent",
        "flow",
        "p",
        100.0,
        not found,
        None,
        None,
        None,
        None,
        draw(st.sampled_from(["a.jsonl", None])),
        tuple(found),
        source_line=draw(st.integers(1, 9)),
        step_lines=(3, 4, 5),
    )


@settings(max_examples=150, deadline=None)
@given(traces=st.lists(reports(), max_size=6), cap=st.integers(1, 12))
def test_streamed_sarif_is_the_whole_run_log(traces: list[TraceReport], cap: int) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sarif, "MAX_RESULTS", cap)
        _same_log(traces)


def _same_log(traces: list[TraceReport]) -> None:
    run = RunReport.build("p", tuple(traces))
    writer = SarifWriter()
    for report in traces:
        writer.add(trace_fragment(report))
    empty = RunReport("p", (), run.input_errors, run.summary, run.sections, run.plugins)
    streamed = "".join(writer.pieces(empty, RenderOptions()))
    assert streamed == sarif.render_run(run, RenderOptions())


@given(
    st.text(),
    st.none() | st.text(),
    st.text(),
    st.none() | st.text(),
    st.integers(0, 10**6),
)
def test_fingerprints_hash_the_json_of_their_key(
    trace_id: str, rule_id: str | None, category: str, step_id: str | None, occurrence: int
) -> None:
    key: list[object] = [trace_id, rule_id, category, step_id]
    if occurrence:
        key.append(occurrence)
    text = json.dumps(key, separators=(",", ":"))  # lone surrogates too
    expected = hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert sarif.key_fingerprint(trace_id, rule_id, category, step_id, occurrence) == expected
