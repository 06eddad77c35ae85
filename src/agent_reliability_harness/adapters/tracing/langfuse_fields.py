"""The fields of Langfuse observations and trace heads that are read alike everywhere:
the trace head's labels and scores, usage and cost, start time and latency, JSON-text
input and output."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypeGuard

from ...errors import InputError
from ...io import decode_json
from ...models.common import is_number
from ..core.common import TraceBuilder, first, opt_count
from ..core.totals import RecordedTotals
from .langfuse_outputs import as_message


def start_of(item: dict[str, Any]) -> str:
    value = first(item, "startTime", "start_time")
    return value if isinstance(value, str) else ""


def head_labels(b: TraceBuilder, head: dict[str, Any], observations: list[Any]) -> None:
    """Trace-level labels: name -> workflow, input -> trusted input, scores -> outcome."""
    if head:
        b.mark("$")  # the trace head: its labels and metadata
    name = head.get("name")
    if not isinstance(name, str):
        names = [first(o, "traceName", "trace_name") for _, o in observations]
        name = next((n for n in names if isinstance(n, str) and n), None)
    b.workflow = name
    for source, target in (("sessionId", "session_id"), ("userId", "user_id"), ("tags", "tags")):
        if head.get(source):
            b.metadata[target] = head[source]
    text = _text_of(head.get("input"))
    if text is not None:  # the first generation repeats it
        b.input("user", text, "input", once=True)
    scores = head.get("scores")
    named = (
        [s for s in scores if isinstance(s, dict) and isinstance(s.get("name"), str)]
        if isinstance(scores, list)
        else []
    )
    if named:
        outcome: dict[str, Any] = {"scores": {s["name"]: s.get("value") for s in named}}
        only = named[0] if len(named) == 1 else None
        if only is not None and only.get("dataType") == "BOOLEAN" and only.get("value") in (0, 1):
            outcome["success"] = only["value"] == 1
        elif (
            only is not None and only.get("dataType") == "NUMERIC" and is_number(only.get("value"))
        ):
            outcome["reward"] = only["value"]
        b.labels({"outcome": outcome})


def _text_of(value: Any) -> str | None:
    """A trace input that is text; OpenTelemetry-fed exports store it as JSON text, so a
    JSON string (`"\"hi\""`) is read as the text it holds."""
    if not isinstance(value, str):
        return None
    if value.startswith('"'):
        try:
            inner = decode_json(value)
        except InputError:
            return value
        return inner if isinstance(inner, str) else value
    return value


def usage_details(item: dict[str, Any]) -> dict[str, Any] | None:
    """The usage breakdowns beyond input and output (cache, reasoning): kept in metadata,
    never added on top."""
    details = first(item, "usageDetails", "usage_details")
    if not isinstance(details, dict) or ("input" not in details and "output" not in details):
        return None
    extra = {k: v for k, v in details.items() if k not in ("input", "output", "total")}
    return extra or None


def _pair(item: dict[str, Any], at: str) -> tuple[int | None, int | None]:
    details = first(item, "usageDetails", "usage_details")
    usage = item.get("usage")
    if isinstance(details, dict) and ("input" in details or "output" in details):
        where = f"{at}.usageDetails"
        return opt_count(details, "input", where), opt_count(details, "output", where)
    if isinstance(usage, dict):
        return opt_count(usage, "input", f"{at}.usage"), opt_count(usage, "output", f"{at}.usage")
    return opt_count(item, "promptTokens", at), opt_count(item, "completionTokens", at)


def _cost(item: dict[str, Any]) -> float | None:
    costs = first(item, "costDetails", "cost_details")
    cost = costs.get("total") if isinstance(costs, dict) else None
    if cost is None:
        cost = first(item, "totalCost", "calculatedTotalCost", "total_cost")
    known = isinstance(cost, int | float) and is_number(cost) and cost >= 0
    return float(cost) if known else None


def usage(b: TraceBuilder, item: dict[str, Any], at: str, start: int) -> None:
    pair = _pair(item, at)
    b.tokens(start, pair[0], pair[1], at, cost_usd=_cost(item))


def recorded_totals(observations: list[tuple[str, dict[str, Any]]]) -> RecordedTotals | None:
    """The trace's usage and cost as Langfuse totals them: over every observation that
    records some, a generation wrapping another and an agent's aggregate included."""
    sums: list[float | None] = [None, None, None]
    for at, item in observations:
        pair = _pair(item, at)
        for n, figure in enumerate((pair[0], pair[1], _cost(item))):
            if figure is not None:
                sums[n] = (sums[n] or 0) + figure
    if sums == [None, None, None]:
        return None
    tokens = [int(v) if v is not None else None for v in sums[:2]]
    return RecordedTotals("observations", tokens[0], tokens[1], sums[2])


def latency(b: TraceBuilder, item: dict[str, Any], at: str) -> float | None:
    start, end = start_of(item), first(item, "endTime", "end_time")
    if not start or not isinstance(end, str):
        return None
    try:
        delta = datetime.fromisoformat(end) - datetime.fromisoformat(start)
    except (TypeError, ValueError):
        b.note(at, "observation times are not ISO 8601", {"startTime": start, "endTime": end})
        return None
    millis = delta.total_seconds() * 1000
    return round(millis, 3) if millis >= 0 else None


def decoded(item: dict[str, Any]) -> dict[str, Any]:
    """A generation with its input and output as values: OpenTelemetry-fed exports store
    them as JSON text. Only text holding a JSON object or array is decoded (an answer that
    is plain text, or merely starts with a bracket, stays text); an output that is a
    provider's response holding one assistant message reads as that message."""
    if item.get("type") != "GENERATION":
        return item
    found = dict(item)
    for key in ("input", "output"):
        value = item.get(key)
        if not isinstance(value, str) or value.lstrip()[:1] not in ("{", "["):
            continue
        try:
            parsed = decode_json(value)
        except InputError:
            continue
        if isinstance(parsed, dict | list):
            found[key] = parsed
    if found.get("output") == "None":  # Python's None as text: no output recorded
        found["output"] = None
    if found.get("output") is not None:
        found["output"] = as_message(found["output"])
    return found


def is_message(output: Any) -> TypeGuard[dict[str, Any]]:
    """An assistant message: a `content` (or OpenAI `tool_calls`); an object of another shape
    (a provider's whole response) is noted, never read as an empty answer."""
    return isinstance(output, dict) and ("content" in output or "tool_calls" in output)


def content_text(content: Any) -> str | None:
    """A message's text: a string, or its text parts joined by newlines (None when it has
    no text)."""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    texts = [p.get("text") for p in parts if isinstance(p, dict) and p.get("type") == "text"]
    found = [t for t in texts if isinstance(t, str)]
    return "\n".join(found) if found else None
