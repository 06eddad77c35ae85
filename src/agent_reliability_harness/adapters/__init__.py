"""Adapters registry: recorded formats -> canonical trace objects.

ADAPTERS is ordered (adapters/core/registry.py). `auto` detection asks every format's claim
on a document once (adapters/core/detect.py) and picks once: canonical traces first, then
the envelope formats that claim it, else the claiming format that maps clearly the most
(adapters/core/select.py); order settles equal readings, so more specific formats come
first. A document no format claims is refused naming the format it comes closest to
(adapters/core/claims.py). See docs/adapters.md, "How a format is detected".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from ..errors import AdapterError
from ..io import TRACE_SUFFIXES
from .core import canonical
from .core import detect as _detect
from .core import select as _select
from .core.base import Adapter
from .core.registry import ADAPTERS, BY_NAME, ENVELOPES

# Order is data (adapters/core/registry.py lists the transcript formats in this order; only
# canonical traces, the common case, are read by a module imported up front).
# Span exports (OTLP, Agents SDK) and Gemini `parts` have unique keys.
# Anthropic precedes the Responses API because both use `type: "message"`; Cohere precedes
# OpenAI Chat because Cohere v2 shares OpenAI's wire shape (tool_calls, role "tool") and is
# recognised only by what OpenAI never sends (tool_plan, documents, billed_units).
# The CLI-tool and benchmark formats come right after canonical traces: each is recognised
# by keys of its own envelope (session lines with `sessionId`/`uuid`, rollout lines with
# `payload`, `projectHash`, `trajectory`/`trajectory_format`, `task_id` + `traj`), while
# the messages inside are chat- or Anthropic-shaped and would be half-read by those
# adapters (a mini-swe-agent file's `messages` look like an OpenAI Chat request body).
# So a document in such an envelope is its format's alone (see ENVELOPES).
# OpenInference spans are OTLP exports too: recognised by `openinference.span.kind`
# before otel-genai claims any `resourceSpans` document. An Inspect eval log is one object
# with `eval` and `samples`, whose messages look like OpenAI Chat (`role: "tool"`): tried
# before every message format. LangChain messages are typed `human`/`ai`/`tool` (no
# `role`), but an AI message's content may hold Anthropic `tool_use` blocks: tried before
# anthropic-messages. Langfuse observations are typed in capitals (GENERATION, SPAN,
# TOOL...) with startTime. JSON-RPC 2.0 (`jsonrpc: "2.0"`) is no other format's marker.
# Pydantic AI messages have `parts` like Gemini contents, and are recognised by what
# Gemini never writes (`kind` request/response, `part_kind`), so they come first.
# ADAPTERS, BY_NAME and ENVELOPES are built in adapters/core/registry.py from its table.
# Binary container formats: file suffix -> the reader that decodes such a file into
# documents (the first adapter declaring a suffix owns it; otel-genai and openinference
# share one protobuf reader). Directory walks pick up every declared suffix.
FILE_READERS: dict[str, Callable[[bytes], list[Any]]] = {}
for _adapter in ADAPTERS:
    if _adapter.read_file is not None:
        for _suffix in _adapter.suffixes:
            FILE_READERS.setdefault(_suffix, _adapter.read_file)


def walk_suffixes() -> tuple[str, ...]:
    """The file suffixes a directory walk picks up: `.json`, `.jsonl` and every suffix the
    registered adapters declare (read from ADAPTERS when asked, so an adapter registered
    later is walked too)."""
    return tuple(dict.fromkeys((*TRACE_SUFFIXES, *(x for a in ADAPTERS for x in a.suffixes))))


WALK_SUFFIXES: tuple[str, ...] = walk_suffixes()
AUTO = "auto"
FORMAT_CHOICES: tuple[str, ...] = (AUTO, *BY_NAME)


class Identity(msgspec.Struct, frozen=True):
    """Labels set by the user (`--trace-id`, `--agent-name`, `--workflow`); None keeps the
    transcript's (or the file name's)."""

    trace_id: str | None = None
    agent_name: str | None = None
    workflow: str | None = None


def claimants(value: Any) -> list[Adapter]:
    """The transcript formats whose cheap `detect` claims the document, in registry order;
    only the envelope formats among them when one of those claims it."""
    return _detect.scan(value).claimants()


def envelope_of(value: Any) -> Adapter | None:
    """The envelope format that holds a document, or one line of its session file."""
    return _detect.scan(value).envelope()


def detect(value: Any) -> Adapter:
    """The format `auto` reads the document as (canonical first, then the clear best of
    the claiming formats); AdapterError naming the closest format if none claims it."""
    scan = _detect.scan(value)
    if scan.canonical():
        return canonical.ADAPTER
    found = scan.claimants()
    if len(found) > 1:
        traces = _select.select(found, value, "trace")
        sources = {t.get("source") for t in traces if isinstance(t, dict)}
        found = [a for a in found if a.name in sources] or found[:1]
    if not found:
        raise _unrecognised(value)
    return found[0]


def _dataset_header(value: Any) -> bool:
    """The first line of an Invariant dataset JSONL export (AgentDojo's published runs):
    `{"metadata": {...}}`, the dataset's own metadata, before one trace per line. It holds
    no trace and is no error: bookkeeping of the file."""
    return isinstance(value, dict) and len(value) == 1 and isinstance(value.get("metadata"), dict)


def _unrecognised(value: Any) -> AdapterError:
    """No format claims the document: the one it comes closest to and what it lacks of it
    (adapters/core/claims.py), or that nothing in it is any format's own."""
    from .core.claims import closest  # noqa: PLC0415 - only to refuse

    near = closest(value)
    why = (
        near
        if near is not None
        else (
            "no format-specific field found (a conversation of plain text messages looks the "
            "same in several formats)"
        )
    )
    return AdapterError(
        f"unrecognised input format: {why}; pass --format with one of: " + ", ".join(BY_NAME)
    )


def to_canonical(
    value: Any, fmt: str = AUTO, name_hint: str = "trace", identity: Identity | None = None
) -> list[Any]:
    """Canonical trace objects held by a decoded document in format `fmt` (or detected).

    A transcript format that cannot read the document (it maps no step, or drops most
    of it) raises AdapterError instead of returning an empty trace; `auto` keeps the
    claiming format that maps clearly the most (see adapters/core/select.py)."""
    value = _joined_requests(value)
    if _dataset_header(value):
        return []
    scan = _detect.scan(value)  # every format's claim on it, each asked once
    if fmt == AUTO:
        # A canonical trace (or a list that holds any) is never mistaken for a transcript;
        # malformed canonical traces still reach the parser for a precise error.
        if scan.canonical():
            traces = canonical.ADAPTER.convert(value, name_hint)
        else:
            found = scan.claimants()
            if not found:
                raise _unrecognised(value)
            traces = _select.select(found, value, name_hint)
    else:
        adapter = BY_NAME.get(fmt)
        if adapter is None:
            raise AdapterError(
                f"unknown format '{fmt}'; expected one of: " + ", ".join(FORMAT_CHOICES)
            )
        traces = _explicit(adapter, scan, name_hint)
    return _relabel(traces, identity) if identity else traces


def _explicit(adapter: Adapter, scan: _detect.Scan, name_hint: str) -> list[Any]:
    """The traces of a document under an explicit `--format`: refused when another format's
    envelope holds it, or when it lacks the format's markers and reads otherwise than as
    the formats that claim it (see _select.explicit)."""
    value = scan.value
    if adapter is canonical.ADAPTER:
        return canonical.explicit(value, name_hint, lambda _: scan.looks_like())
    owner = scan.envelope()
    if owner is not None and owner is not adapter:
        raise _select.foreign(adapter, owner)
    rivals = [a for a in ADAPTERS[1:] if a is not adapter and scan.claims(a)]
    owns = scan.claims(adapter) if adapter.markers is None else adapter.owns(value)
    return _select.explicit(adapter, value, name_hint, rivals, owns)


def checked(adapter: Adapter, traces: list[Any]) -> list[Any]:
    """The refusal rule of `to_canonical` for traces an adapter produced another way (a
    session JSONL file read with `convert_lines`): AdapterError ("not an X transcript:
    ...") when they map no step or fewer items than they note."""
    return traces if adapter is canonical.ADAPTER else _select.checked(adapter, traces)


def convert_session(
    adapter: Adapter,
    lines: Iterable[tuple[int, Any]],
    name_hint: str = "trace",
    identity: Identity | None = None,
) -> list[Any]:
    """Canonical trace objects of a session file (an adapter with `convert_lines`), from
    its (line number, decoded value) pairs in order, with the user's labels applied."""
    if adapter.convert_lines is None:
        raise AdapterError(f"format '{adapter.name}' does not read session files")
    traces = checked(adapter, adapter.convert_lines(lines, name_hint))
    return _relabel(traces, identity) if identity else traces


def _relabel(traces: list[Any], identity: Identity) -> list[Any]:
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


# Byte markers of a JSONL line that may be one batch of a span export (see export_kind);
# `"trace_state"` is in every span the OpenTelemetry SDK's console exporter writes.
EXPORT_MARKERS: tuple[bytes, ...] = (
    b'"resourceSpans"',
    b'"object"',
    b'"data"',
    b'"trace_state"',
)


CONSOLE_SPANS = _detect.CONSOLE_SPANS
_OTEL = BY_NAME["otel-genai"]


def export_kind(value: Any) -> str | None:
    """The span-export format of a document ("otel-genai", "openai-agents") or None.
    Such exports arrive in batches (one per JSONL line) that `merge_exports` joins. The
    claims asked are kept for the document's conversion (adapters/core/detect.py)."""
    return _detect.scan(value, keep=True).export_kind()


def _joined_requests(value: Any) -> Any:
    """A JSON array of OTLP export requests as the one export they make, as when the same
    requests are the lines of a JSONL file."""
    if not isinstance(value, list) or not value or not isinstance(value[0], dict):
        return value
    if "resourceSpans" not in value[0] or not all(
        _detect.scan(v).export_kind() == _OTEL.name for v in value
    ):
        return value
    return merge_exports(_OTEL.name, value)


def merge_exports(kind: str, values: list[Any]) -> Any:
    """One export holding the batches of `values` (all of span-export `kind`), in order."""
    if kind == CONSOLE_SPANS:
        return list(values)  # one console-exporter span per line
    if kind == _OTEL.name:
        from .tracing._otel_shapes import resource_spans  # noqa: PLC0415 - only for span exports

        return {"resourceSpans": [rs for v in values for rs in resource_spans(v) or []]}
    items: list[Any] = []
    for value in values:
        items.extend(value["data"] if isinstance(value.get("data"), list) else [value])
    return {"data": items}


__all__ = [
    "ADAPTERS",
    "AUTO",
    "BY_NAME",
    "ENVELOPES",
    "FILE_READERS",
    "FORMAT_CHOICES",
    "WALK_SUFFIXES",
    "Adapter",
    "Identity",
    "checked",
    "claimants",
    "convert_session",
    "detect",
    "envelope_of",
    "export_kind",
    "merge_exports",
    "to_canonical",
    "walk_suffixes",
]
