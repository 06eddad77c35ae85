"""`sequence.call_order` chains from the order of first calls in good runs.

A pair (a, b) holds when, in every good run that calls both, a's first call comes before
b's (the way ARH-SEQ-003 reads a pair), and at least `support` runs call both. Pairs are
accepted by support (most first) unless one would close a cycle; chains then cover the
accepted pairs, each chain a list in which every ordered pair is accepted, so the policy
checks exactly the accepted pairs and nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping

Pair = tuple[str, str]


def holding_pairs(before: Mapping[Pair, int], support: int) -> dict[Pair, int]:
    """Pair -> runs that support it, for the pairs never seen the other way round."""
    return {
        (a, b): count
        for (a, b), count in before.items()
        if count >= support and before.get((b, a), 0) == 0
    }


def _reaches(edges: Mapping[str, set[str]], start: str, goal: str) -> bool:
    pending, seen = [start], {start}
    while pending:
        node = pending.pop()
        if node == goal:
            return True
        for nxt in edges.get(node, ()):
            if nxt not in seen:
                seen.add(nxt)
                pending.append(nxt)
    return False


def acyclic(pairs: Mapping[Pair, int]) -> dict[Pair, int]:
    """The pairs in order of support (then names), each kept unless it closes a cycle
    with those kept before it."""
    edges: dict[str, set[str]] = {}
    kept: dict[Pair, int] = {}
    for (a, b), count in sorted(pairs.items(), key=lambda item: (-item[1], item[0])):
        if _reaches(edges, b, a):
            continue
        edges.setdefault(a, set()).add(b)
        kept[(a, b)] = count
    return kept


def _insert(chain: list[str], tool: str, pairs: Mapping[Pair, int]) -> bool:
    for at in range(len(chain) + 1):
        if all((x, tool) in pairs for x in chain[:at]) and all(
            (tool, y) in pairs for y in chain[at:]
        ):
            chain.insert(at, tool)
            return True
    return False


def chains(pairs: Mapping[Pair, int]) -> list[list[str]]:
    """Chains covering every pair (and only accepted pairs), strongest first."""
    tools = sorted({t for pair in pairs for t in pair})
    uncovered = dict(pairs)
    out: list[list[str]] = []
    while uncovered:
        (a, b), _ = min(uncovered.items(), key=lambda item: (-item[1], item[0]))
        chain = [a, b]
        grown = True
        while grown:
            grown = any(t not in chain and _insert(chain, t, pairs) for t in tools)
        for i, earlier in enumerate(chain):
            for later in chain[i + 1 :]:
                uncovered.pop((earlier, later), None)
        out.append(chain)
    return out
