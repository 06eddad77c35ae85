"""ARH-SAF-001's one-scan screen over the JSON encoding never hides a match.

The generated corpus has no backslashes or non-ASCII text, so these properties
drive the escape handling: quotes, backslashes, control characters, newlines,
unicode and empty strings at any depth, against anchored and unanchored patterns.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_reliability_harness.api import validate_trace
from agent_reliability_harness.engine import rule_result
from agent_reliability_harness.models.common import StepType
from agent_reliability_harness.models.policy import Policy
from agent_reliability_harness.models.trace import Step, Trace
from agent_reliability_harness.patterns import PatternSet
from agent_reliability_harness.rules import REGISTRY
from agent_reliability_harness.rules.base import Hit, RuleResult
from agent_reliability_harness.rules.safety import (
    _blob_count,
    _quick_blob_count,
    blob_texts,
    screen_text,
    text_blobs,
)
from helpers import make_trace, response, tool_call

pytestmark = pytest.mark.slow  # an equivalence oracle (see pyproject.toml)

# Characters that stress the encoding: JSON's escapes (quote, backslash, the short
# escapes, \u00XX controls), word/non-word edges, unicode
# with case folding (U+017F folds to s, U+212A to k) and a character outside the BMP.
_CHARS = ["a", "b", "s", "k", " ", "-", '"', "\\", "/", "u", "0", "n", "t"]
_CHARS += ["\n", "\t", "\r", "\b", "\f", "\x00", "\x01", "\x1f", "\x7f"]
_CHARS += ["é", "\u017f", "\u212a", "\u2028", "😀"]
# Plain text keeps some traces free of escapes (the screen text is then the JSON).
_TEXT = st.text(alphabet="ab k-", max_size=6) | st.text(
    alphabet=st.sampled_from(_CHARS), max_size=8
)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=10,
)
_PATTERNS = [
    "^a",
    "b$",
    "^ab$",
    "^$",
    r"\ba",
    r"a\b",
    r"\Bb",
    r"b\B",
    "a b",
    "sk",
    "^k",
    '"',
    '^"',
    '"$',
    r"\\",
    r"\\n",
    r"\\u",
    r"\n",
    r"a\nb",
    r"\t",
    r"\x00",
    r"\x01",
    r"\x1f",
    "é$",
    "(?i)A$",
    "x+$",
    "[^a]",
    r"\s",
    r"^\W",
    "😀",
    r"\Aa",
    r"a\z",
    r"a\Z",
    "(?-m)^a",
    "null",
    "true",
    ":",
]


@st.composite
def _steps(draw: st.DrawFn) -> tuple[Step, ...]:
    count = draw(st.integers(0, 4))
    out = []
    for i in range(count):
        out.append(
            Step(
                step_id=f"s{i}",
                type=draw(st.sampled_from([StepType.TOOL_CALL, StepType.MODEL_RESPONSE])),
                text=draw(st.none() | _TEXT),
                arguments=draw(st.none() | st.dictionaries(_TEXT, _JSON, max_size=3)),
                output=draw(_JSON),
                error=draw(st.none() | _TEXT),
            )
        )
    return tuple(out)


def _reference(steps: tuple[Step, ...], patterns: PatternSet) -> RuleResult:
    """ARH-SAF-001 as it was: every blob scanned on its own, with its path."""
    result = RuleResult()
    for index, step in enumerate(steps):
        for where, blob in text_blobs(step):
            result.checks += 1
            for match in patterns.matches(blob):
                pattern = patterns.patterns[match]
                result.failed += 1
                result.hits.append(
                    Hit(
                        index,
                        f"unsafe pattern '{pattern}' matched in {where}",
                        expected=f"no match for '{pattern}'",
                        observed=where,
                        step_id=step.step_id,
                    )
                )
    return result


def _delimited(text: bytes, delimiter: bytes, piece: bytes) -> bool:
    return delimiter + piece + delimiter in delimiter + text + delimiter


@settings(max_examples=250, deadline=None)
@given(_steps())
def test_screen_text_holds_every_blob_between_delimiters(steps: tuple[Step, ...]) -> None:
    screen = screen_text(steps)
    assert screen is not None  # JSON data always gets a screen text
    text, delimiter, count = screen
    blobs = sum(len(blob_texts(step)) for step in steps)
    if count < 0:  # counted from the JSON text after the scan
        assert delimiter == b'"' and _blob_count(text) == blobs
        if b'""' not in text:  # the probe found no empty string
            assert _quick_blob_count(text) == blobs
    else:
        assert count == blobs
    for step in steps:
        for blob in blob_texts(step):
            assert _delimited(text, delimiter, blob.encode("utf-8")), blob


@settings(max_examples=250, deadline=None)
@given(_steps(), st.lists(st.sampled_from(_PATTERNS), min_size=1, max_size=3, unique=True))
def test_fast_decision_never_hides_a_match(steps: tuple[Step, ...], chosen: list[str]) -> None:
    patterns = PatternSet(chosen)
    exact = any(patterns.matches(blob) for step in steps for blob in blob_texts(step))
    screen = screen_text(steps)
    may = screen is None or patterns.may_match_delimited(screen[0], screen[1])
    if exact:
        assert may
    policy = Policy.from_dict({"policy_id": "p", "unsafe_patterns": chosen})
    trace = Trace(trace_id="t", agent_name="a", workflow="w", steps=steps)
    got = rule_result(REGISTRY["ARH-SAF-001"], trace, policy)
    want = _reference(steps, policy.unsafe_patterns)
    assert (got.hits, got.failed, got.checks) == (want.hits, want.failed, want.checks)


@pytest.mark.parametrize(
    "value",
    [
        'a "quoted" \\ back\\slash',
        "\\n is not a newline",
        "\\\\\\",
        "ends with a backslash \\",
        "tab\tand\nnewline\r\b\f",
        "\\u0041 is text",
        "\u2028 and é and 😀",
    ],
)
def test_escapes_are_undone_exactly(value: str) -> None:
    steps = Trace.from_dict(make_trace(tool_call("c", "t", {"k": value}, output=[value]))).steps
    screen = screen_text(steps)
    assert screen is not None
    text, delimiter, _ = screen
    assert _delimited(text, delimiter, value.encode("utf-8"))


def test_control_characters_are_decoded() -> None:
    steps = Trace.from_dict(make_trace(response("r", "bell \x07\x00\x1f \\u0007"))).steps
    assert screen_text(steps) == (b"[[\nbell \x07\x00\x1f \\u0007\n,null,null,null]]", b"\n", 1)
    assert PatternSet(["x"], probes=['""']).screen(b'["", "a"]', b'"') == (False, frozenset({0}))


def test_values_msgspec_refuses_take_the_exact_path() -> None:
    class Text(str):
        pass

    odd = Step(step_id="s", type=StepType.TOOL_CALL, output={"k": Text("secret")})
    assert screen_text((odd,)) is None
    policy = Policy.from_dict({"policy_id": "p", "unsafe_patterns": ["secret"]})
    trace = Trace(trace_id="t", agent_name="a", workflow="w", steps=(odd,))
    result = rule_result(REGISTRY["ARH-SAF-001"], trace, policy)
    assert [h.observed for h in result.hits] == ["output.k"]


def test_strings_in_tuples_are_blobs_like_arrays() -> None:
    step = Step(step_id="s", type=StepType.TOOL_CALL, output=("secret", ["x"]))
    assert blob_texts(step) == ["secret", "x"]
    policy = Policy.from_dict({"policy_id": "p", "unsafe_patterns": ["secret"]})
    trace = Trace(trace_id="t", agent_name="a", workflow="w", steps=(step,))
    result = rule_result(REGISTRY["ARH-SAF-001"], trace, policy)
    assert [h.observed for h in result.hits] == ["output[0]"] and result.checks == 2


def test_line_anchors_see_quotes_as_separators() -> None:
    # No backslash: the screen text is the JSON itself, delimited by quotes.
    steps = Trace.from_dict(make_trace(response("r1", "Refund now"), response("r2", "tax"))).steps
    text, delimiter, _ = screen_text(steps) or (b"", b"", 0)
    assert delimiter == b'"'
    assert PatternSet(["^Refund"]).may_match_delimited(text, delimiter)
    assert PatternSet(["x$"]).may_match_delimited(text, delimiter)
    assert not PatternSet(["^now"]).may_match_delimited(text, delimiter)
    assert PatternSet([r"\Anever"]).may_match_delimited(text, delimiter)  # not screened


def test_blob_count_is_exact_when_a_pattern_matches() -> None:
    data = make_trace(
        response("r", "clean"),
        tool_call("c", "t", {"a": "secret", "b": ["", "x"]}, output={"o": "y"}),
    )
    trace = Trace.from_dict(data)
    policy = Policy.from_dict({"policy_id": "p", "unsafe_patterns": ["secret"]})
    result = rule_result(REGISTRY["ARH-SAF-001"], trace, policy)
    assert result.checks == 4 and result.failed == 1
    assert [h.observed for h in result.hits] == ["arguments.a"]
    assert json.dumps(result.hits[0].message) == json.dumps(
        "unsafe pattern 'secret' matched in arguments.a"
    )


@pytest.mark.parametrize("position", [0, 4095, 4096, 9999])
def test_huge_traces_are_screened_in_pieces_without_hiding_a_match(position: int) -> None:
    policy = {"policy_id": "p", "unsafe_patterns": ["\\b\\d{3}-\\d{2}-\\d{4}\\b"]}
    steps = [
        {"step_id": f"s{i}", "type": "model_response", "text": f"step {i} 123-45-678"}
        for i in range(10_000)
    ]
    clean = validate_trace(make_trace(*steps), policy)
    assert clean.findings == () and clean.category_scores["safety"] == 100.0
    steps[position]["text"] = "my SSN is 123-45-6789"
    found = validate_trace(make_trace(*steps), policy)
    assert [(f.rule_id, f.step_id) for f in found.findings] == [("ARH-SAF-001", f"s{position}")]
    assert found.category_scores["safety"] == 100.0 * 9_999 / 10_000


_KINDS = ["text", "arguments", "output", "error"]
_SCOPED = st.builds(
    lambda pattern, kinds, tools: {
        "pattern": pattern,
        **({} if kinds is None else {"in": kinds}),
        **({} if tools is None else {"tools": tools}),
    },
    st.sampled_from(_PATTERNS),
    st.none() | st.lists(st.sampled_from(_KINDS), min_size=1, max_size=4),
    st.none() | st.lists(st.sampled_from(["t1", "t2"]), min_size=1, max_size=2),
)


def _scoped_reference(steps: tuple[Step, ...], entries: list[Any]) -> RuleResult:
    """Scoped ARH-SAF-001 from the entries as written: every blob on its own, searched
    with each pattern (once) of the entries whose `in` and `tools` admit it."""
    result = RuleResult()
    for index, step in enumerate(steps):
        for where, blob in text_blobs(step):
            result.checks += 1
            kind = next(k for k in _KINDS if where.startswith(k))
            chosen: list[str] = []
            for entry in entries:
                bare = isinstance(entry, str)
                pattern = entry if bare else entry["pattern"]
                kinds = _KINDS if bare else entry.get("in", _KINDS)
                tools = None if bare else entry.get("tools")
                admits = kind == "text" or tools is None or step.tool_name in tools
                if kind in kinds and admits and pattern not in chosen:
                    chosen.append(pattern)
            for pattern in chosen:
                if PatternSet([pattern]).matches(blob):
                    result.failed += 1
                    result.hits.append(
                        Hit(
                            index,
                            f"unsafe pattern '{pattern}' matched in {where}",
                            expected=f"no match for '{pattern}'",
                            observed=where,
                            step_id=step.step_id,
                        )
                    )
    return result


@settings(max_examples=150, deadline=None)
@given(
    _steps(),
    st.lists(st.sampled_from(["t1", "t2", "t3"]) | st.none(), min_size=4, max_size=4),
    st.lists(_SCOPED | st.sampled_from(_PATTERNS), min_size=1, max_size=4),
)
def test_scoped_patterns_find_what_each_blob_admits(
    steps: tuple[Step, ...], tools: list[str | None], entries: list[Any]
) -> None:
    """Screened with the union of every pattern, checked with the ones that apply: the
    hits and counts of searching each blob with its own patterns."""
    steps = tuple(
        msgspec.structs.replace(step, tool_name=tool)
        for step, tool in zip(steps, tools, strict=False)
    )
    policy = Policy.from_dict({"policy_id": "p", "unsafe_patterns": entries})
    trace = Trace(trace_id="t", agent_name="a", workflow="w", steps=steps)
    got = rule_result(REGISTRY["ARH-SAF-001"], trace, policy)
    want = _scoped_reference(steps, entries)
    assert (got.hits, got.failed, got.checks) == (want.hits, want.failed, want.checks)
