"""Policy v1.3 (claims, no_false_success, `*` paths): what the case files do not show —
parse errors and typos, wording, the call a finding links to, chunked reading, scoring,
and the text helpers (sentences, numbers)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from agent_reliability_harness.engine import Evaluator
from agent_reliability_harness.errors import PolicyError
from agent_reliability_harness.models.paths import values_at
from agent_reliability_harness.models.policy import Policy, check_policy
from agent_reliability_harness.models.trace import Trace
from agent_reliability_harness.rules._claim_text import answer_sentences, text_number
from helpers import ROOT, report, response, tool_call, with_defaults

SCHEMA = Draft202012Validator(
    json.loads((ROOT / "schemas" / "policy.schema.json").read_text(encoding="utf-8"))
)
REFUND = {
    "name": "refund issued",
    "when": r"(?i)\brefund(ed)?\b.*?\$(?P<amount>[0-9][0-9,]*(\.[0-9]+)?)",
    "unless": r"(?i)\b(not|unable|failed)\b",
    "requires": "issue_refund",
    "same": {"amount": "amount"},
}


def _policy(*claims: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"policy_id": "p", "schema_version": "1.3", "claims": list(claims), **extra}


def test_paths_reach_every_list_element() -> None:
    value = {"flights": [{"n": "A"}, {"n": "B"}, {"x": 1}], "*": {"n": "key"}}
    assert values_at(value, "flights.*.n") == ["A", "B"]
    assert values_at(value, "flights.1.n") == ["B"]
    assert values_at(value, "*.n") == ["key"]  # an object's own "*" key, as in v1.2
    assert values_at(value, "flights.*.missing") == []
    assert values_at([[1, 2], [3]], "*.*") == [1, 2, 3]


def test_sentences_and_numbers() -> None:
    text = "Done. Your refund of $1,200.50 is issued!\nNext?  ok\r\n\n"
    assert answer_sentences(text) == ["Done.", "Your refund of $1,200.50 is issued!", "Next?", "ok"]
    assert text_number("$1,200.50") == text_number("1200.5") == Decimal("1200.5")
    assert text_number("120,") == 120
    assert text_number("-€ 5") == -5
    assert text_number("1,2") is None
    assert text_number("12a") is None


@given(st.decimals(min_value=0, max_value=10**9, places=2, allow_nan=False))
def test_any_grouped_amount_equals_its_number(amount: Decimal) -> None:
    grouped = f"${amount:,.2f}"
    assert text_number(grouped) == amount


@pytest.mark.parametrize(
    ("claim", "message"),
    [
        ({**REFUND, "same": {"total": "amount"}}, "'when' has no group named 'total'"),
        ({**REFUND, "requires": []}, "must be a tool name or a non-empty list"),
        ({**REFUND, "when": "("}, "is not a valid regular expression"),
        ({**REFUND, "scope": "every"}, "must be one of final, all"),
        ({**REFUND, "same": {"amount": "a..b"}}, "must be a dotted path of non-empty parts"),
        ({k: v for k, v in REFUND.items() if k != "requires"}, "requires: is required"),
    ],
)
def test_claim_errors(claim: dict[str, Any], message: str) -> None:
    with pytest.raises(PolicyError, match="claims\\[0\\]") as caught:
        Policy.from_dict(_policy(claim))
    assert message in str(caught.value)


def test_duplicate_names_refused() -> None:
    with pytest.raises(PolicyError, match=r"claims\[1\]\.name: 'refund issued' is already"):
        Policy.from_dict(_policy(REFUND, REFUND))


@pytest.mark.parametrize(
    ("document", "guess"),
    [
        (
            _policy({**REFUND, "requries": "x"}),
            "claims[0].requries: unknown key (did you mean 'requires'?)",
        ),
        (
            _policy({**REFUND, "values": [{"pattern": "x", "in": "a", "inn": "b"}]}),
            "did you mean 'in'?",
        ),
        (
            {"policy_id": "p", "completion": {"no_false_sucess": True}},
            "did you mean 'no_false_success'?",
        ),
    ],
)
def test_typos_warned_and_refused_by_the_schema(document: dict[str, Any], guess: str) -> None:
    assert not SCHEMA.is_valid(document)
    warnings = check_policy(document).warnings
    assert any(guess in str(w) for w in warnings), warnings


def test_new_keys_follow_the_schema() -> None:
    document = _policy(
        REFUND,
        {
            "name": "booked",
            "when": "booked",
            "requires": ["a", "b"],
            "values": [{"pattern": "([A-Z]{3}[0-9]{3})", "in": "flights.*.flight_number"}],
            "scope": "all",
            "ignore_case": True,
        },
        completion={"no_false_success": True, "success_pattern": "done", "failure_pattern": "x"},
    )
    SCHEMA.validate(document)
    assert not check_policy(document).warnings


def test_finding_shows_sentence_and_the_call_checked() -> None:
    steps = [
        tool_call("s1", "issue_refund", {"amount": 12}, output="ok"),
        response("r1", "Hello. Your refund of $120 has been issued."),
    ]
    (finding,) = report(steps, _policy(REFUND)).findings
    assert finding.message == (
        "claim 'refund issued' not backed: amount 120 ≠ 12 (step s1); "
        'the answer says "Your refund of $120 has been issued."'
    )
    assert finding.step_id == "r1" and finding.source_step_id == "s1"
    assert finding.observed == {
        "claim": "refund issued",
        "sentence": "Your refund of $120 has been issued.",
        "claimed": {"amount": "120"},
    }
    assert finding.expected == {
        "requires": ["issue_refund"],
        "call": {"step_id": "s1", "tool": "issue_refund", "ok": True, "values": {"amount": 12}},
    }


def test_false_success_names_the_failed_call() -> None:
    steps = [
        tool_call("s1", "book", {}, status="error", error="no seats"),
        response("r1", "All set! Your trip is booked."),
    ]
    got = report(steps, {"policy_id": "p", "completion": {"no_false_success": ["book"]}})
    (finding,) = got.findings
    assert finding.message == (
        'the answer claims success ("All set!") but the last call of a listed tool, book '
        "(step s1), failed"
    )
    assert (finding.step_id, finding.source_step_id) == ("r1", "s1")


def test_grounding_score_is_the_lower_of_coverage_and_claims() -> None:
    steps = [
        response("r0", "cited", requires_grounding=True, citations=[{"source": "kb"}]),
        response("r1", "Refund of $5 issued. Refund of $6 issued."),
        tool_call("s1", "issue_refund", {"amount": 5}, output="ok"),
    ]
    got = report(steps, _policy({**REFUND, "scope": "all"}))
    assert got.category_scores["grounding"] == 0.0  # both sentences before the call
    steps[1], steps[2] = steps[2], steps[1]
    got = report(steps, _policy({**REFUND, "scope": "all"}))
    assert got.category_scores["grounding"] == 50.0  # $6 was never refunded


def test_chunked_reading_gives_the_same_report() -> None:
    steps = [
        response("r0", "Refund of $9 issued."),
        tool_call("s1", "issue_refund", {"amount": 9}, output="ok"),
        tool_call("s2", "book", {}, status="error", error="x"),
        response("r1", "Your refund of $9 has been issued. Done."),
        response("r2", "Refund of $10 issued."),
        tool_call("s3", "book", {}, output="ok"),
    ]
    for scope in ("final", "all"):
        policy = Policy.from_dict(
            _policy({**REFUND, "scope": scope}, completion={"no_false_success": ["book"]})
        )
        trace_dict, _ = with_defaults(steps, None)
        trace = Trace.from_dict(trace_dict)
        whole = Evaluator(policy).evaluate(trace)
        run = Evaluator(policy).start()
        for start in range(0, len(trace.steps), 2):
            run.add(trace.steps[start : start + 2])
        chunked = run.finish(trace)
        assert whole.to_dict() == chunked.to_dict()
        assert whole.findings


_STEPS = st.lists(
    st.one_of(
        st.builds(
            lambda amount, ok: tool_call(
                "x", "issue_refund", {"amount": amount}, output="ok" if ok else "Error: no"
            ),
            st.sampled_from([5, 6, 1200.5]),
            st.booleans(),
        ),
        st.builds(
            lambda text: response("x", text),
            st.sampled_from(
                ["Refund of $5 issued.", "All set! Refund of $1,200.50 issued.", "Sorry.", " "]
            ),
        ),
    ),
    max_size=12,
)


@given(_STEPS, st.integers(1, 5), st.sampled_from(["final", "all"]))
def test_any_chunking_gives_the_same_report(
    steps: list[dict[str, Any]], size: int, scope: str
) -> None:
    steps = [{**step, "step_id": f"s{n}"} for n, step in enumerate(steps)]
    policy = Policy.from_dict(
        _policy(
            {**REFUND, "scope": scope},
            error_handling={"error_output_patterns": ["^Error"]},
            completion={"no_false_success": ["issue_refund"]},
        )
    )
    trace_dict, _ = with_defaults(steps, None)
    trace = Trace.from_dict(trace_dict)
    run = Evaluator(policy).start()
    for start in range(0, len(trace.steps), size):
        run.add(trace.steps[start : start + size])
    assert run.finish(trace).to_dict() == Evaluator(policy).evaluate(trace).to_dict()
