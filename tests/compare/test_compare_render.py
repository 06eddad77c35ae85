"""Golden files for the compare renderers, the JSON Schema of --json-out, and Markdown safety.

Regenerate the golden files with ARH_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cmp_helpers import DATA, REPO, finding, report, run_of, trace

from agent_reliability_harness.api import load_policy, validate_paths
from agent_reliability_harness.compare import GateMode, GateOptions, compare
from agent_reliability_harness.compare.model import Comparison
from agent_reliability_harness.render import RENDERERS, RenderOptions
from agent_reliability_harness.render.compare_markdown import MAX_ROWS, md

GOLDEN = Path(__file__).resolve().parent / "golden"
SCHEMA = json.loads((REPO / "schemas" / "compare.schema.json").read_text(encoding="utf-8"))


def _samples_comparison(options: GateOptions | None = None) -> Comparison:
    # Frozen copies of the samples, so new samples do not change these golden files.
    policy = load_policy(str(DATA / "policy.json"))
    baseline = validate_paths([str(DATA / "baseline")], policy)
    candidate = validate_paths([str(DATA / "candidate")], policy)
    return compare(baseline, candidate, options)


def _v01_comparison() -> Comparison:
    base = report(
        trace("legacy-1", [finding(None, step_id="s2", message="argument has the wrong type")]),
        trace("legacy-2", passed=True, score=88.0, total_latency_ms=None),
    )
    cand = report(
        trace(
            "legacy-1",
            [
                finding("ARH-SCH-004", step_id="s2", message="argument\nhas the wrong type"),
                finding("ARH-SCH-008", step_id="s2", message="bad | <b>arg</b> @team #1 `x`"),
            ],
        ),
        trace("legacy-2", passed=True, score=70.25, total_cost_usd=0.00001),
    )
    return compare(run_of(base), run_of(cand), GateOptions(GateMode.REGRESSIONS, 10))


CASES = {
    "samples": _samples_comparison,
    "samples-never": lambda: _samples_comparison(GateOptions(GateMode.NEVER)),
    "v01-score-drop": _v01_comparison,
}


# The HTML page has its own golden files and browser tests (tests/html/).
@pytest.mark.parametrize("name", sorted(n for n in RENDERERS["compare"] if n != "html"))
@pytest.mark.parametrize("case", sorted(CASES))
def test_golden(case: str, name: str) -> None:
    renderer = RENDERERS["compare"][name]
    text = renderer.render(CASES[case](), RenderOptions(tool_version="1.0.0"))
    assert text == renderer.render(CASES[case](), RenderOptions(tool_version="1.0.0"))
    path = GOLDEN / f"{case}{renderer.suffix}"
    if os.environ.get("ARH_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8", newline="\n")
    assert text == path.read_text(encoding="utf-8"), f"{path} is stale (ARH_UPDATE_GOLDEN=1)"


def test_registry_has_the_compare_renderers() -> None:
    assert sorted(RENDERERS["compare"]) == ["console", "html", "json", "md"]


def test_schema_is_valid_draft_2020_12() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("case", sorted(CASES))
def test_json_output_validates(case: str) -> None:
    document = json.loads(RENDERERS["compare"]["json"].render(CASES[case](), RenderOptions()))
    jsonschema.Draft202012Validator(SCHEMA).validate(document)


def _keys_match(value: Any, schema: dict[str, Any], where: str) -> None:
    """Every key we write is documented, and every documented key is written (those the
    schema does not require, such as a trace's `policy_id`, only when they apply)."""
    while "$ref" in schema:
        schema = SCHEMA["$defs"][schema["$ref"].rsplit("/", 1)[1]]
    if "oneOf" in schema:
        if value is None:
            return
        schema = next(s for s in schema["oneOf"] if s.get("type") != "null")
        return _keys_match(value, schema, where)
    if isinstance(value, dict) and "properties" in schema:
        documented = set(schema["properties"])
        assert set(value) <= documented, where
        assert set(schema.get("required", documented)) <= set(value), where
        for key, item in value.items():
            _keys_match(item, schema["properties"][key], f"{where}.{key}")
    elif isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            _keys_match(item, schema["items"], f"{where}[{index}]")


def test_schema_documents_exactly_the_keys_we_write() -> None:
    document = json.loads(
        RENDERERS["compare"]["json"].render(_samples_comparison(), RenderOptions())
    )
    _keys_match(document, SCHEMA, "$")


def test_schema_rejects_a_broken_document() -> None:
    document = json.loads(RENDERERS["compare"]["json"].render(_v01_comparison(), RenderOptions()))
    document["traces"][0]["status"] = "moved"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(SCHEMA).validate(document)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a|b", "a\\|b"),
        ("<script>", "\\<script\\>"),
        ("@team #12", "\\@team \\#12"),
        ("line1\nline2\r\tx", "line1 line2 x"),
        ("*bold* _em_ `code` [l](u)", "\\*bold\\* \\_em\\_ \\`code\\` \\[l\\](u)"),
    ],
)
def test_markdown_escaping(text: str, expected: str) -> None:
    assert md(text) == expected


def test_markdown_cuts_long_tables() -> None:
    many = [finding("ARH-SCH-003", step_id=f"s{i}") for i in range(MAX_ROWS + 7)]
    result = compare(run_of(report(trace("t"))), run_of(report(trace("t", many))))
    text = RENDERERS["compare"]["md"].render(result, RenderOptions())
    assert "and 7 more new findings (see the JSON report)" in text
    assert "and 8 more reasons" in text  # 57 new errors + 1 pass->fail


def test_console_color_only_when_asked() -> None:
    result = _samples_comparison()
    plain = RENDERERS["compare"]["console"].render(result, RenderOptions(color=False))
    colored = RENDERERS["compare"]["console"].render(result, RenderOptions(color=True))
    assert "\033[" not in plain
    assert colored.startswith("\033[31mGATE: FAIL")


def test_console_neutralises_control_characters() -> None:
    hostile = "\033[2J\rwiped\x9b"
    result = compare(
        run_of(report(trace("t"))), run_of(report(trace(f"t{hostile}", [finding(message=hostile)])))
    )
    text = RENDERERS["compare"]["console"].render(result, RenderOptions())
    assert "\033" not in text and "\r" not in text and "\x9b" not in text
    assert "\\x1b[2J\\x0dwiped\\x9b" in text
