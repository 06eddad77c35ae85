"""Sequence rules (ARH-SEQ-*): required, forbidden, order and call counts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

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


@settings(max_examples=300, deadline=None)
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
