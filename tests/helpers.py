"""Small builders for trace dicts used across the tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


def tool_call(
    step_id: str, tool: str | None, arguments: Any = None, **extra: Any
) -> dict[str, Any]:
    step: dict[str, Any] = {"step_id": step_id, "type": "tool_call", "tool_name": tool}
    if arguments is not None:
        step["arguments"] = arguments
    step.update(extra)
    return step


def response(step_id: str, text: str = "ok", **extra: Any) -> dict[str, Any]:
    step: dict[str, Any] = {"step_id": step_id, "type": "model_response", "text": text}
    step.update(extra)
    return step


def make_trace(*steps: dict[str, Any], trace_id: str = "t1", **extra: Any) -> dict[str, Any]:
    trace: dict[str, Any] = {
        "trace_id": trace_id,
        "agent_name": "agent",
        "workflow": "wf",
        "steps": list(steps),
    }
    trace.update(extra)
    return trace
