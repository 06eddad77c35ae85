"""Sequence rules (ARH-SEQ-*): required, forbidden, order and call counts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_reliability_harness.engine import Evaluator
from agent_reliability_harness.models import Policy
from agent_reliability_harness.models.trace import Trace
from agent_reliability_harness.rules import MAX_FINDINGS
from helpers import findings, report, tool_call


def _calls(*names: str) -> list[dict[str, object]]:
    return [tool_call(f"s{i}", name) for i, name in enumerate(names, start=1)]


def test_forbidden_tools_fire_per_call_and_check_per_tool() -> None:
    policy = {"sequence": {"forbidden_tools": ["rm", "drop"]}}
    got = report(_calls("ls", "rm", "rm"), policy)
    assert [(f.rule_id, f.step_id) for f in got.findings] == [
        ("ARH-SEQ-002", "s2"),
        ("ARH-SEQ-002", "s3"),
    ]
    assert got.category_scores["sequence"] == 50.0  # rm failed, drop passed


def test_call_order_uses_first_calls_and_skips_uncalled_tools() -> None:
    policy = {"sequence": {"call_order": ["a", "b", "c"]}}
    assert findings(_calls("a", "b", "a", "c"), policy) == []
    assert findings(_calls("b", "a"), policy) == [("ARH-SEQ-003", "error", "s1")]
    assert findings(_calls("c", "x"), policy) == []


def test_a_long_reversed_call_order_is_counted_without_listing_every_pair() -> None:
    tools = [f"tool{i:04d}" for i in range(2000)]
    got = report(_calls(*reversed(tools)), {"sequence": {"call_order": tools}})
    pairs = 2000 * 1999 // 2
    assert len(got.findings) == MAX_FINDINGS + 1
    assert got.findings[-1].message == f"... and {pairs - MAX_FINDINGS} more ARH-SEQ-003 findings"
    assert got.findings[-1].observed == pairs - MAX_FINDINGS
    # The first in report order: the last-listed tool, called first, against each other.
    first = got.findings[0]
    assert (first.step_id, first.message) == (
        "s1",
        "tool 'tool1999' was first called before 'tool0000'",
    )
    assert got.category_scores["sequence"] == 0.0


def test_the_kept_order_findings_are_the_first_of_all_pairs_in_report_order() -> None:
    order = [f"t{i:02d}" for i in range(60)]
    called = order[40:][::-1] + order[:40][::-1]  # most pairs violated, in a mixed pattern
    got = report(_calls(*called), {"sequence": {"call_order": order}})
    first = {name: index for index, name in reversed(list(enumerate(called)))}
    every = sorted(
        (first[after], f"tool '{after}' was first called before '{before}'")
        for i, before in enumerate(order)
        for after in order[i + 1 :]
        if first[after] < first[before]
    )
    assert len(every) > MAX_FINDINGS
    kept = [(f.step_id, f.message) for f in got.findings[:MAX_FINDINGS]]
    assert kept == [(f"s{position + 1}", message) for position, message in every[:MAX_FINDINGS]]
    assert got.findings[-1].observed == len(every) - MAX_FINDINGS


def test_call_counts() -> None:
    policy = {"allowed_tools": {"a": {"max_calls": 1, "min_calls": 1}, "b": {"min_calls": 2}}}
    got = report(_calls("a", "a", "b"), policy)
    assert [(f.rule_id, f.observed) for f in got.findings] == [
        ("ARH-SEQ-004", 2),
        ("ARH-SEQ-005", 1),
    ]
    assert got.category_scores["sequence"] == round(100 / 3, 2)


@st.composite
def _chains_and_calls(draw: st.DrawFn) -> tuple[list[list[str]], list[str]]:
    """Acyclic chains (each respects one hidden order of the tools) and a call list."""
    tools = [f"t{i}" for i in range(draw(st.integers(2, 7)))]
    rank = {name: i for i, name in enumerate(draw(st.permutations(tools)))}
    chains = []
    for _ in range(draw(st.integers(1, 4))):
        chain = draw(st.lists(st.sampled_from(tools), min_size=2, max_size=5, unique=True))
        chains.append(sorted(chain, key=rank.__getitem__))
    return chains, draw(st.lists(st.sampled_from([*tools, "other"]), max_size=10))


@settings(max_examples=150, deadline=None)
@given(_chains_and_calls())
def test_chains_check_every_pair_once(case: tuple[list[list[str]], list[str]]) -> None:
    """Counted chain by chain less the shared pairs, merged hits: what checking every
    distinct pair on its own gives."""
    chains, calls = case
    first: dict[str, int] = {}
    for position, name in enumerate(calls):
        first.setdefault(name, position)
    pairs = dict.fromkeys(
        (before, after)
        for chain in chains
        for i, before in enumerate(chain)
        for after in chain[i + 1 :]
    )
    checked = [(b, a) for b, a in pairs if b in first and a in first]
    violated = sorted(
        (first[a], f"tool '{a}' was first called before '{b}'")
        for b, a in checked
        if first[a] < first[b]
    )
    got = report(_calls(*calls), {"sequence": {"call_order": chains}})
    assert [(f.step_id, f.message) for f in got.findings] == [
        (f"s{position + 1}", message) for position, message in violated
    ]
    if checked:
        want = 100.0 * (len(checked) - len(violated)) / len(checked)
        assert got.category_scores["sequence"] == round(want, 2)
    else:
        assert "sequence" not in got.category_scores


def test_chains_keep_the_cap_and_the_true_count() -> None:
    tools = [f"tool{i:04d}" for i in range(60)]
    chains = [tools, tools[:30], tools[30:]]  # the second and third repeat pairs of the first
    got = report(_calls(*reversed(tools)), {"sequence": {"call_order": chains}})
    pairs = 60 * 59 // 2
    assert len(got.findings) == MAX_FINDINGS + 1
    assert got.findings[-1].observed == pairs - MAX_FINDINGS
    assert got.category_scores["sequence"] == 0.0


# ---- expected trajectories (ARH-SEQ-006/007) ------------------------------------------

BOOK = {"origin": "JFK", "destination": "SEA", "cabin": "economy"}


def _trajectory(*expected: dict[str, object], **options: object) -> dict[str, object]:
    return {"trajectory": {"expected": list(expected), **options}}


def test_a_missing_call_names_the_nearest_call_and_its_differences() -> None:
    policy = _trajectory({"tool": "book", "arguments": BOOK, "arguments_match": "subset"})
    steps = [
        tool_call("s1", "book", {"origin": "JFK", "destination": "LAX"}),
        tool_call("s2", "book", {**BOOK, "cabin": "business", "seats": 2}),
        tool_call("s3", "book", BOOK, error="payment declined"),
    ]
    (finding,) = report(steps, policy).findings
    assert finding.rule_id == "ARH-SEQ-006" and finding.step_id is None
    assert finding.message == (
        "expected call 'book' (trajectory.expected[0]) has no match; nearest: the call of "
        "'book' at step 's2', which differs in 'cabin' (\"business\", expected \"economy\") "
        "(1 failed call of 'book' not considered)"
    )
    assert finding.expected == {"tool": "book", "arguments": BOOK, "arguments_match": "subset"}
    assert finding.observed == {**BOOK, "cabin": "business", "seats": 2}


def test_exact_arguments_name_the_missing_and_the_unexpected_keys() -> None:
    policy = _trajectory({"tool": "a", "arguments": {"id": 1, "n": [1, 2]}})
    (finding,) = report([tool_call("s1", "a", {"n": [1, 2], "x": 0})], policy).findings
    assert finding.message.endswith("which differs in 'id' (missing), 'x' (not expected)")


def test_a_missing_call_without_any_call_of_its_tool() -> None:
    got = report([tool_call("s1", "b")], _trajectory({"tool": "a"}))
    assert [f.message for f in got.findings] == [
        "expected call 'a' (trajectory.expected[0]) was never made"
    ]
    assert got.findings[0].observed is None


def test_every_call_taken_by_another_entry_and_out_of_order_calls() -> None:
    taken = report([tool_call("s1", "a")], _trajectory({"tool": "a"}, {"tool": "a"}))
    assert [f.message for f in taken.findings] == [
        "expected call 'a' (trajectory.expected[1]) has no match: every call of 'a' matches "
        "another entry"
    ]
    late = report(
        [tool_call("s1", "b"), tool_call("s2", "a")], _trajectory({"tool": "a"}, {"tool": "b"})
    )
    assert [f.message for f in late.findings] == [
        "expected call 'b' (trajectory.expected[1]) has no match in order: the call of 'b' "
        "at step 's1' fits it but is out of order"
    ]


def test_unexpected_calls_say_why() -> None:
    policy = _trajectory({"tool": "a", "arguments": {"id": 1}}, match="strict")
    steps = [tool_call("s1", "a", {"id": 2}), tool_call("s2", "a", {"id": 1})]
    steps += [tool_call("s3", "a", {"id": 1}), tool_call("s4", "z")]
    got = report(steps, policy)
    assert [(f.step_id, f.message) for f in got.findings] == [
        (
            "s1",
            "call of 'a' matches no expected entry: its arguments fit no entry of 'a' (match 'strict')",
        ),
        (
            "s3",
            "call of 'a' matches no expected entry: the entries it fits are matched by other calls or out of order (match 'strict')",
        ),
        ("s4", "call of 'z' matches no expected entry: no entry names 'z' (match 'strict')"),
    ]
    assert got.category_scores["sequence"] == 40.0  # 1 entry + 4 calls, 3 failed


def test_unexpected_calls_are_capped_but_all_counted() -> None:
    steps = [tool_call(f"s{i}", "x") for i in range(MAX_FINDINGS + 500)]
    got = report(steps, _trajectory(match="strict"))
    assert len(got.findings) == MAX_FINDINGS + 1
    assert got.findings[-1].message == "... and 500 more ARH-SEQ-007 findings"
    assert got.category_scores["sequence"] == 0.0


def test_a_chunked_trace_gets_the_whole_report() -> None:
    policy = Policy.from_dict(
        {
            "policy_id": "p",
            "allow_unlisted_tools": True,
            **_trajectory({"tool": "a", "arguments": {"id": 1}}, {"tool": "b"}, match="unordered"),
        }
    )
    steps = [tool_call(f"s{i}", "ab"[i % 2], {"id": i % 3}) for i in range(40)]
    trace = Trace.from_dict({"trace_id": "t", "agent_name": "a", "workflow": "w", "steps": steps})
    evaluator = Evaluator(policy)
    whole = evaluator.evaluate(trace).to_dict()
    for size in (1, 3, 7):
        run = evaluator.start()
        for start in range(0, len(trace.steps), size):
            run.add(trace.steps[start : start + size])
        assert run.finish(trace).to_dict() == whole
