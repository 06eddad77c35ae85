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
from agent_reliability_harness.pipeline.documents import _MARKERS
from helpers import ROOT

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
