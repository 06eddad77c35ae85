"""Issue 18 item 5: one depth limit and one number policy on every path.

The nesting accepted does not depend on the outputs asked for (the SARIF path reads
positions from the text), on the input's shape (a file, a JSONL line, standard input,
a transcript's argument string) or on the policy (an `enum` on a deep argument never
raises RecursionError); a refusal names line and column. Every number that can be read
is written back and read again: ARH's own report is always a valid baseline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from faultkit import OPEN, assert_clean, cli, write_json
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_reliability_harness.nesting import MAX_DEPTH
from helpers import make_trace, response, tool_call

OUTPUTS = ([], ["--sarif-out"], ["--json-out"], ["--md-out"], ["--junit-out"], ["--html-out"])
# The argument value's own depth that makes the document exactly MAX_DEPTH deep: trace
# object, steps array, step object and arguments object hold it.
AT_LIMIT = MAX_DEPTH - 4


def _nested(depth: int, leaf: Any = 1) -> Any:
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


def _deep_trace(depth: int) -> dict[str, Any]:
    return make_trace(tool_call("s1", "t", {"x": _nested(depth)}), response("s2"), trace_id="deep")


def _opening(text: str, level: int) -> int:
    """Offset of the bracket that opens nesting level `level` (no brackets in strings)."""
    depth = 0
    for at, char in enumerate(text):
        depth += (char in "[{") - (char in "]}")
        if depth == level:
            return at
    raise AssertionError(f"no level {level}")


def _run(tmp_path: Path, trace: Path, policy: dict[str, Any], extra: list[str]) -> tuple[int, str]:
    args = ["validate", "--policy", str(write_json(tmp_path / "p.json", policy)), str(trace)]
    if extra:
        args += [extra[0], str(tmp_path / "out")]
    code, _, err = cli([*args, "--quiet"])
    return code, err


@pytest.mark.parametrize("extra", OUTPUTS, ids=lambda e: e[0] if e else "console")
def test_the_depth_limit_does_not_depend_on_the_outputs(extra: list[str], tmp_path: Path) -> None:
    at = write_json(tmp_path / "at.json", _deep_trace(AT_LIMIT))
    over = write_json(tmp_path / "over.json", _deep_trace(AT_LIMIT + 1))
    assert _run(tmp_path, at, OPEN, extra) == (0, "")
    code, err = _run(tmp_path, over, OPEN, extra)
    assert_clean(err, code)
    column = _opening(over.read_text(), MAX_DEPTH + 1) + 1
    assert err == (
        f"error: {over}: invalid JSON: nesting is too deep, more than {MAX_DEPTH} levels "
        f"(line 1, column {column})\n"
    )


def test_the_depth_limit_is_the_same_for_every_shape_of_input(tmp_path: Path) -> None:
    over = json.dumps(_deep_trace(AT_LIMIT + 1))
    at = json.dumps(_deep_trace(AT_LIMIT))
    lines = tmp_path / "t.jsonl"
    lines.write_text(at + "\n" + over + "\n")
    policy = str(write_json(tmp_path / "p.json", OPEN))
    code, _, err = cli(["validate", "--policy", policy, str(lines), "--quiet", "--sarif-out", "-"])
    assert code == 1
    assert err.startswith(f"error: {lines}:2: invalid JSON: nesting is too deep")
    code, _, err = cli(["validate", "--policy", policy, "-", "--quiet"], stdin=over.encode())
    assert code == 1 and "nesting is too deep" in err
    code, _, err = cli(["validate", "--policy", policy, "-", "--quiet"], stdin=at.encode())
    assert (code, err) == (0, "")


def test_an_argument_string_nested_deeper_than_the_limit_is_a_note(tmp_path: Path) -> None:
    deep = "[" * 5000 + "]" * 5000
    chat = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "t", "arguments": deep}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "assistant", "content": "done"},
    ]
    path = write_json(tmp_path / "chat.json", chat)
    enum = {"policy_id": "e", "allowed_tools": {"t": {"optional_arguments": {"x": {"enum": [1]}}}}}
    for extra in (["--json-out"], ["--sarif-out"]):
        code, err = _run(tmp_path, path, enum, extra)
        assert_clean(err, code, (0, 1))
        report = tmp_path / "out"
        if extra == ["--json-out"]:
            [entry] = json.loads(report.read_text())["reports"]
            assert "ARH-SCH-013" in [f["rule_id"] for f in entry["findings"]]


@pytest.mark.parametrize("extra", OUTPUTS[:2], ids=("console", "sarif"))
def test_an_enum_on_a_deep_argument_never_recurses(extra: list[str], tmp_path: Path) -> None:
    trace = write_json(tmp_path / "t.json", _deep_trace(AT_LIMIT))
    for candidate in (_nested(90), _nested(90, 2), 1, [1], {"k": 1}):
        policy = {
            "policy_id": "enum",
            "allowed_tools": {"t": {"required_arguments": {"x": {"enum": [candidate]}}}},
        }
        code, err = _run(tmp_path, trace, policy, extra)
        assert code == 1 and err == ""  # the value is not in the enum: ARH-SCH-007
        report = tmp_path / "r.json"
        cli(
            [
                "validate",
                "--policy",
                str(tmp_path / "p.json"),
                str(trace),
                "--json-out",
                str(report),
            ]
        )
        [entry] = json.loads(report.read_text())["reports"]
        assert "ARH-SCH-007" in [f["rule_id"] for f in entry["findings"]]


# ------------------------------------------------------------------ one number policy

EXTREMES = [0, -0.0, 5e-324, 0.1, 1.7976931348623157e308, 2**53 + 1, 2**63 - 1, 2**64, 10**300]
AMOUNTS = [v for v in EXTREMES if v >= 0]
TOKENS = [0, 1, 2**62, 2**63 - 1, 3.0]


def _number_trace(values: list[Any], amounts: list[Any], tokens: list[Any]) -> dict[str, Any]:
    steps = [
        tool_call(
            f"s{i}",
            "t",
            {"n": value, "nested": [value, {"v": value}]},
            latency_ms=amount,
            cost_usd=amount,
            input_tokens=count,
            output=value,
        )
        for i, (value, amount, count) in enumerate(zip(values, amounts, tokens, strict=False))
    ]
    return make_trace(*steps, response("end", metadata={"v": values}), trace_id="numbers")


def _round_trip(tmp_path: Path, trace: dict[str, Any], policy: dict[str, Any]) -> None:
    path = write_json(tmp_path / "t.json", trace)
    policy_path = write_json(tmp_path / "p.json", policy)
    report = tmp_path / "report.json"
    code, _, err = cli(
        ["validate", "--policy", str(policy_path), str(path), "--json-out", str(report)]
    )
    assert_clean(err, code, (0, 1))
    assert err == ""
    text = report.read_text()
    assert "Infinity" not in text and "NaN" not in text
    for candidate in (["--candidate", str(report)], ["--policy", str(policy_path), str(path)]):
        code, _, err = cli(["compare", "--baseline", str(report), *candidate, "--json-out", "-"])
        assert (code, err) == (0, ""), err


def test_extreme_numbers_are_read_written_and_read_again(tmp_path: Path) -> None:
    bounds = {"type": "number", "min": -1.7976931348623157e308, "max": 1.7976931348623157e308}
    policy = {
        "policy_id": "numbers",
        "allowed_tools": {"t": {"optional_arguments": {"n": bounds, "nested": {"type": "list"}}}},
        "budgets": {"max_total_latency_ms": 1.7976931348623157e308, "max_total_tokens": 2**63 - 1},
    }
    _round_trip(tmp_path, _number_trace(EXTREMES, AMOUNTS * 2, TOKENS * 2), policy)


@settings(max_examples=25)
@given(
    values=st.lists(
        st.one_of(
            st.sampled_from(EXTREMES),
            st.integers(),
            st.floats(allow_nan=False, allow_infinity=False),
        ),
        min_size=1,
        max_size=4,
    ),
    amounts=st.lists(
        st.one_of(st.sampled_from(AMOUNTS), st.floats(min_value=0, allow_infinity=False)),
        min_size=4,
        max_size=4,
    ),
    tokens=st.lists(st.sampled_from(TOKENS), min_size=4, max_size=4),
)
def test_any_number_read_is_written_back_and_read_again(
    values: list[Any],
    amounts: list[Any],
    tokens: list[Any],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    tmp_path = tmp_path_factory.mktemp("numbers")
    _round_trip(tmp_path, _number_trace(values, amounts, tokens), OPEN)
