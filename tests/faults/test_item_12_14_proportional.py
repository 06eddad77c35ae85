"""Issue 18 items 12-14, through the CLI: findings stay proportional (a 2,000-tool
call_order against the reversed trace: the first MAX_FINDINGS per rule and trace, then one
truthful "and N more"); ARH's own report with extreme totals is a valid baseline; JSONL
lines that merely hold `data` or `object` keys are not held as span-export batches."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import measure  # benchmarks/ (on the path via conftest)
from faultkit import OPEN, assert_clean, cli, write_json

from agent_reliability_harness.rules import MAX_FINDINGS
from helpers import make_trace, response, tool_call

TOOLS = [f"t{i:04d}" for i in range(2000)]


def test_a_huge_call_order_against_a_reversed_trace_is_capped(tmp_path: Path) -> None:
    policy = write_json(
        tmp_path / "p.json",
        {"policy_id": "order", "allow_unlisted_tools": True, "sequence": {"call_order": TOOLS}},
    )
    steps = [tool_call(f"s{i}", name, {}) for i, name in enumerate(reversed(TOOLS))]
    trace = write_json(tmp_path / "t.json", make_trace(*steps, response("end"), trace_id="rev"))
    report = tmp_path / "report.json"
    code, _, err = cli(
        ["validate", "--policy", str(policy), str(trace), "--quiet", "--json-out", str(report)]
    )
    assert (code, err) == (1, "")
    assert report.stat().st_size < 2 << 20
    [entry] = json.loads(report.read_text())["reports"]
    order = [f for f in entry["findings"] if f["rule_id"] == "ARH-SEQ-003"]
    pairs = len(TOOLS) * (len(TOOLS) - 1) // 2
    assert len(order) == MAX_FINDINGS + 1
    assert order[-1]["message"] == f"... and {pairs - MAX_FINDINGS} more ARH-SEQ-003 findings"
    assert order[-1]["observed"] == pairs - MAX_FINDINGS
    assert entry["score"] < 100  # every pair still counts towards the score
    code, _, err = cli(["compare", "--baseline", str(report), "--candidate", str(report)])
    assert (code, err) == (0, "")


def test_own_report_with_extreme_totals_is_a_valid_baseline(tmp_path: Path) -> None:
    top, most = 1.79e308, 2**63 - 1
    steps = [
        tool_call("s1", "t", {}, latency_ms=top, cost_usd=top, input_tokens=most),
        response("s2", latency_ms=top, cost_usd=top, output_tokens=most),
    ]
    trace = write_json(tmp_path / "t.json", make_trace(*steps, trace_id="extreme"))
    policy = write_json(tmp_path / "p.json", OPEN)
    report = tmp_path / "report.json"
    code, _, err = cli(["validate", "--policy", str(policy), str(trace), "--json-out", str(report)])
    assert (code, err) == (0, "")
    text = report.read_text()
    assert "Infinity" not in text and "NaN" not in text
    assert json.loads(text)["reports"][0]["total_tokens"] == 2 * most
    for candidate in (["--candidate", str(report)], ["--policy", str(policy), str(trace)]):
        code, _, err = cli(["compare", "--baseline", str(report), *candidate])
        assert_clean(err, code, (0,))


def _lookalike(number: int, pad: int) -> dict[str, Any]:
    meta = {"data": [{"object": "list", "n": number}], "object": "trace.span", "pad": "x" * pad}
    return make_trace(response("s1", metadata=meta), trace_id=f"t{number}", data=[1], object="list")


def test_lines_that_look_like_exports_keep_memory_flat(tmp_path: Path) -> None:
    policy = write_json(tmp_path / "p.json", OPEN)
    small, big = tmp_path / "small.jsonl", tmp_path / "big.jsonl"
    small.write_text("".join(json.dumps(_lookalike(n, 2000)) + "\n" for n in range(100)))
    big.write_text("".join(json.dumps(_lookalike(n, 2000)) + "\n" for n in range(8000)))
    args = ["validate", "--policy", str(policy), "--quiet", "--jobs", "1"]
    runs = [measure.run_arh([*args, str(path)], cwd=tmp_path) for path in (small, big)]
    assert [run.code for run in runs] == [0, 0], runs[1].stderr
    # Held as one export batch, 8,000 lines of ~2 KB would add ~50 MB; streamed, ~2 MB.
    assert runs[1].peak_rss - runs[0].peak_rss < 12 << 20
    code, out, err = cli([*args, str(big), "--json-out", "-"])
    assert (code, err) == (0, "")
    assert json.loads(out)["summary"]["total_traces"] == 8000
