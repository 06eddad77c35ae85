"""The nesting of Langfuse observations that says which generation is the model call:
a GENERATION with a GENERATION below it wraps the same call (a function observed as a
generation around the integration's generation), and a wrapper's output may be the answer
of the call below it that recorded none."""

from __future__ import annotations

from typing import Any

from ..core.common import first


def _id(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _parent(item: dict[str, Any]) -> str | None:
    return _id(first(item, "parentObservationId", "parent_observation_id"))


def wrappers_of(observations: list[tuple[str, dict[str, Any]]]) -> set[str]:
    """GENERATIONs with a GENERATION below them: a function observed as a generation
    around the integration's generation of the same call. They repeat its messages and
    usage; the innermost generation is the call."""
    parents = {_id(o.get("id")): _parent(o) for _, o in observations}
    generations = {_id(o.get("id")): at for at, o in observations if o.get("type") == "GENERATION"}
    found: set[str] = set()
    for own in generations:
        seen = {own}
        up = parents.get(own)
        while up is not None and up not in seen:  # ids may repeat in a damaged export
            seen.add(up)
            if up in generations:
                found.add(generations[up])
            up = parents.get(up)
    return found


def carried_outputs(
    ordered: list[tuple[str, dict[str, Any]]], wrappers: set[str]
) -> dict[str, tuple[str, Any]]:
    """Generation -> (wrapper, output) it takes: a wrapper's output is the answer of the last
    generation below it when that one recorded no output (the Vercel AI SDK's
    `ai.streamText` holds the streamed text, its `ai.streamText.doStream` none). The
    nearest wrapper with an output gives it."""
    parents = {_id(o.get("id")): _parent(o) for _, o in ordered}
    generations = {_id(o.get("id")): (at, o) for at, o in ordered if o.get("type") == "GENERATION"}
    last: dict[str, str] = {}  # wrapper id -> the last call below it (start order)
    for own, (at, _) in generations.items():
        seen, up = {own}, parents.get(own)
        while at not in wrappers and up is not None and up not in seen:
            seen.add(up)
            if up in generations:
                last[up] = at
            up = parents.get(up)
    found: dict[str, tuple[str, Any]] = {}
    for own, (at, item) in generations.items():
        if at in wrappers or item.get("output") is not None:
            continue
        seen, up = {own}, parents.get(own)
        while up is not None and up not in seen and last.get(up, at) == at:
            seen.add(up)
            outer = generations.get(up)
            if outer is not None and outer[1].get("output") is not None:
                found[at] = (outer[0], outer[1]["output"])
                break
            up = parents.get(up)
    return found


__all__ = ["carried_outputs", "wrappers_of"]
