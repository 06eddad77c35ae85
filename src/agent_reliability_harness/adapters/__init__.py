"""Adapters registry: recorded formats -> canonical trace objects.

ADAPTERS is ordered; `auto` detection tries them in that order and the first
match wins, so more specific formats come first (see docs/adapters.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import AdapterError
from ..io import TRACE_SUFFIXES
from . import (
    anthropic_messages,
    canonical,
    cohere_chat,
    google_genai,
    inspect_log,
    langchain,
    langfuse,
    langsmith_runs,
    mcp_session,
    openai_agents,
    openai_chat,
    openai_responses,
    openinference,
    otel_genai,
    pydantic_ai,
)
from .base import Adapter

# Order is data. Span exports (OTLP, Agents SDK) and Gemini `parts` have unique keys.
# Anthropic precedes the Responses API because both use `type: "message"`; Cohere precedes
# OpenAI Chat because Cohere v2 shares OpenAI's wire shape (tool_calls, role "tool") and is
# recognised only by what OpenAI never sends (tool_plan, documents, billed_units).
ADAPTERS: tuple[Adapter, ...] = (
    canonical.ADAPTER,
    # OpenInference spans are OTLP exports too: recognised by `openinference.span.kind`
    # before otel-genai claims any `resourceSpans` document.
    openinference.ADAPTER,
    otel_genai.ADAPTER,
    openai_agents.ADAPTER,
    # An Inspect eval log is one object with `eval` and `samples`, whose messages look
    # like OpenAI Chat (`role: "tool"`): tried before every message format.
    inspect_log.ADAPTER,
    # LangChain messages are typed `human`/`ai`/`tool` (no `role`), but an AI message's
    # content may hold Anthropic `tool_use` blocks: tried before anthropic-messages.
    langchain.ADAPTER,
    # Langfuse observations are typed in capitals (GENERATION, SPAN, TOOL...) with startTime.
    langfuse.ADAPTER,
    # JSON-RPC 2.0 (`jsonrpc: "2.0"`) is no other format's marker.
    mcp_session.ADAPTER,
    # Pydantic AI messages have `parts` like Gemini contents, and are recognised by what
    # Gemini never writes (`kind` request/response, `part_kind`), so they come first.
    pydantic_ai.ADAPTER,
    google_genai.ADAPTER,
    anthropic_messages.ADAPTER,
    openai_responses.ADAPTER,
    cohere_chat.ADAPTER,
    openai_chat.ADAPTER,
)
BY_NAME: dict[str, Adapter] = {a.name: a for a in ADAPTERS}
# Binary container formats: file suffix -> the reader that decodes such a file into
# documents (the first adapter declaring a suffix owns it; otel-genai and openinference
# share one protobuf reader). Directory walks pick up every declared suffix.
FILE_READERS: dict[str, Callable[[bytes], list[Any]]] = {}
for _adapter in ADAPTERS:
    if _adapter.read_file is not None:
        for _suffix in _adapter.suffixes:
            FILE_READERS.setdefault(_suffix, _adapter.read_file)
WALK_SUFFIXES: tuple[str, ...] = tuple(
    dict.fromkeys((*TRACE_SUFFIXES, *(x for a in ADAPTERS for x in a.suffixes)))
)
AUTO = "auto"
FORMAT_CHOICES: tuple[str, ...] = (AUTO, *BY_NAME)


@dataclass(frozen=True, slots=True)
class Identity:
    """Labels set by the user (`--trace-id`, `--agent-name`, `--workflow`); None keeps the
    transcript's (or the file name's)."""

    trace_id: str | None = None
    agent_name: str | None = None
    workflow: str | None = None


def detect(value: Any) -> Adapter:
    """The first adapter that recognises the document; AdapterError listing formats if none."""
    for adapter in ADAPTERS:
        if adapter.detect(value):
            return adapter
    raise AdapterError(
        "unrecognised input format: no format-specific field found (a conversation of plain "
        "text messages looks the same in several formats); pass --format with one of: "
        + ", ".join(BY_NAME)
    )


def to_canonical(
    value: Any, fmt: str = AUTO, name_hint: str = "trace", identity: Identity | None = None
) -> list[Any]:
    """Canonical trace objects held by a decoded document in format `fmt` (or detected)."""
    if fmt == AUTO:
        # A canonical trace (or a list that holds any) is never mistaken for a transcript;
        # malformed canonical traces still reach the parser for a precise error.
        shaped = value == [] or _canonical_shaped(value)
        adapter = canonical.ADAPTER if shaped else detect(value)
    else:
        found = BY_NAME.get(fmt)
        if found is None:
            raise AdapterError(
                f"unknown format '{fmt}'; expected one of: " + ", ".join(FORMAT_CHOICES)
            )
        adapter = found
    traces = adapter.convert(value, name_hint)
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


# Byte markers of a JSONL line that may be one batch of a span export (see export_kind).
EXPORT_MARKERS: tuple[bytes, ...] = (b'"resourceSpans"', b'"object"', b'"data"')


def export_kind(value: Any) -> str | None:
    """The span-export format of a document ("otel-genai", "openai-agents") or None.
    Such exports arrive in batches (one per JSONL line) that `merge_exports` joins."""
    if otel_genai.detect(value):
        return otel_genai.NAME
    if isinstance(value, dict) and value.get("object") in ("trace", "trace.span"):
        return openai_agents.NAME
    if isinstance(value, dict) and isinstance(value.get("data"), list):
        return openai_agents.NAME if openai_agents.detect(value) else None
    return None


def merge_exports(kind: str, values: list[Any]) -> Any:
    """One export holding the batches of `values` (all of span-export `kind`), in order."""
    if kind == otel_genai.NAME:
        return {"resourceSpans": [rs for v in values for rs in v["resourceSpans"]]}
    items: list[Any] = []
    for value in values:
        items.extend(value["data"] if isinstance(value.get("data"), list) else [value])
    return {"data": items}


_CANONICAL_KEYS = ("trace_id", "steps", "agent_name", "workflow")


def _canonical_shaped(value: Any) -> bool:
    """An object (or array of objects) using canonical top-level keys. Agents SDK span
    items also carry `trace_id`, so a span export is never taken for traces."""
    if export_kind(value) is not None or openai_agents.detect(value):
        return False
    if langsmith_runs.detect(value) or langfuse.detect(value):  # they carry `trace_id` too
        return False
    items = value if isinstance(value, list) else [value]
    return any(isinstance(v, dict) and any(k in v for k in _CANONICAL_KEYS) for v in items)


__all__ = [
    "ADAPTERS",
    "AUTO",
    "BY_NAME",
    "FILE_READERS",
    "FORMAT_CHOICES",
    "WALK_SUFFIXES",
    "Adapter",
    "Identity",
    "detect",
    "export_kind",
    "merge_exports",
    "to_canonical",
]
