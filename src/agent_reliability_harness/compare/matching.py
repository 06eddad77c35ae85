"""Finding matching: which findings of a trace are new, which resolved, which persist.

Findings match as multisets on the fingerprint (rule_id, category, step_id);
messages are ignored because they carry measured values.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from ..models.report import Finding


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The outcome of matching one trace's baseline findings against its candidate findings."""

    new: tuple[Finding, ...]
    resolved: tuple[Finding, ...]
    unchanged: int


def fingerprint(finding: Finding) -> tuple[str | None, str, str | None]:
    """The regression fingerprint without the trace id (matching is done per trace)."""
    return (finding.rule_id, finding.category, finding.step_id)


def _loose_key(finding: Finding) -> tuple[str, str | None]:
    return (finding.category, finding.step_id)


def _pair_group(
    left: list[int], right: list[int], lf: Sequence[Finding], rf: Sequence[Finding]
) -> None:
    """Pair indices of one key group in place: identical messages first, then in order.

    Matched indices are removed from both lists. Which findings pair up never
    changes the counts; preferring equal messages only makes the reported
    new/resolved findings the ones a reader would pick.
    """
    taken_right: set[int] = set()
    taken_left: set[int] = set()
    by_message: dict[str, deque[int]] = defaultdict(deque)
    for j in right:
        by_message[rf[j].message].append(j)
    for i in left:
        queue = by_message.get(lf[i].message)
        if queue:
            taken_right.add(queue.popleft())
            taken_left.add(i)
    rest_left = [i for i in left if i not in taken_left]
    rest_right = [j for j in right if j not in taken_right]
    for i, j in zip(rest_left, rest_right, strict=False):
        taken_left.add(i)
        taken_right.add(j)
    left[:] = [i for i in left if i not in taken_left]
    right[:] = [j for j in right if j not in taken_right]


def _match_pass(
    baseline: Sequence[Finding],
    candidate: Sequence[Finding],
    open_b: list[int],
    open_c: list[int],
    *,
    key: Callable[[Finding], Hashable],
    eligible_b: Callable[[Finding], bool],
    eligible_c: Callable[[Finding], bool],
) -> tuple[list[int], list[int]]:
    """One matching pass over the still-open findings; returns those left open (in order)."""
    groups_b: dict[Hashable, list[int]] = defaultdict(list)
    groups_c: dict[Hashable, list[int]] = defaultdict(list)
    for i in open_b:
        if eligible_b(baseline[i]):
            groups_b[key(baseline[i])].append(i)
    for j in open_c:
        if eligible_c(candidate[j]):
            groups_c[key(candidate[j])].append(j)
    matched_b: set[int] = set()
    matched_c: set[int] = set()
    for group_key, left in groups_b.items():
        right = groups_c.get(group_key)
        if not right:
            continue
        before_l, before_r = set(left), set(right)
        _pair_group(left, right, baseline, candidate)
        matched_b |= before_l - set(left)
        matched_c |= before_r - set(right)
    return (
        [i for i in open_b if i not in matched_b],
        [j for j in open_c if j not in matched_c],
    )


def match_findings(baseline: Sequence[Finding], candidate: Sequence[Finding]) -> MatchResult:
    """Match one trace's findings; both sequences keep their report order in the result.

    Pass 1 matches equal fingerprints. Pass 2 lets a finding without a rule_id
    (a v0.1 report) match on (category, step_id) alone; two findings that both
    carry a rule_id match only in pass 1, so different rule IDs never match.
    """
    open_b = list(range(len(baseline)))
    open_c = list(range(len(candidate)))

    def anything(_: Finding) -> bool:
        return True

    open_b, open_c = _match_pass(
        baseline,
        candidate,
        open_b,
        open_c,
        key=fingerprint,
        eligible_b=anything,
        eligible_c=anything,
    )
    if any(baseline[i].rule_id is None for i in open_b):
        # Baseline findings lacking a rule_id against candidate findings that have one.
        open_b, open_c = _match_pass(
            baseline,
            candidate,
            open_b,
            open_c,
            key=_loose_key,
            eligible_b=lambda f: f.rule_id is None,
            eligible_c=lambda f: f.rule_id is not None,
        )
    if any(candidate[j].rule_id is None for j in open_c):
        # The mirror case (a v0.1 candidate), so swapping the two reports swaps the result.
        open_b, open_c = _match_pass(
            baseline,
            candidate,
            open_b,
            open_c,
            key=_loose_key,
            eligible_b=lambda f: f.rule_id is not None,
            eligible_c=lambda f: f.rule_id is None,
        )
    unchanged = len(baseline) - len(open_b)
    return MatchResult(
        new=tuple(candidate[j] for j in open_c),
        resolved=tuple(baseline[i] for i in open_b),
        unchanged=unchanged,
    )
