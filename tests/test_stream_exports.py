"""Span exports split into batches (one per JSONL line) validate whole, whatever --jobs is."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_reliability_harness.adapters import EXPORT_MARKERS
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.pipeline import executors
from agent_reliability_harness.pipeline.exports import _MARKERS
from helpers import ROOT, make_trace, response

FIX = ROOT / "tests" / "adapters" / "fixtures"
POLICY = {
    "policy_id": "p",
    "allow_unlisted_tools": True,
    "error_handling": {"require_retry_on_error": True},
}


def _report(args: list[str]) -> dict[str, object]:
    out, err = io.StringIO(), io.StringIO()
    main(args, Streams(out, err, io.BytesIO()))
    assert err.getvalue() == ""
    return json.loads(out.getvalue())  # type: ignore[no-any-return]


def _split(fixture: Path, target: Path) -> None:
    export = json.loads(fixture.read_text(encoding="utf-8"))
    if "resourceSpans" in export:
        lines = [{"resourceSpans": [rs]} for rs in export["resourceSpans"]]
        spans = [
            s for rs in export["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]
        ]
        if len(lines) == 1 and len(spans) > 1:
            rs = export["resourceSpans"][0]
            scope = rs["scopeSpans"][0]
            lines = [
                {"resourceSpans": [dict(rs, scopeSpans=[dict(scope, spans=[span])])]}
                for span in scope["spans"]
            ]
    else:
        lines = [{"data": [item]} for item in export["data"]]
    target.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


@pytest.mark.parametrize("fixture", ["otel-genai/retry.json", "openai-agents/retry.json"])
def test_split_export_equals_whole_export(tmp_path: Path, fixture: str) -> None:
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps(POLICY))
    split = tmp_path / "spans.jsonl"
    _split(FIX / fixture, split)
    base = ["validate", "--policy", str(policy), "--quiet", "--json-out", "-"]
    whole = _report([*base, str(FIX / fixture)])["reports"]
    for jobs in ("1", "2"):
        parts = _report([*base, "--jobs", jobs, str(split)])["reports"]
        assert isinstance(parts, list) and isinstance(whole, list)
        assert [r["findings"] for r in parts] == [r["findings"] for r in whole]
        assert [r["score"] for r in parts] == [r["score"] for r in whole]


PIECES = st.sampled_from(
    [*EXPORT_MARKERS, b'"', b"data", b"object", b"resourceSpans", b"{", b":", b"\xc3\xa9", b"x"]
)


@given(st.lists(PIECES, max_size=12).map(b"".join))
def test_export_marker_scan_is_a_substring_test(data: bytes) -> None:
    assert (_MARKERS.search(data) is not None) == any(marker in data for marker in EXPORT_MARKERS)


def _run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def _with_bad_lines(tmp_path: Path, bad_after: set[int]) -> Path:
    """The otel-genai retry export one span a line, an unreadable line after the given
    lines, then a canonical trace line (not part of the export)."""
    split = tmp_path / "split.jsonl"
    _split(FIX / "otel-genai/retry.json", split)
    lines: list[str] = []
    for number, line in enumerate(split.read_text().splitlines(), 1):
        lines.append(line)
        if number in bad_after:
            lines.append(line[: len(line) // 2])  # cut mid-line, as a truncated write
    lines.append(json.dumps(make_trace(response("s1"), trace_id="plain")))
    target = tmp_path / "spans.jsonl"
    target.write_text("\n".join(lines) + "\n")
    return target


@pytest.mark.parametrize(
    ("bad_after", "errors"),
    [
        ({3}, ["4"]),  # one unreadable line inside the export: refused with it
        ({1, 2}, ["2", "4"]),  # one after each of the first two batches: two refusals
    ],
)
def test_an_unreadable_line_next_to_export_batches_refuses_the_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad_after: set[int], errors: list[str]
) -> None:
    """Never a verdict on the spans that could be read: the unreadable line may hold
    more of them. The same errors and report on every executor and chunk size."""
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps(POLICY))
    target = _with_bad_lines(tmp_path, bad_after)
    base = ["validate", "--policy", str(policy), "--quiet", "--json-out", "-", str(target)]
    code, out, err = first = _run([*base, "--jobs", "1"])
    assert code == 1
    assert [line.split(":")[2] for line in err.splitlines()] == errors
    assert "(span export refused: its batches at line" in err.splitlines()[0]
    assert [r["trace_id"] for r in json.loads(out)["reports"]] == ["plain"]
    monkeypatch.setattr(executors, "CHUNK_BYTES", 1)
    monkeypatch.setattr(executors, "CHUNK_UNITS", 1)
    assert _run([*base, "--jobs", "1"]) == first
    assert _run([*base, "--jobs", "2"]) == first


def test_a_truncated_last_line_refuses_the_export_before_it(tmp_path: Path) -> None:
    split = tmp_path / "split.jsonl"
    _split(FIX / "otel-genai/retry.json", split)
    lines = split.read_text().splitlines()
    split.write_text("\n".join([*lines[:-1], lines[-1][:40]]))
    code, out, err = _run(["convert", str(split)])
    assert (code, out) == (1, "")
    assert err.startswith(f"error: {split}:{len(lines)}: invalid JSON: ")
    assert err.endswith(
        f"(span export refused: its batches at lines 1-{len(lines) - 1} are not judged)\n"
    )


def test_a_json_array_of_export_requests_reads_as_their_lines(tmp_path: Path) -> None:
    split = tmp_path / "split.jsonl"
    _split(FIX / "otel-genai/retry.json", split)
    requests = [json.loads(line) for line in split.read_text().splitlines()]
    assert len(requests) > 1
    (tmp_path / "array").mkdir()
    array = tmp_path / "array" / "split.json"  # the same stem: the same workflow name
    array.write_text(json.dumps(requests))
    as_lines = _run(["convert", str(split)])
    assert as_lines[0] == 0
    assert _run(["convert", str(array)]) == as_lines
    assert _run(["convert", "--format", "otel-genai", str(array)]) == as_lines
