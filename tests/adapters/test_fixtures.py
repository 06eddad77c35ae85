"""SDK-built fixtures: goldens, freshness, what each conversion must contain, and equivalence."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from typing import Any

import make_fixtures
import pytest
from scenarios import SCENARIOS, Scenario

from agent_reliability_harness.adapters import detect, to_canonical
from agent_reliability_harness.api import validate
from agent_reliability_harness.errors import AdapterError
from agent_reliability_harness.models.trace import parse_trace

HERE = Path(__file__).resolve().parent
FORMATS = tuple(make_fixtures.RENDERERS)
# Formats whose tool results carry a failure flag; the others cannot (status stays unset).
CARRIES_ERRORS = {"anthropic-messages", "google-genai", "openai-agents", "otel-genai"}
SPAN_IDS = {"openai-agents"}  # no native call id in the export: steps use span ids
SDKS = ("openai", "anthropic", "cohere", "google.genai", "agents", "opentelemetry.sdk")

CASES = [(fmt, s) for fmt in FORMATS for s in SCENARIOS if make_fixtures.supports(fmt, s)]


def load(relative: str) -> Any:
    return json.loads((HERE / relative).read_text(encoding="utf-8"))


def convert(fmt: str, name: str) -> list[Any]:
    return to_canonical(load(f"fixtures/{fmt}/{name}.json"), fmt, name)


ALL_FIXTURES = sorted(p.relative_to(HERE / "fixtures") for p in (HERE / "fixtures").rglob("*.json"))


def refusal(relative: Path) -> str | None:
    """The error a golden records for a fixture its format must refuse (a run it cannot
    map: an input error, never an empty trace), else None."""
    golden = load(f"expected/{relative}")
    if isinstance(golden, dict) and set(golden) == {"error"}:
        return str(golden["error"])
    return None


@pytest.mark.parametrize("relative", ALL_FIXTURES, ids=str)
def test_golden(relative: Path) -> None:
    fmt, name = relative.parent.name, relative.stem
    refused = refusal(relative)
    if refused is not None:
        with pytest.raises(AdapterError) as caught:
            convert(fmt, name)
        assert str(caught.value) == refused
        return
    converted = convert(fmt, name)
    expected = (HERE / "expected" / relative).read_text(encoding="utf-8")
    assert make_fixtures.dumps(converted[0] if len(converted) == 1 else converted) == expected
    for trace in converted:
        parse_trace(trace)


@pytest.mark.parametrize("relative", ALL_FIXTURES, ids=str)
def test_auto_detection(relative: Path) -> None:
    value = load(f"fixtures/{relative}")
    fmt = relative.parent.name
    assert detect(value).name == fmt
    if refusal(relative) is not None:
        with pytest.raises(AdapterError, match=f"it looks like {fmt}, but no step mapped"):
            to_canonical(value)
        return
    assert {t["source"] for t in to_canonical(value)} == {fmt}


def _installed(module: str) -> bool:
    """Whether `module` can be imported; find_spec of `google.genai` imports `google`
    first and raises when that is missing too."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def test_fixtures_are_current() -> None:
    missing = [m for m in SDKS if not _installed(m)]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"SDKs missing in CI: {missing}; install the test-adapters extra")
        pytest.skip(f"SDKs not installed: {missing}")
    built = make_fixtures.build_all()
    on_disk = {
        str(p.relative_to(HERE)): p.read_text(encoding="utf-8")
        for folder in ("fixtures", "expected")
        for p in (HERE / folder).rglob("*.json")
        if p.relative_to(HERE / folder).parts[0] in make_fixtures.RENDERERS  # SDK-built ones
    }
    stale = sorted(k for k in built.keys() | on_disk.keys() if built.get(k) != on_disk.get(k))
    assert not stale, f"run python tests/adapters/make_fixtures.py; stale: {stale[:5]}"


@pytest.mark.parametrize(("fmt", "scenario"), CASES, ids=lambda v: getattr(v, "name", v))
def test_conversion_matches_scenario(fmt: str, scenario: Scenario) -> None:
    (trace,) = convert(fmt, scenario.name)
    steps = trace["steps"]
    calls = [s for s in steps if s["type"] == "tool_call"]
    notes = trace["metadata"]["adapter"]["notes"]
    assert trace["source"] == fmt
    assert [c["tool_name"] for c in calls] == [c.name for c in scenario.calls]
    for step, call in zip(calls, scenario.calls, strict=True):
        if fmt not in SPAN_IDS:
            assert step["step_id"] == call.call_id
        if call.raw_args is not None:
            assert step["arguments"] is None
            assert any(n["issue"] == "arguments are not valid JSON" for n in notes)
        else:
            assert step["arguments"] == call.args
        result = scenario.results[call.call_id]
        if result.error and fmt in CARRIES_ERRORS:
            assert (step["status"], step["error"]) == ("error", result.error)
        elif fmt in CARRIES_ERRORS:
            assert step["status"] == "ok"
        else:
            assert "status" not in step
    texts = [s["text"] for s in steps if s["type"] == "model_response" and s.get("text")]
    assert texts == ["".join(t.texts) for t in scenario.turns if t.texts]
    assert sum(s.get("input_tokens") or 0 for s in steps) == sum(t.usage[0] for t in scenario.turns)
    assert sum(s.get("output_tokens") or 0 for s in steps) == sum(
        t.usage[1] for t in scenario.turns
    )
    orphaned = [n for n in notes if n["issue"] == "tool result without a matching call"]
    assert len(orphaned) == (1 if scenario.orphan else 0)


POLICY = {
    "policy_id": "adapter-equivalence",
    "allowed_tools": {
        "lookup_order": {
            "required_arguments": {"order_id": {"type": "str", "pattern": "ORD-[0-9]{4}"}}
        },
        "search_kb": {
            "required_arguments": {"query": "str"},
            "optional_arguments": {"top_k": {"type": "int", "min": 1, "max": 2}},
        },
        "issue_refund": {
            "required_arguments": {"order_id": "str", "amount": "float", "currency": "str"},
            "side_effect": True,
            "max_calls": 1,
        },
    },
    "budgets": {"max_total_tokens": 500},
    "unsafe_patterns": ["timed out"],
    "sequence": {
        "required_tools": ["lookup_order"],
        "call_order": ["lookup_order", "issue_refund"],
    },
    "error_handling": {"require_retry_on_error": True, "max_attempts": 1},
    "completion": {"require_final_response": True},
}


def findings(fmt: str, name: str) -> list[tuple[str, str, str | None]]:
    (trace,) = convert(fmt, name)
    tools = {s["step_id"]: s.get("tool_name") for s in trace["steps"]}
    report = validate([trace], POLICY).reports[0]
    return sorted(
        (f.rule_id, f.severity.value, tools.get(f.step_id) if f.step_id else None)
        for f in report.findings
    )


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_same_conversation_same_findings(scenario: Scenario) -> None:
    formats = [fmt for fmt in FORMATS if make_fixtures.supports(fmt, scenario)]
    results = {fmt: findings(fmt, scenario.name) for fmt in formats}
    reference = results[formats[0]]
    for fmt in formats[1:]:
        assert results[fmt] == reference, fmt


def test_equivalence_policy_finds_something() -> None:
    """Guard for the test above: identical empty findings would prove little."""
    found = {s.name: findings("openai-chat", s.name) for s in SCENARIOS}
    assert sum(1 for f in found.values() if f) >= 4, found
