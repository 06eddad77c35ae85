"""Reading a decoded document (or a session file's lines) as canonical traces: one pass
of detection (core/detect.py), one choice, one conversion, the refusal rule.

`auto`: a canonical trace is read as is; otherwise the formats that claim the document
on their own evidence (envelopes, plugins) outrank those claiming a shared wire shape;
two claims on own evidence are ambiguous; several shared claims are converted and the
one that maps clearly the most wins (core/select.py); no claim is refused naming the
format the document comes closest to and why it is not that format (core/claims.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from ...errors import AdapterError
from . import canonical
from . import select as choose
from .base import Adapter
from .claims import closest, line_contradiction, never_writes
from .detect import Scan, scan
from .exports import joined_requests
from .plugins import by_name, formats, plugins
from .registry import ADAPTERS, BY_NAME

AUTO = "auto"


class Identity(msgspec.Struct, frozen=True):
    """Labels set by the user (`--trace-id`, `--agent-name`, `--workflow`); None keeps the
    transcript's (or the file name's)."""

    trace_id: str | None = None
    agent_name: str | None = None
    workflow: str | None = None


def format_names() -> tuple[str, ...]:
    """Every format's name, built-in then plugin (plugins are not imported to know it)."""
    from .plugins import names  # noqa: PLC0415 - entry points read when asked

    return (*BY_NAME, *(n for n in names() if n not in BY_NAME))


def to_canonical(
    value: Any, fmt: str = AUTO, name_hint: str = "trace", identity: Identity | None = None
) -> list[Any]:
    """Canonical trace objects held by a decoded document in format `fmt` (or detected).

    A transcript format that cannot read the document (it maps no step, or drops most
    of it) raises AdapterError instead of returning an empty trace."""
    value = joined_requests(value)
    if _dataset_header(value):
        return []
    found = scan(value)  # every format's claim on it, each asked once
    if fmt == AUTO:
        traces = _auto(found, name_hint)
    else:
        adapter = by_name(fmt)
        if adapter is None:
            raise AdapterError(
                f"unknown format '{fmt}'; expected one of: " + ", ".join((AUTO, *format_names()))
            )
        traces = _explicit(adapter, found, name_hint)
    return relabel(traces, identity) if identity else traces


def _auto(found: Scan, name_hint: str) -> list[Any]:
    # A canonical trace (or a list that holds any) is never mistaken for a transcript;
    # malformed canonical traces still reach the parser for a precise error.
    if found.canonical():
        return canonical.ADAPTER.convert(found.value, name_hint)
    return choose.select(_chosen(found), found.value, name_hint)


def _chosen(found: Scan) -> list[Adapter]:
    """The claimants `auto` converts: refused when none, or two on their own evidence."""
    claimants = found.claimants()
    if not claimants:
        raise unrecognised(found)
    own = [a for a in claimants if a.evidence.own]
    if len(own) > 1:
        names = ", ".join(a.name for a in own)
        raise AdapterError(
            f"ambiguous input format: {names} each claim it on evidence of their own; "
            "pass --format with one of them"
        )
    return claimants


def detect(value: Any) -> Adapter:
    """The format `auto` reads the document as (canonical first, then the clear best of
    the claiming formats); AdapterError naming the closest format if none claims it."""
    found = scan(value)
    if found.canonical():
        return canonical.ADAPTER
    claimants = _chosen(found)
    if len(claimants) > 1:
        traces = choose.select(claimants, value, "trace")
        sources = {t.get("source") for t in traces if isinstance(t, dict)}
        claimants = [a for a in claimants if a.name in sources] or claimants[:1]
    return claimants[0]


def claimants(value: Any) -> list[Adapter]:
    """The transcript formats that claim the document, in registry order; only those
    claiming it on their own evidence when any does."""
    return scan(value).claimants()


def envelope_of(value: Any) -> Adapter | None:
    """The envelope format that holds a document, or one line of its session file."""
    return scan(value).envelope()


def _dataset_header(value: Any) -> bool:
    """The first line of an Invariant dataset JSONL export (AgentDojo's published runs):
    `{"metadata": {...}}`, the dataset's own metadata, before one trace per line. It holds
    no trace and is no error: bookkeeping of the file."""
    return isinstance(value, dict) and len(value) == 1 and isinstance(value.get("metadata"), dict)


def unrecognised(found: Scan) -> AdapterError:
    """No format claims the document: the format whose claim it contradicts, else the one
    it comes closest to and what it lacks of it, or that nothing in it is any format's own."""
    if found.contradicted:
        name, mark = next(iter(found.contradicted.items()))
        adapter = by_name(name)
        assert adapter is not None
        why = f"it looks like {name}, but {never_writes(adapter, mark)}"
    else:
        near = closest(found.value)
        why = near or (
            "no format-specific field found (a conversation of plain text messages looks the "
            "same in several formats)"
        )
    return AdapterError(
        f"unrecognised input format: {why}; pass --format with one of: "
        + ", ".join(a.name for a in formats())
    )


def _explicit(adapter: Adapter, found: Scan, name_hint: str) -> list[Any]:
    """The traces of a document under an explicit `--format`: refused when another format's
    envelope holds it, when it shows what the format never writes, or when it lacks the
    format's markers and reads otherwise than as the formats that claim it."""
    value = found.value
    if adapter is canonical.ADAPTER:
        return canonical.explicit(value, name_hint, lambda _: found.looks_like())
    owner = found.envelope()
    if owner is not None and owner is not adapter and not _also_own(adapter, found):
        raise choose.foreign(adapter, owner)
    found.claims(adapter)
    mark = found.contradicted.get(adapter.name)
    if mark is not None:
        raise AdapterError(f"{choose.not_format(adapter)}: {never_writes(adapter, mark)}")
    rivals = [a for a in found.formats()[1:] if a is not adapter and found.claims(a)]
    owns = found.claims(adapter) if adapter.markers is None else adapter.owns(value)
    return choose.explicit(adapter, value, name_hint, rivals, owns)


def _also_own(adapter: Adapter, found: Scan) -> bool:
    """The named format claims the document on its own evidence too (the user settles an
    ambiguity with --format)."""
    return adapter.evidence.own and found.claims(adapter)


def checked(adapter: Adapter, traces: list[Any]) -> list[Any]:
    """The refusal rule of `to_canonical` for traces an adapter produced another way (a
    session JSONL file read with `convert_lines`): AdapterError ("not an X transcript:
    ...") when they map no step or fewer items than they note."""
    return traces if adapter is canonical.ADAPTER else choose.checked(adapter, traces)


def session_formats(fmt: str) -> tuple[Adapter, ...]:
    """The formats that read a JSONL file whole (one file = one session) for this
    --format, built-in then plugin (a plugin that cannot be used reads none)."""
    every = (*ADAPTERS, *plugins().formats)
    chosen = every if fmt == AUTO else tuple(a for a in every if a.name == fmt)
    return tuple(a for a in chosen if a.detect_line is not None and a.convert_lines is not None)


def session_format(sessions: tuple[Adapter, ...], first: Any) -> Adapter | None:
    """The session format that claims a file by its first line's decoded value."""
    return next((a for a in sessions if a.detect_line is not None and a.detect_line(first)), None)


def convert_session(
    adapter: Adapter,
    lines: Iterable[tuple[int, Any]],
    name_hint: str = "trace",
    identity: Identity | None = None,
) -> list[Any]:
    """Canonical trace objects of a session file (an adapter with `convert_lines`), from
    its (line number, decoded value) pairs in order, with the user's labels applied. A
    line the format never writes (`against`) refuses the session."""
    if adapter.convert_lines is None:
        raise AdapterError(f"format '{adapter.name}' does not read session files")
    if adapter.evidence.against:
        lines = _consistent(adapter, lines)
    traces = checked(adapter, adapter.convert_lines(lines, name_hint))
    return relabel(traces, identity) if identity else traces


def _consistent(adapter: Adapter, lines: Iterable[tuple[int, Any]]) -> Iterator[tuple[int, Any]]:
    for at, value in lines:
        mark = line_contradiction(adapter, value)
        if mark is not None:
            raise AdapterError(
                f"{choose.not_format(adapter)}: line {at}: {never_writes(adapter, mark)}"
            )
        yield at, value


def relabel(traces: list[Any], identity: Identity) -> list[Any]:
    """Apply user labels; several traces from one file get `<trace-id>-<n>` to stay unique."""
    relabelled: list[Any] = []
    for number, original in enumerate(traces, start=1):
        trace = dict(original) if isinstance(original, dict) else original
        if isinstance(trace, dict):
            if identity.trace_id is not None:
                many = len(traces) > 1
                trace["trace_id"] = f"{identity.trace_id}-{number}" if many else identity.trace_id
            if identity.agent_name is not None:
                trace["agent_name"] = identity.agent_name
            if identity.workflow is not None:
                trace["workflow"] = identity.workflow
        relabelled.append(trace)
    return relabelled
