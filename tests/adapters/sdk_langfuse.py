"""Render scenarios as Langfuse exports built from the langfuse SDK's API models
(ObservationV2, Score, ObservationsV2Response) dumped as the public API returns them
(`model_dump(mode="json", by_alias=True)`): a trace with its observations, or the flat
observations list. SDK 5 has no model for the trace itself, so its few top-level fields are
written in the documented shape around the SDK's observations and scores."""

# The SDKs are an optional test extra: import them only when a fixture is built.
# ruff: noqa: PLC0415

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from scenarios import CLEAN, LOOKUP, ORDER, RETRY, Call, Scenario, Turn
from sdk_spans import BASE, _args, _output, _timeline

PROJECT = "proj-refunds"


def _dump(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def _observation(trace_id: str, number: int, kind: str, start: int, end: int, **fields: Any) -> Any:
    from langfuse.api.commons.types.observation_v2 import ObservationV2

    return _dump(
        ObservationV2(
            id=f"obs-{trace_id}-{number:02d}",
            trace_id=trace_id,
            project_id=PROJECT,
            type=kind,
            start_time=BASE + timedelta(milliseconds=start),
            end_time=BASE + timedelta(milliseconds=end),
            **fields,
        )
    )


def _assistant(turn: Turn) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": "".join(turn.texts) or None}
    if turn.calls:
        message["tool_calls"] = [
            {
                "id": c.call_id,
                "type": "function",
                "function": {"name": c.name, "arguments": _args(c)},
            }
            for c in turn.calls
        ]
    return message


def observations(
    s: Scenario, trace_id: str, tool_observations: bool = True, nested: bool = False
) -> list[Any]:
    """An AGENT observation around one GENERATION per model turn (history as input, the
    OpenAI-shaped message as output) and one TOOL observation per call. With `nested`, each
    model turn is also recorded by a GENERATION around it (an `@observe(as_type=
    "generation")` function calling the Langfuse OpenAI integration)."""
    timeline = _timeline(s)
    root = f"obs-{trace_id}-01"
    out = [
        _observation(
            trace_id, 1, "AGENT", 0, timeline[-1][2] + 5, name="refund-agent", input=s.user
        )
    ]
    history: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a refund assistant."},
        {"role": "user", "content": s.user},
    ]
    if s.orphan is not None:
        history.append(
            {"role": "tool", "tool_call_id": s.orphan.call_id, "content": _output(s.orphan.output)}
        )
    for number, (kind, start, end, payload) in enumerate(timeline, start=2):
        if kind == "model":
            turn: Turn = payload
            message = _assistant(turn)
            generation = {
                "model": "gpt-4.1-mini",
                "input": list(history),
                "output": message,
                "usage_details": {
                    "input": turn.usage[0],
                    "output": turn.usage[1],
                    "total": sum(turn.usage),
                },
                "cost_details": {"total": round(turn.usage[0] * 4e-7 + turn.usage[1] * 1.6e-6, 8)},
                "level": "DEFAULT",
            }
            parent, inner = root, (start, end)
            if nested:
                parent = f"obs-{trace_id}-{100 + number:02d}"
                outer = {"parent_observation_id": root, "name": "answer", **generation}
                out.append(_observation(trace_id, 100 + number, "GENERATION", start, end, **outer))
                inner = (start + 1, end - 1)
            out.append(
                _observation(
                    trace_id,
                    number,
                    "GENERATION",
                    *inner,
                    name="chat",
                    parent_observation_id=parent,
                    **generation,
                )
            )
            history.append(message)
        else:
            call: Call
            call, result = payload
            output = None if result is None else (result.error or _output(result.output))
            history.append({"role": "tool", "tool_call_id": call.call_id, "content": output})
            if not tool_observations:
                continue
            fields: dict[str, Any] = {
                "name": call.name,
                "parent_observation_id": root,
                "input": dict(call.args),
            }
            if result is not None and result.error:
                fields.update(level="ERROR", status_message=result.error)
            else:
                fields.update(level="DEFAULT", output=output)
            out.append(_observation(trace_id, number, "TOOL", start, end, **fields))
    return out


def stream_wrapped(s: Scenario, trace_id: str) -> list[Any]:
    """As the Vercel AI SDK records `streamText`: one GENERATION (`ai.streamText`, holding
    the streamed answer) around a GENERATION per model step (`ai.streamText.doStream`), the
    last of which records no output."""
    found = observations(s, trace_id)
    agent = found[0]
    end = max(o["endTime"] for o in found[1:])
    outer = _observation(
        trace_id, 99, "GENERATION", 1, 1, name="ai.streamText", model="gpt-4.1-mini"
    )
    outer.update(
        parentObservationId=agent["id"],
        startTime=found[1]["startTime"],
        endTime=end,
        input=s.user,
        output="".join(s.turns[-1].texts),
    )
    for o in found[1:]:
        o["parentObservationId"] = outer["id"]
        if o["type"] == "GENERATION":
            o["name"] = "ai.streamText.doStream"
    generations = [o for o in found if o["type"] == "GENERATION"]
    generations[-1]["output"] = None
    return [agent, outer, *found[1:]]


def json_text(s: Scenario, trace_id: str) -> list[Any]:
    """As OpenTelemetry-fed exports store them: every generation's input and output as JSON
    text."""
    found = observations(s, trace_id)
    for o in found:
        if o["type"] == "GENERATION":
            o["input"], o["output"] = json.dumps(o["input"]), json.dumps(o["output"])
    return found


def json_text_export(s: Scenario, trace_id: str) -> dict[str, Any]:
    """The trace of `json_text`, its own input JSON text too (a JSON string)."""
    export = trace_export(s, json_text(s, trace_id), trace_id)
    export["input"] = json.dumps(export["input"])
    return export


def json_text_edges(trace_id: str) -> list[Any]:
    """Text that stays text (an answer starting with a bracket), and JSON text of a whole
    provider response (not a message: noted)."""
    response = {"id": "resp_1", "object": "response", "output": [{"type": "message"}]}
    return [
        _observation(
            trace_id,
            number,
            "GENERATION",
            10 * number,
            10 * number + 5,
            name="chat",
            model="gpt-4.1-mini",
            input=json.dumps([{"role": "user", "content": "Refund ORD-1042?"}]),
            output=output,
            level="DEFAULT",
        )
        for number, output in enumerate(
            ["[draft] Refund approved.", json.dumps(response), "{not json"], start=1
        )
    ]


def provider_outputs(trace_id: str) -> list[Any]:
    """Generations that record the provider's whole response (an OpenAI Responses object as
    JSON text, an OpenTelemetry GenAI output message, a Chat Completions object, one with a
    reasoning item that has no place in a message), and a TOOL observation named
    `running tool: ...` that keeps its call id in its attributes."""
    call = {"type": "function_call", "call_id": "call_lookup1", "name": "lookup_order"}
    call["arguments"] = json.dumps(LOOKUP)
    said = {"type": "message", "content": [{"type": "output_text", "text": "Looking it up."}]}
    outputs: list[Any] = [
        json.dumps({"id": "resp_1", "object": "response", "output": [said, call]}),
        [
            {
                "role": "assistant",
                "parts": [{"type": "text", "content": "Order ORD-1042 was delivered."}],
                "finish_reason": "stop",
            }
        ],
        {
            "object": "chat.completion",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "Anything else?"}}
            ],
        },
        {"object": "response", "output": [{"type": "reasoning", "summary": []}]},
    ]
    found = [
        _observation(
            trace_id,
            number,
            "GENERATION",
            100 * number,
            100 * number + 50,
            name="chat",
            model="gpt-4.1-mini",
            output=output,
            level="DEFAULT",
        )
        for number, output in enumerate(outputs, start=1)
    ]
    attributes = {"gen_ai.tool.name": "lookup_order", "gen_ai.tool.call.id": "call_lookup1"}
    tool = _observation(
        trace_id,
        9,
        "TOOL",
        160,
        190,
        name="running tool: lookup_order",
        input=json.dumps(LOOKUP),
        output=json.dumps(ORDER),
        metadata={"attributes": attributes},
        level="DEFAULT",
    )
    return [*found[:1], tool, *found[1:]]


def _scores(trace_id: str, value: float) -> list[Any]:
    from langfuse.api.commons.types.score import Score_Numeric

    score = Score_Numeric(
        id=f"score-{trace_id}",
        trace_id=trace_id,
        name="resolution",
        value=value,
        source="EVAL",
        timestamp=BASE + timedelta(seconds=30),
        created_at=BASE + timedelta(seconds=30),
        updated_at=BASE + timedelta(seconds=30),
        data_type="NUMERIC",
        environment="production",
    )
    return [json.loads(score.model_dump_json(by_alias=True, exclude_none=True))]


def trace_export(s: Scenario, observations_: list[Any], trace_id: str) -> dict[str, Any]:
    """The trace as the UI export / GET /api/public/traces/{id} returns it."""
    return {
        "id": trace_id,
        "timestamp": BASE.isoformat().replace("+00:00", "Z"),
        "name": "refund-support",
        "input": s.user,
        "output": None,
        "sessionId": f"session-{s.name}",
        "userId": "user-7",
        "tags": ["refunds"],
        "metadata": {},
        "observations": observations_,
        "scores": _scores(trace_id, 1.0 if not s.orphan else 0.5),
        "htmlPath": f"/project/{PROJECT}/traces/{trace_id}",
    }


def ui_export(s: Scenario, trace_id: str) -> dict[str, Any]:
    """The UI's "export as JSON": the trace (whose own `observations` omit input and output)
    beside the observations in full."""
    found = observations(s, trace_id)
    head = trace_export(s, [], trace_id)
    head["observations"] = [
        {k: v for k, v in o.items() if k not in ("input", "output")} for o in found
    ]
    return {"trace": head, "observations": found}


def langfuse(s: Scenario) -> Any:
    trace_id = f"trace-{s.name}"
    found = observations(s, trace_id)
    if s.name == "parallel":  # the observations API: a flat page of observations
        from langfuse.api.observations.types.observations_v2response import ObservationsV2Response

        page = ObservationsV2Response(data=[], meta={"cursor": None})
        return {**_dump(page), "data": found}
    return trace_export(s, found, trace_id)


def extras() -> list[tuple[str, Any]]:
    chat_only = observations(RETRY, "trace-chat-only", tool_observations=False)
    nested = observations(CLEAN, "trace-nested", nested=True)
    trace_id = "trace-kinds"
    kinds = [
        _observation(trace_id, 1, "SPAN", 0, 900, name="handle-request"),
        _observation(
            trace_id,
            2,
            "EVENT",
            5,
            5,
            name="cache-miss",
            parent_observation_id=f"obs-{trace_id}-01",
            input={"key": "ORD-1042"},
        ),
        _observation(
            trace_id,
            3,
            "EMBEDDING",
            10,
            40,
            name="embed-query",
            parent_observation_id=f"obs-{trace_id}-01",
            model="text-embedding-3-small",
        ),
        _observation(
            trace_id,
            4,
            "RETRIEVER",
            45,
            90,
            name="kb-search",
            parent_observation_id=f"obs-{trace_id}-01",
            input="refund policy",
            output=["Refunds within 30 days."],
        ),
        _observation(
            trace_id,
            5,
            "GENERATION",
            100,
            600,
            name="chat",
            parent_observation_id=f"obs-{trace_id}-01",
            model="claude-sonnet-4-5",
            input=[{"role": "user", "content": "Refund ORD-1042?"}],
            output={
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Checking."},
                    {"type": "image", "source": "chart.png"},
                ],
            },
            usage_details={"input": 120, "output": 30, "cache_read_input_tokens": 400},
            level="DEFAULT",
        ),
        _observation(
            trace_id,
            6,
            "TOOL",
            610,
            700,
            name="lookup_order",
            parent_observation_id=f"obs-{trace_id}-01",
            input={"args": [], "kwargs": LOOKUP},
            output=ORDER,
            level="DEFAULT",
        ),
        _observation(
            trace_id,
            7,
            "GENERATION",
            710,
            880,
            name="chat",
            parent_observation_id=f"obs-{trace_id}-01",
            model="claude-sonnet-4-5",
            output="Refunds need approval.",
            level="ERROR",
            status_message="overloaded_error: retried by the client",
            usage_details={"input": 200, "output": 8},
        ),
        _observation(
            trace_id,
            8,
            "SPAN",
            885,
            890,
            name="post-process",
            parent_observation_id=f"obs-{trace_id}-01",
            level="WARNING",
        ),
    ]
    head = {"id": trace_id, "name": "kinds", "observations": kinds, "scores": []}
    return [
        ("chat-only.json", [trace_export(RETRY, chat_only, "trace-chat-only")]),
        ("observation-kinds.json", head),
        ("nested-generations.json", trace_export(CLEAN, nested, "trace-nested")),
        ("ui-export.json", ui_export(CLEAN, "trace-ui-export")),
        ("json-text.json", json_text_export(CLEAN, "trace-json")),
        (
            "json-text-edges.json",
            {"id": "trace-json-edges", "observations": json_text_edges("trace-json-edges")},
        ),
        (
            "provider-outputs.json",
            {"id": "trace-provider", "observations": provider_outputs("trace-provider")},
        ),
        (
            "stream-wrapper.json",
            trace_export(CLEAN, stream_wrapped(CLEAN, "trace-stream"), "trace-stream"),
        ),
    ]
