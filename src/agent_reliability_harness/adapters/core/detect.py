"""Detection in one pass over the formats' declared evidence, built-in and plugin alike:
every format's claim on a document is asked once and kept.

A `Scan` of a document asks each format's claim at most once, in registry order: the
gate its Evidence declares (the document's shape, the keys an object needs), then,
through an open gate only, its `detect` (its positive evidence), then its `against`
markers (what it never writes): a document that shows one is not the format's, whatever
`detect` said. Every question detection has is answered from those claims: is it a span
export, a canonical trace, in whose envelope, which formats claim it, and why none does.
`scan(value, keep=True)` keeps the Scan, so the span-export test that runs on each JSONL
line before conversion (pipeline/exports.py) and the conversion of that line share one
pass. How a format is picked from the claims: docs/adapters.md ("How a format is
detected").
"""

from __future__ import annotations

from typing import Any

from .base import Adapter
from .claims import Seen, contradiction
from .plugins import formats
from .registry import BY_NAME, ENVELOPES

# The export kind of spans written by the OpenTelemetry SDK's console exporter (read by
# otel-genai): batches of this kind join into an array of spans, not into an OTLP request.
CONSOLE_SPANS = "otel-genai/console"

_OTEL = BY_NAME["otel-genai"]
_AGENTS = BY_NAME["openai-agents"]
_ATIF = BY_NAME["atif"]  # an ATIF trajectory has `steps` too: never a canonical trace
# Labels only a canonical trace carries: tracing exports (AgentOps, LangSmith, the Agents
# SDK) carry a `trace_id` too, so it alone is no evidence of a canonical trace.
_CANONICAL_KEYS = ("steps", "agent_name", "workflow")
_UNSET: Any = object()


class Scan:
    """The claims of the formats on one document, each asked once (when first needed)."""

    __slots__ = (
        "_claimed",
        "_envelope",
        "_every",
        "_kind",
        "_seen",
        "_shape",
        "contradicted",
        "value",
    )

    def __init__(self, value: Any) -> None:
        self.value = value
        self._shape = (
            "object" if isinstance(value, dict) else "array" if isinstance(value, list) else ""
        )
        self._claimed: dict[str, bool] = {}
        self._kind: str | None = _UNSET
        self._envelope: Adapter | None = _UNSET
        self._seen: Seen | None = None
        self._every: tuple[Adapter, ...] = ()
        # Formats whose `detect` claimed the document but whose `against` it shows.
        self.contradicted: dict[str, str] = {}

    def claims(self, adapter: Adapter) -> bool:
        """Whether the format claims the document: its declared gate (shape, keys) is open,
        its `detect` says so (asked once, and only through an open gate), and the document
        shows nothing the format never writes."""
        found = self._claimed.get(adapter.name)
        if found is None:
            found = self.gate_open(adapter) and bool(adapter.detect(self.value))
            if found and adapter.evidence.against:
                mark = contradiction(adapter, self.seen())
                if mark is not None:
                    self.contradicted[adapter.name] = mark
                    found = False
            self._claimed[adapter.name] = found
        return found

    def seen(self) -> Seen:
        """What the document shows of markers (looked at once, when first needed)."""
        if self._seen is None:
            self._seen = Seen(self.value)
        return self._seen

    def gate_open(self, adapter: Adapter) -> bool:
        """Whether the document passes the format's declared gate."""
        evidence = adapter.evidence
        if evidence.shape and evidence.shape != self._shape:
            return False
        keys = evidence.keys
        return not keys or self._shape != "object" or any(k in self.value for k in keys)

    def formats(self) -> tuple[Adapter, ...]:
        """Every format, built-in then plugin (asked of the registry once per document)."""
        if not self._every:
            self._every = formats()
        return self._every

    def claimants(self) -> list[Adapter]:
        """The transcript formats that claim the document, in registry order; only those
        claiming it on their own evidence (envelopes, plugins) when any does."""
        found = [adapter for adapter in self.formats()[1:] if self.claims(adapter)]
        own = [adapter for adapter in found if adapter.evidence.own]
        return own or found

    def envelope(self) -> Adapter | None:
        """The envelope format that holds the document, or one line of its session file."""
        if self._envelope is _UNSET:
            plugins = self.formats()[len(BY_NAME) :]
            self._envelope = next((a for a in (*ENVELOPES, *plugins) if self._enveloped(a)), None)
        return self._envelope

    def _enveloped(self, adapter: Adapter) -> bool:
        if self.claims(adapter):
            return True
        line = adapter.detect_line
        return isinstance(self.value, dict) and line is not None and bool(line(self.value))

    def looks_like(self) -> list[Adapter]:
        """The formats a document looks like: its envelope's, else its claimants."""
        owner = self.envelope()
        return [owner] if owner is not None else self.claimants()

    def export_kind(self) -> str | None:
        """The span-export format of the document ("otel-genai", "openai-agents") or None."""
        if self._kind is _UNSET:
            self._kind = self._export_kind()
        return self._kind

    def _export_kind(self) -> str | None:
        from ..tracing._otel_shapes import is_console_span  # noqa: PLC0415 - off the canonical path

        value = self.value
        if is_console_span(value):
            return CONSOLE_SPANS
        if self.claims(_OTEL):
            return _OTEL.name
        if isinstance(value, dict) and value.get("object") in ("trace", "trace.span"):
            return _AGENTS.name
        if isinstance(value, dict) and isinstance(value.get("data"), list):
            return _AGENTS.name if self.claims(_AGENTS) else None
        return None

    def canonical(self) -> bool:
        """An object (or array of objects) that is a canonical trace: it has `steps`, or
        canonical labels (`agent_name`, `workflow`) and nothing a transcript format claims
        (a chat body may carry labels next to its messages). Agents SDK span items also carry
        `trace_id`, so a span export is never taken for traces."""
        value = self.value
        if value == []:
            return True
        if self.export_kind() is not None or self.claims(_AGENTS) or self.claims(_ATIF):
            return False
        items = value if isinstance(value, list) else [value]
        if any(isinstance(v, dict) and "steps" in v for v in items[:1000]):
            return True
        labelled = any(isinstance(v, dict) and any(k in v for k in _CANONICAL_KEYS) for v in items)
        return labelled and not self.claimants()


_last: Scan | None = None


def scan(value: Any, keep: bool = False) -> Scan:
    """The Scan of a document: the kept one when asked about the same object again.
    `keep` keeps it for the next question (the span-export test of a JSONL line, which its
    conversion follows); a conversion takes it and keeps nothing, so a document changed
    after it was converted is never judged on its old claims."""
    global _last  # noqa: PLW0603 - one document's claims, kept until it is converted
    last = _last
    found = last if last is not None and last.value is value else Scan(value)
    _last = found if keep else None
    return found
