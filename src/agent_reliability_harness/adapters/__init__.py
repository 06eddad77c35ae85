"""Adapters registry: recorded formats -> canonical trace objects.

ADAPTERS is ordered; `auto` detection tries them in that order and the first
match wins, so more specific formats come first (see docs/adapters.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from ..errors import AdapterError
from ..io import TRACE_SUFFIXES
from . import _select, canonical
from ._registry import TRANSCRIPTS, deferred
from .base import Adapter

# Order is data (adapters/_registry.py lists the transcript formats in this order; only
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
ADAPTERS: tuple[Adapter, ...] = (canonical.ADAPTER, *(deferred(row) for row in TRANSCRIPTS))
BY_NAME: dict[str, Adapter] = {a.name: a for a in ADAPTERS}
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
# Formats recognised by the envelope their tool writes around the messages: a document
# (or a session line) in one of these envelopes is read by that format only; under any
# other explicit format it is an input error that names it.
ENVELOPES: tuple[Adapter, ...] = tuple(
    BY_NAME[name]
    for name in (
        "claude-code",
        "codex-cli",
        "codex-exec",
        "gemini-cli",
        "gemini-stream",
        "swe-agent",
        "atif",
        "autogen",
        "tau-bench",
        "openhands",
        "smolagents",
        "browser-use",
        "letta",
        # Formats whose markers no other format writes: Cohere's tool_plan, document tool
        # content, billed_units (what OpenAI never sends), Inspect's `eval` + `samples`,
        # LangChain's message types (`human`/`ai`, `lc` constructors) and LangSmith run
        # types, Langfuse's capitalised observation types, JSON-RPC 2.0, Pydantic AI's
        # `part_kind`. (Not openinference: otel-genai claims every OTLP export too, and
        # coverage decides.)
        "cohere-chat",
        "inspect",
        "langchain",
        "langfuse",
        "mcp",
        "pydantic-ai",
    )
)


class Identity(msgspec.Struct, frozen=True):
    """Labels set by the user (`--trace-id`, `--agent-name`, `--workflow`); None keeps the
    transcript's (or the file name's)."""

    trace_id: str | None = None
    agent_name: str | None = None
    workflow: str | None = None


def claimants(value: Any) -> list[Adapter]:
    """The transcript formats whose cheap `detect` claims the document, in registry order;
    only the envelope formats among them when one of those claims it."""
    found = [adapter for adapter in ADAPTERS[1:] if adapter.detect(value)]
    enveloped = [adapter for adapter in found if adapter in ENVELOPES]
    return enveloped or found


def envelope_of(value: Any) -> Adapter | None:
    """The envelope format that holds a document, or one line of its session file."""
    for adapter in ENVELOPES:
        if adapter.detect(value):
            return adapter
        if isinstance(value, dict) and adapter.detect_line and adapter.detect_line(value):
            return adapter
    return None


def detect(value: Any) -> Adapter:
    """The format `auto` reads the document as (canonical first, then the clear best of
    the claiming formats); AdapterError listing formats if none claims it."""
    if value == [] or _canonical_shaped(value):
        return canonical.ADAPTER
    found = claimants(value)
    if len(found) > 1:
        traces = _select.select(found, value, "trace")
        sources = {t.get("source") for t in traces if isinstance(t, dict)}
        found = [a for a in found if a.name in sources] or found[:1]
    if not found:
        raise _unrecognised()
    return found[0]


def _dataset_header(value: Any) -> bool:
    """The first line of an Invariant dataset JSONL export (AgentDojo's published runs):
    `{"metadata": {...}}`, the dataset's own metadata, before one trace per line. It holds
    no trace and is no error: bookkeeping of the file."""
    return isinstance(value, dict) and len(value) == 1 and isinstance(value.get("metadata"), dict)


def _unrecognised() -> AdapterError:
    return AdapterError(
        "unrecognised input format: no format-specific field found (a conversation of plain "
        "text messages looks the same in several formats); pass --format with one of: "
        + ", ".join(BY_NAME)
    )


def to_canonical(
    value: Any, fmt: str = AUTO, name_hint: str = "trace", identity: Identity | None = None
) -> list[Any]:
    """Canonical trace objects held by a decoded document in format `fmt` (or detected).

    A transcript format that cannot read the document (it maps no step, or drops most
    of it) raises AdapterError instead of returning an empty trace; `auto` keeps the
    claiming format that maps clearly the most (see adapters._select)."""
    value = _joined_requests(value)
    if _dataset_header(value):
        return []
    if fmt == AUTO:
        # A canonical trace (or a list that holds any) is never mistaken for a transcript;
        # malformed canonical traces still reach the parser for a precise error.
        if value == [] or _canonical_shaped(value):
            traces = canonical.ADAPTER.convert(value, name_hint)
        else:
            found = claimants(value)
            if not found:
                raise _unrecognised()
            traces = _select.select(found, value, name_hint)
    else:
        adapter = BY_NAME.get(fmt)
        if adapter is None:
            raise AdapterError(
                f"unknown format '{fmt}'; expected one of: " + ", ".join(FORMAT_CHOICES)
            )
        traces = _explicit(adapter, value, name_hint)
    return _relabel(traces, identity) if identity else traces


def _explicit(adapter: Adapter, value: Any, name_hint: str) -> list[Any]:
    """The traces of a document under an explicit `--format`: refused when another format's
    envelope holds it, or when it lacks the format's markers and reads otherwise than as
    the formats that claim it (see _select.explicit)."""
    if adapter is canonical.ADAPTER:
        return canonical.explicit(value, name_hint, _looks_like)
    owner = envelope_of(value)
    if owner is not None and owner is not adapter:
        raise _select.foreign(adapter, owner)
    rivals = [a for a in ADAPTERS[1:] if a is not adapter and a.detect(value)]
    return _select.explicit(adapter, value, name_hint, rivals)


def _looks_like(value: Any) -> list[Adapter]:
    owner = envelope_of(value)
    return [owner] if owner is not None else claimants(value)


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


# The export kind of spans written by the OpenTelemetry SDK's console exporter (read by
# otel-genai): batches of this kind join into an array of spans, not into an OTLP request.
CONSOLE_SPANS = "otel-genai/console"


_OTEL = BY_NAME["otel-genai"]
_AGENTS = BY_NAME["openai-agents"]
_ATIF = BY_NAME["atif"]  # an ATIF trajectory has `steps` too: never a canonical trace


def export_kind(value: Any) -> str | None:
    """The span-export format of a document ("otel-genai", "openai-agents") or None.
    Such exports arrive in batches (one per JSONL line) that `merge_exports` joins."""
    from ._otel_shapes import is_console_span  # noqa: PLC0415 - only off the canonical path

    if is_console_span(value):
        return CONSOLE_SPANS
    if _OTEL.detect(value):
        return _OTEL.name
    if isinstance(value, dict) and value.get("object") in ("trace", "trace.span"):
        return _AGENTS.name
    if isinstance(value, dict) and isinstance(value.get("data"), list):
        return _AGENTS.name if _AGENTS.detect(value) else None
    return None


def _joined_requests(value: Any) -> Any:
    """A JSON array of OTLP export requests as the one export they make, as when the same
    requests are the lines of a JSONL file."""
    if not isinstance(value, list) or not value or not isinstance(value[0], dict):
        return value
    if "resourceSpans" not in value[0] or not all(export_kind(v) == _OTEL.name for v in value):
        return value
    return merge_exports(_OTEL.name, value)


def merge_exports(kind: str, values: list[Any]) -> Any:
    """One export holding the batches of `values` (all of span-export `kind`), in order."""
    if kind == CONSOLE_SPANS:
        return list(values)  # one console-exporter span per line
    if kind == _OTEL.name:
        from ._otel_shapes import resource_spans  # noqa: PLC0415 - only for span exports

        return {"resourceSpans": [rs for v in values for rs in resource_spans(v) or []]}
    items: list[Any] = []
    for value in values:
        items.extend(value["data"] if isinstance(value.get("data"), list) else [value])
    return {"data": items}


_CANONICAL_KEYS = ("trace_id", "steps", "agent_name", "workflow")


def _canonical_shaped(value: Any) -> bool:
    """An object (or array of objects) that is a canonical trace: it has `steps`, or
    canonical labels and nothing a transcript format claims (a chat body may carry a
    `trace_id` label next to its messages). Agents SDK span items also carry
    `trace_id`, so a span export is never taken for traces."""
    if export_kind(value) is not None or _AGENTS.detect(value) or _ATIF.detect(value):
        return False
    items = value if isinstance(value, list) else [value]
    if any(isinstance(v, dict) and "steps" in v for v in items[:1000]):
        return True
    labelled = any(isinstance(v, dict) and any(k in v for k in _CANONICAL_KEYS) for v in items)
    return labelled and not claimants(value)


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
