"""What each format's documents carry, as data: the markers a refusal looks for to name the
format a document comes closest to, and what it lacks of it (imported only to refuse).

A marker is a key (`action`) or a key with its value(s) (`type=human|ai`), looked for in
the document, its items, the items of its arrays and its objects, one level down (the
first 200 of each). Only markers no plain chat message carries count, so a conversation of
plain text messages is close to no format. A format's claim is still decided by its
adapter's `detect` (adapters/_detect.py); these say why a document is not claimed.
"""

from __future__ import annotations

from typing import Any

# In registry order (ties go to the earlier format), as adapters/_registry.py lists them.
MARKS: dict[str, tuple[str, ...]] = {
    "claude-code": ("sessionId", "parentUuid", "uuid", "type=user|assistant"),
    "codex-cli": ("payload", "type=session_meta|response_item|event_msg|turn_context"),
    "codex-exec": ("type=thread.started|turn.started|turn.completed|item.completed", "item"),
    "gemini-cli": ("sessionId", "projectHash", "messages"),
    "gemini-stream": ("type=init|tool_use|tool_result|result", "timestamp"),
    "swe-agent": ("trajectory", "history", "trajectory_format", "info"),
    "atif": ("schema_version", "steps", "agent"),
    "autogen": ("source", "type=TextMessage|ToolCallRequestEvent|TeamState", "models_usage"),
    "tau-bench": ("task_id", "traj", "reward"),
    "openhands": ("action", "observation", "source", "id"),
    "smolagents": ("role=tool-call|tool-response", "step_number", "intermediate_steps"),
    "browser-use": ("history", "model_output", "result", "state"),
    "letta": ("agents", "agent_type", "llm_config", "messages"),
    "openinference": ("resourceSpans", "scopeSpans", "openinference.span.kind"),
    "otel-genai": ("resourceSpans", "scopeSpans", "spans"),
    "openai-agents": ("object=trace|trace.span", "span_data", "trace_id"),
    "inspect": ("eval", "samples", "status", "version"),
    "langchain": ("type=human|ai|tool", "lc", "run_type", "child_runs"),
    "langfuse": ("observations", "type=GENERATION|SPAN|TOOL|EVENT", "startTime"),
    "mlflow": ("info", "trace_id", "spans", "mlflow.spanType"),
    "mcp": ("jsonrpc=2.0", "method", "result"),
    "pydantic-ai": ("kind=request|response", "parts", "part_kind"),
    "google-genai": ("parts", "candidates", "usageMetadata"),
    "anthropic-messages": ("type=tool_use|tool_result|thinking|message", "stop_reason"),
    "openai-responses": ("object=response", "type=function_call|function_call_output"),
    "cohere-chat": ("tool_plan", "billed_units", "finish_reason"),
    "openai-chat": ("role=tool|function|developer", "tool_calls", "choices"),
}
# Markers that alone say nothing (plain chat messages and common bookkeeping carry them):
# a format is close to a document only when it has one of its other markers.
_COMMON = frozenset(
    {"messages", "id", "source", "type=user|assistant", "result", "timestamp", "schema_version"}
)
_SCANNED = 200  # items looked at per array


def _needs(mark: str) -> frozenset[str]:
    """What the document must show for a marker: its key, or one of its `key=value`."""
    key, _, values = mark.partition("=")
    return frozenset(f"{key}={v}" for v in values.split("|")) if values else frozenset((key,))


# Each format's markers with what each needs, built once.
_NEEDS: dict[str, tuple[tuple[str, frozenset[str]], ...]] = {
    name: tuple((mark, _needs(mark)) for mark in marks) for name, marks in MARKS.items()
}


def _seen(value: Any) -> set[str]:
    """The keys, and the `key=value` pairs of text values, of the objects looked at: the
    document (or its items), and their arrays' items and object values, one level down."""
    tops = value[:_SCANNED] if isinstance(value, list) else [value]
    seen: set[str] = set()
    for top in tops:
        if not isinstance(top, dict):
            continue
        _take(top, seen)
        for inner in top.values():
            if isinstance(inner, dict):
                _take(inner, seen)
            elif isinstance(inner, list):
                for item in inner[:_SCANNED]:
                    if isinstance(item, dict):
                        _take(item, seen)
    return seen


def _take(found: dict[str, Any], seen: set[str]) -> None:
    seen.update(found)
    seen.update(f"{k}={v}" for k, v in found.items() if isinstance(v, str))


def _shown(marks: list[str]) -> str:
    return ", ".join(f"'{m}'" for m in marks)


def closest(value: Any, among: tuple[str, ...] | None = None) -> str | None:
    """Where a document comes closest to a format (`among` those, or all): "closest is
    'X' (has 'a') but it lacks 'b'", or None when it has no format's own marker. Most
    markers found wins; of equals, the earlier format in the registry."""
    seen = _seen(value)
    best: tuple[int, str, list[str], list[str]] | None = None
    for name, marks in _NEEDS.items():
        if among is not None and name not in among:
            continue
        has = [mark for mark, needs in marks if not needs.isdisjoint(seen)]
        if not any(m not in _COMMON for m in has):
            continue
        if best is None or len(has) > best[0]:
            best = (len(has), name, has, [m for m, _ in marks if m not in has])
    if best is None:
        return None
    _, name, has, lacks = best
    why = f"it lacks {_shown(lacks)}" if lacks else f"its shape is not {name}'s"
    return f"closest is '{name}' (has {_shown(has)}) but {why}"
