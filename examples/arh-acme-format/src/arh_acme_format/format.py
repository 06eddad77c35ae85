"""The Acme run format: one JSON object per run, written by an in-house agent.

    {"acme_run": 1, "run_id": "r-7", "agent": "support-bot",
     "events": [{"kind": "user", "text": "..."},
                {"kind": "say", "text": "..."},
                {"kind": "tool", "id": "c1", "name": "lookup_order", "input": {...}},
                {"kind": "tool_result", "id": "c1", "output": ..., "ok": true},
                {"kind": "usage", "input_tokens": 120, "output_tokens": 30}]}

Its evidence is the `acme_run` version key, which no other format writes; `detect` asks
for it and an `events` list. The walk hands every event to ARH's TraceBuilder, which
pairs results with calls, counts what is mapped and notes what is not.
"""

from __future__ import annotations

from typing import Any

from agent_reliability_harness.adapters import Adapter, Evidence, TraceBuilder
from agent_reliability_harness.errors import AdapterError

NAME = "acme-run"


def detect(value: Any) -> bool:
    """An object with the `acme_run` version key and a list of events."""
    return isinstance(value, dict) and "acme_run" in value and isinstance(value.get("events"), list)


def convert(value: Any, name_hint: str) -> list[dict[str, Any]]:
    """The one trace an Acme run holds."""
    if not detect(value):
        raise AdapterError("$: expected an Acme run (an object with acme_run and events)")
    builder = TraceBuilder(
        NAME, name_hint, trace_id=_text(value.get("run_id")), agent_name=_text(value.get("agent"))
    )
    for number, event in enumerate(value["events"]):
        at = f"$.events[{number}]"
        if isinstance(event, dict):
            _event(builder, event, at)
        else:
            builder.note(at, "event is not an object", event)
    return [builder.build()]


def _event(builder: TraceBuilder, event: dict[str, Any], at: str) -> None:
    kind = event.get("kind")
    if kind == "user":
        builder.input("user", str(event.get("text", "")), at)
    elif kind == "say":
        builder.text(_text(event.get("text")), at)
    elif kind == "tool":
        builder.call(_text(event.get("id")), _text(event.get("name")), event.get("input"), at)
    elif kind == "tool_result":
        failed = event.get("ok") is False
        error = _text(event.get("error")) if failed else None
        builder.result(
            _text(event.get("id")), event.get("output"), at, error=error, is_error=failed
        )
    elif kind == "usage":
        start = max(len(builder.steps) - 1, 0)
        builder.tokens(start, event.get("input_tokens"), event.get("output_tokens"), at)
    else:
        builder.note(at, f"event of an unknown kind {kind!r}", event)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


FORMAT = Adapter(
    name=NAME,
    description="Acme run logs (an in-house agent's JSON runs)",
    detect=detect,
    convert=convert,
    family="frameworks",
    evidence=Evidence(shape="object", keys=("acme_run",), marks=("acme_run", "events")),
)
