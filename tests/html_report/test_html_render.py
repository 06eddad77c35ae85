"""The HTML report's bytes: golden files, streaming = whole, inert embedding, limits.

Regenerate the golden files with ARH_UPDATE_GOLDEN=1 and review the diff. What the
page does with these bytes is checked in a real browser (test_html_browser.py).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import pickle
import re
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import msgspec
import pytest
from html_helpers import OPTIONS, evaluated, run_of, streamed_html
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_reliability_harness.api import load_policy, validate, validate_paths
from agent_reliability_harness.compare import compare
from agent_reliability_harness.models.report import SummaryBuilder
from agent_reliability_harness.models.trace import parse_trace
from agent_reliability_harness.render import get_renderer
from agent_reliability_harness.render.html_report import (
    EmbedLimits,
    HtmlReportWriter,
    HtmlTable,
    render_compare_html,
    render_run_html,
    run_fragment,
    task_sections,
)
from agent_reliability_harness.render.html_report.encode import (
    STEP_FIELDS,
    StepFitter,
    script_json,
    trace_body,
)

pytestmark = pytest.mark.usefixtures("at_repo_root")  # inputs are read by relative path

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "html"
SAMPLES = ("tests/data/samples/policy.json", ["tests/data/samples/traces"])
MIXED = ("tests/data/samples/policy.json", ["tests/data/mixed"])
XSS = ("samples/policy.json", ["tests/data/html/xss.json"])
AGENTS = ("tests/data/agents/policy.json", ["tests/data/agents/traces"])
CLAIMS = ("tests/data/claims/policy.json", ["tests/data/claims/traces"])
CMP = "tests/compare/data"


def _compare_page() -> str:
    policy = load_policy(f"{CMP}/policy.json")
    baseline = validate_paths([f"{CMP}/baseline"], policy)
    _, pairs, failures = evaluated(f"{CMP}/policy.json", [f"{CMP}/candidate"])
    candidate = run_of(policy.policy_id, pairs, failures)
    traces = {report.trace_id: trace for report, trace in pairs}
    return render_compare_html(compare(baseline, candidate), traces, OPTIONS)


CASES: dict[str, Callable[[], str]] = {
    "samples": lambda: streamed_html(*SAMPLES),
    "mixed": lambda: streamed_html(*MIXED),
    "xss": lambda: streamed_html(*XSS),
    "agents": lambda: streamed_html(*AGENTS),
    "claims": lambda: streamed_html(*CLAIMS),  # policy v1.3: "Checked against: step ..."
    "compare": _compare_page,
}


class _Page(HTMLParser):
    """Every element of the page, with the text of each <script>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._script: dict[str, str | None] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._script, self._text = dict(attrs), []

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            self.scripts.append((self._script, "".join(self._text)))
            self._script = None


def _parse(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    page.close()
    return page


def _blocks(text: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(index, trace blocks in order) as the page's script reads them."""
    page = _parse(text)
    data = {a["id"]: json.loads(body) for a, body in page.scripts if a.get("id")}
    index = data.pop("arh-index")
    return index, [data[f"d{i}"] for i in range(len(index["traces"]))]


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_golden(case: str) -> None:
    text = CASES[case]()
    assert text == CASES[case](), "two renders differ"
    path = GOLDEN / f"{case}.html"
    if os.environ.get("ARH_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    assert text.encode("utf-8") == path.read_bytes(), f"{path} is stale (ARH_UPDATE_GOLDEN=1)"


def test_streaming_writer_equals_whole_run_render() -> None:
    policy_id, pairs, failures = evaluated(*MIXED)
    assert failures, "the mixed inputs include an unreadable file"
    run = run_of(policy_id, pairs, failures)
    whole = render_run_html(run, [trace for _, trace in pairs], OPTIONS)
    assert whole == streamed_html(*MIXED)


def test_fragments_rendered_elsewhere_give_the_same_page() -> None:
    """What a worker process would do: render each trace's fragment, pickle it back."""
    policy_id, pairs, failures = evaluated(*MIXED)
    run = run_of(policy_id, pairs, failures)
    out = io.StringIO()
    writer = HtmlReportWriter(out, policy_id, OPTIONS)
    for report, trace in pairs:
        writer.add_fragment(pickle.loads(pickle.dumps(run_fragment(report, trace))))
    for failure in failures:
        writer.add_failure(failure)
    writer.finish(run.summary)
    assert out.getvalue() == streamed_html(*MIXED)


def test_a_run_without_traces_is_a_valid_page() -> None:
    out = io.StringIO()
    HtmlReportWriter(out, "p", OPTIONS).finish(SummaryBuilder().build())
    index, blocks = _blocks(out.getvalue())
    assert index["traces"] == [] and blocks == [] and index["input_errors"] == []


def test_canonical_dicts_give_the_same_page_as_traces() -> None:
    policy_id, pairs, failures = evaluated(*SAMPLES)
    run = run_of(policy_id, pairs, failures)
    as_dicts = [json.loads(json.dumps(_canonical(trace))) for _, trace in pairs]
    with_traces = render_run_html(run, [trace for _, trace in pairs], OPTIONS)
    assert render_run_html(run, as_dicts, OPTIONS) == with_traces


def _canonical(trace: Any) -> dict[str, Any]:
    value: dict[str, Any] = msgspec.to_builtins(trace)
    return value


def test_registry_renders_findings_without_trace_bodies() -> None:
    policy_id, pairs, failures = evaluated(*SAMPLES)
    run = run_of(policy_id, pairs, failures)
    renderer = get_renderer("run", "html")
    assert renderer.needs_traces and renderer.suffix == ".html"
    assert get_renderer("compare", "html").needs_traces
    text = renderer.render(run, OPTIONS)
    assert text == render_run_html(run, None, OPTIONS)
    index, blocks = _blocks(text)
    assert all(block["trace"] is None for block in blocks)
    assert [len(b["report"]["findings"]) for b in blocks] == [len(r.findings) for r in run.reports]
    assert index["summary"] == run.summary.to_dict()


def test_index_and_blocks_hold_the_run() -> None:
    policy_id, pairs, failures = evaluated(*MIXED)
    index, blocks = _blocks(streamed_html(*MIXED))
    assert index["kind"] == "run" and index["policy_id"] == policy_id
    assert index["step_fields"] == list(STEP_FIELDS)
    assert [row["id"] for row in index["traces"]] == [r.trace_id for r, _ in pairs]
    assert index["input_errors"] == [f.to_dict() for f in failures]
    for (report, trace), row, block in zip(pairs, index["traces"], blocks, strict=True):
        assert row["pass"] == report.passed and row["score"] == report.score
        assert row["sev"] == [
            sum(f.severity.value == s for f in report.findings) for s in index["severities"]
        ]
        assert row["rules"] == sorted({f.rule_id for f in report.findings if f.rule_id})
        assert len(block["trace"]["steps"]) == len(trace.steps)
        for finding, shown in zip(report.findings, block["report"]["findings"], strict=True):
            assert shown["message"] == finding.message
            assert shown.get("step_index") == finding.step_index
    rules = set(index["rules"])
    assert rules == {f.rule_id for r, _ in pairs for f in r.findings if f.rule_id}
    assert all(v["url"].startswith("https://") for v in index["rules"].values())


def test_steps_round_trip_through_the_compact_form() -> None:
    _, pairs, _ = evaluated(*XSS)
    _, blocks = _blocks(streamed_html(*XSS))
    (_, trace), block = pairs[0], blocks[0]
    for step, compact in zip(trace.steps, block["trace"]["steps"], strict=True):
        row = compact + [None] * (len(STEP_FIELDS) - len(compact))
        values = dict(zip(STEP_FIELDS, row, strict=True))
        assert values["step_id"] == step.step_id
        assert values["type"] == {"tool_call": "t", "model_response": "m"}[step.type.value]
        assert values["tool_name"] == step.tool_name
        assert values["arguments"] == step.arguments
        assert values["output"] == step.output
        assert values["text"] == step.text
        assert (values["status"] or "ok") == step.status.value
        assert values["error"] == step.error
        assert (values["citations"] or []) == list(step.citations)
    assert block["trace"]["inputs"] == [[i.role, i.text] for i in trace.inputs]
    assert block["trace"]["outcome"] == trace.outcome
    assert block["trace"]["metadata"] == trace.metadata


def test_hostile_trace_text_stays_inside_its_json_blocks() -> None:
    text = streamed_html(*XSS)
    page = _parse(text)
    scripts = [attrs for attrs, _ in page.scripts]
    # The page's own script (no attributes) and inert JSON blocks, nothing else.
    assert [a for a in scripts if a.get("type") != "application/json"] == [{}]
    assert {tag for tag, _ in page.tags} <= {
        "html", "head", "meta", "title", "style", "body", "noscript", "p", "div", "script",
    }  # fmt: skip
    for attrs, body in page.scripts:
        if attrs.get("type") == "application/json":
            assert not re.search("[<>&\u2028\u2029]", body), attrs["id"]
    index, blocks = _blocks(text)
    trace = json.loads(Path(XSS[1][0]).read_text(encoding="utf-8"))
    assert index["traces"][0]["id"] == trace["trace_id"]
    assert index["traces"][0]["task"] == trace["task_id"]
    assert blocks[0]["trace"]["inputs"][0][1] == trace["inputs"][0]["text"]
    assert blocks[0]["trace"]["steps"][0][4] == trace["steps"][0]["output"]


def test_content_security_policy_pins_the_page_script_and_style() -> None:
    text = CASES["samples"]()
    page = _parse(text)
    (meta,) = [a for t, a in page.tags if t == "meta" and a.get("http-equiv")]
    policy = meta["content"] or ""
    assert "default-src 'none'" in policy
    (code,) = [body for attrs, body in page.scripts if not attrs]
    style = text.split("<style>", 1)[1].split("</style>", 1)[0]
    for kind, source in (("script", code), ("style", style)):
        digest = base64.b64encode(hashlib.sha256(source.encode()).digest()).decode()
        assert f"{kind}-src 'sha256-{digest}'" in policy
    assert not [a for _, a in page.tags if "src" in a or "href" in a], "nothing is loaded"


@pytest.mark.parametrize(
    "value",
    [
        "</script><script>alert(1)</script>",
        "<!-- <script>",
        "a\u2028b\u2029c & <b>",
        {"k<": ["\ud800", "\udfff x", 2**70, -0.5]},
    ],
)
def test_script_json_is_inert_and_lossless(value: Any) -> None:
    text = script_json(value)
    assert not re.search("[<>&\u2028\u2029\ud800-\udfff]", text)
    assert json.loads(text) == value
    text.encode("utf-8")  # lone surrogates are escaped, so the page is valid UTF-8


def test_script_json_refuses_non_finite_numbers() -> None:
    with pytest.raises(ValueError):
        script_json({"x": float("nan")})


def _long_trace() -> dict[str, Any]:
    steps = [
        {"step_id": f"s{n}", "type": "tool_call", "tool_name": "lookup_order",
         "arguments": {"order_id": "ORD-1234"}, "output": "x" * (50 if n else 5000)}
        for n in range(30)
    ]  # fmt: skip
    steps.append({"step_id": "end", "type": "model_response", "text": "Done."})
    return {"trace_id": "long", "agent_name": "a", "workflow": "w", "steps": steps}


def test_limits_cut_long_strings_and_leave_out_steps_visibly() -> None:
    policy = load_policy("samples/policy.json")
    raw = _long_trace()
    run = validate([raw], policy)
    limits = EmbedLimits(max_string_chars=1000, max_steps=20, max_trace_chars=10**6)
    _, (block,) = _blocks(render_run_html(run, [parse_trace(raw)], OPTIONS, limits=limits))
    body = block["trace"]
    assert body["steps_omitted"] == 11 and len(body["steps"]) == 20
    assert body["strings_cut"] == 1
    assert body["steps"][0][4] == "x" * 1000 + "\u2026 [cut here: 5,000 characters in all]"
    assert body["steps"][1][4] == "x" * 50
    tight = EmbedLimits(max_string_chars=10**6, max_steps=10**6, max_trace_chars=5100)
    _, (block,) = _blocks(render_run_html(run, [raw], OPTIONS, limits=tight))
    assert len(block["trace"]["steps"]) == 1 and block["trace"]["steps_omitted"] == 30
    # Within the default limits nothing is cut or left out.
    _, (block,) = _blocks(render_run_html(run, [raw], OPTIONS))
    assert "steps_omitted" not in block["trace"] and "strings_cut" not in block["trace"]
    assert len(block["trace"]["steps"]) == 31


def test_compare_page_marks_new_fixed_and_unchanged_findings() -> None:
    index, blocks = _blocks(CASES["compare"]())
    assert index["kind"] == "compare" and "gate" in index and "baseline" in index
    rows = {row["id"]: (row, block) for row, block in zip(index["traces"], blocks, strict=True)}
    statuses = {row["status"] for row, _ in rows.values()}
    assert statuses == {"common", "added", "removed"}
    for row, block in rows.values():
        changes = [f.get("change") for f in block["report"]["findings"]]
        new, fixed, unchanged = row["changes"]
        assert changes.count("new") == new and changes.count("unchanged") == unchanged
        assert len(block["compare"]["fixed"]) == fixed
        if row["status"] == "removed":
            assert block["trace"] is None and not block["report"]["findings"]
        else:
            assert block["trace"] is not None
    assert any(r["changes"][0] for r, _ in rows.values()), "the fixture has new findings"
    assert any(r["changes"][1] for r, _ in rows.values()), "the fixture has fixed findings"


def test_task_tables_from_the_repeated_run_report() -> None:
    tasks = [
        {"task_id": "t1", "runs": 3, "passed": 2,
         "pass_at_k": {"1": 0.666667, "2": 1.0, "3": 1.0},
         "pass_hat_k": {"1": 0.666667, "2": 0.333333, "3": 0.0},
         "rules": [{"rule_id": "ARH-FLW-001", "fired_runs": 1, "rate": 0.333333,
                    "ci95": [0.06, 0.79], "flaky": True}]},
        {"task_id": "t2", "runs": 2, "passed": 2, "pass_at_k": {"1": 1.0, "2": 1.0},
         "pass_hat_k": {"1": 1.0, "2": 1.0}, "rules": []},
    ]  # fmt: skip
    passk, flaky = task_sections(tasks)
    assert passk.columns[:6] == ("task", "runs", "passed", "pass^1", "pass^2", "pass^3")
    assert passk.rows[1][:6] == ("t2", 2, 2, 1.0, 1.0, None)
    assert flaky.rows == (("t1", "ARH-FLW-001", 1, 3, 0.333333, 0.06, 0.79),)
    assert task_sections([]) == ()
    policy_id, pairs, failures = evaluated(*SAMPLES)
    run = run_of(policy_id, pairs, failures)
    extra = HtmlTable("Notes", ("a",), (("<b>x</b>",),))
    index, _ = _blocks(render_run_html(run, None, OPTIONS, sections=(passk, flaky, extra)))
    assert [s["title"] for s in index["sections"]] == [passk.title, flaky.title, "Notes"]
    assert index["sections"][0]["filter"] == [0, "task"]
    assert index["sections"][2]["rows"] == [["<b>x</b>"]]


@settings(max_examples=60)
@given(
    lengths=st.lists(st.integers(0, 400), max_size=30),
    chunk=st.integers(1, 8),
    max_string=st.integers(1, 300),
    max_steps=st.integers(0, 25),
    max_trace=st.integers(0, 4_000),
)
def test_step_fitter_in_chunks_equals_the_whole_body(
    lengths: list[int], chunk: int, max_string: int, max_steps: int, max_trace: int
) -> None:
    """A trace streamed a chunk of steps at a time embeds exactly what it would whole."""
    steps = [
        {"step_id": f"s{n}", "type": "tool_call", "tool_name": "t", "arguments": {"q": "<" * k},
         "output": "x" * k}
        for n, k in enumerate(lengths)
    ]  # fmt: skip
    trace = parse_trace({"trace_id": "t", "agent_name": "a", "workflow": "w", "steps": steps,
                         "metadata": {"note": "m" * 500}})  # fmt: skip
    limits = EmbedLimits(max_string, max_steps, max_trace)
    fitter = StepFitter(limits)
    for start in range(0, len(trace.steps), chunk):
        fitter.add(trace.steps[start : start + chunk])
    head = msgspec.structs.replace(trace, steps=())
    assert fitter.body(head) == trace_body(trace, limits)
