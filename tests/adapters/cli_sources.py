"""AgentOps, Google ADK, Moatless and AutoCodeRover fixtures written to their documented
shapes: the AgentOps API's trace (`{trace_id | trace, spans}`, span attributes unflattened,
AgentOps' semantic conventions `gen_ai.*`, `tool.*`, `agentops.*`), ADK's `Session` JSON
(`Session.model_dump_json`, snake_case and by alias; the 2024-12 pre-release schema with
`event_logs`), a Moatless `SearchTree.persist()` tree, and AutoCodeRover's output files
(`conversation_round_<n>.json`, `tool_call_sequence.json`). None of these libraries is a
light offline install (google-adk pins other google-genai and OpenTelemetry versions than
the test extras), so the documents are written here as their serialisers write them."""

from __future__ import annotations

import json
from typing import Any

_RESOURCE = {"agentops.project.id": "p-1", "service.name": "serviceName"}


def _span(span_id: str, parent: str, name: str, kind: str, attrs: dict[str, Any]) -> dict[str, Any]:
    return {
        "span_id": span_id,
        "parent_span_id": parent,
        "span_name": name,
        "span_kind": "Client",
        "service_name": "serviceName",
        "start_time": "",
        "duration": 1000,
        "status_code": "Unset",
        "status_message": "",
        "attributes": {},
        "resource_attributes": _RESOURCE,
        "event_timestamps": [],
        "event_names": [],
        "event_attributes": [],
        "link_trace_ids": [],
        "link_span_ids": [],
        "link_trace_states": [],
        "link_attributes": [],
        "span_attributes": attrs,
        "span_type": kind,
    }


def _response(rid: str, output: list[dict[str, Any]], usage: tuple[int, int]) -> str:
    """An OpenAI Responses object as the Agents SDK instrumentation writes it (JSON text)."""
    return json.dumps(
        {
            "id": rid,
            "object": "response",
            "model": "gpt-4o-2024-08-06",
            "status": "completed",
            "output": output,
            "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
        }
    )


def agentops_agents_sdk() -> dict[str, Any]:
    """An Agents SDK run (2025 API output): a weather lookup that fails once."""
    call = {"type": "function_call", "call_id": "call_1", "name": "get_weather"}
    first = _response(
        "resp_1", [{**call, "id": "fc_1", "arguments": '{"city": "Paris"}'}], (60, 12)
    )
    text = [{"type": "output_text", "text": "It is sunny in Paris.", "annotations": []}]
    last = _response(
        "resp_2",
        [{"type": "message", "id": "msg_2", "role": "assistant", "content": text}],
        (90, 8),
    )
    prompt = json.dumps([{"role": "user", "content": "Weather in Paris?"}])
    spans = _sdk_spans(prompt, first, last)
    return {"trace_id": "4f1c0ad2b3e94c6f8a2d1e0b9c8d7e6f", "spans": spans}


def _sdk_spans(prompt: str, first: str, last: str) -> list[dict[str, Any]]:
    return [
        _span(
            "a0",
            "",
            "agents.run.Weather Agent",
            "agent",
            {
                "agent": {"name": "Weather Agent", "instructions": "Answer with the tool."},
                "gen_ai": {
                    "completion": [{"0": {"role": "assistant", "content": "It is sunny..."}}],
                    "usage": {"prompt_tokens": "150", "completion_tokens": "20"},
                },
                "workflow": {"input": '"Weather in Paris?"', "final_output": "It is sunny..."},
            },
        ),
        _span("a1", "a0", "agents.agent", "agent", {"agent": {"name": "Weather Agent"}}),
        _span(
            "a2",
            "a0",
            "agents.response",
            "request",
            {"gen_ai": {"prompt": "null", "completion": [{"0": {"content": "null"}}]}},
        ),
        _span(
            "a3",
            "a0",
            "agents.response",
            "request",
            {"gen_ai": {"prompt": prompt, "completion": [{"0": {"content": first}}]}},
        ),
        {
            **_span(
                "a4",
                "a0",
                "agents.function",
                "tool",
                {"tool": {"name": "get_weather", "parameters": '{"city": "Paris"}'}},
            ),
            "status_code": "ERROR",
            "status_message": "upstream timeout",
        },
        _span(
            "a5",
            "a0",
            "agents.function",
            "tool",
            {
                "tool": {
                    "name": "get_forecast",
                    "parameters": '{"city": "Paris"}',
                    "result": "sunny, 24C",
                }
            },
        ),
        _span(
            "a6",
            "a0",
            "agents.response",
            "request",
            {"gen_ai": {"prompt": prompt, "completion": [{"0": {"content": last}}]}},
        ),
        _span("a7", "a0", "agents.trace.Agent workflow", "other", {"workflow": {"name": "w"}}),
    ]


def _crew_llm(span_id: str, parent: str, prompt: str, answer: str, usage: tuple[int, int]) -> Any:
    span = _span(
        span_id,
        parent,
        "gpt-4o-mini.llm",
        "request",
        {
            "agentops": {"span": {"kind": "llm"}, "entity": {"name": "LLM"}},
            "gen_ai": {
                "prompt": [
                    {"role": "system", "content": "You are a crew member."},
                    {"role": "user", "content": prompt},
                ],
                "completion": [{"role": "assistant", "content": answer}],
                "request": {"model": "gpt-4o-mini"},
                "usage": {"prompt_tokens": str(usage[0]), "completion_tokens": str(usage[1])},
            },
        },
    )
    span["metrics"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1]}
    return span


def agentops_crew() -> dict[str, Any]:
    """A two-agent CrewAI run (the API's `{trace, spans}` form, ISO start times, metrics)."""
    spans = [
        _span(
            "c0",
            "",
            "crewai.workflow",
            "agent",
            {"agentops": {"span": {"kind": "workflow"}, "entity": {"name": "Crew"}}},
        ),
        _span(
            "c1",
            "c0",
            "Researcher.agent",
            "agent",
            {"agent": {"role": "Researcher"}, "agentops": {"span": {"kind": "agent"}}},
        ),
        _crew_llm("c2", "c1", "Find facts about otters.", "Otters hold hands.", (120, 30)),
        _span(
            "c3",
            "c1",
            "search.tool",
            "tool",
            {
                "agentops": {
                    "span": {"kind": "tool"},
                    "entity": {
                        "name": "search",
                        "input": '{"query": "otters"}',
                        "output": "Sea otters hold hands while sleeping.",
                    },
                }
            },
        ),
        _span(
            "c4",
            "c0",
            "Writer.agent",
            "agent",
            {"agent": {"role": "Writer"}, "agentops": {"span": {"kind": "agent"}}},
        ),
        _crew_llm(
            "c5", "c4", "Write one line about otters.", "Otters sleep hand in hand.", (80, 10)
        ),
    ]
    for n, span in enumerate(spans):
        span["start_time"] = f"2025-08-04T15:12:{27 + n:02d}.000000+00:00"
    spans[0]["metrics"] = {"prompt_tokens": 200, "completion_tokens": 40, "total_cost": "0.0012"}
    head = {"trace_id": "b520ab60214d54b570cf701c7ad28fa0", "span_count": 6, "total_cost": 0.0012}
    return {"trace": head, "spans": list(reversed(spans))}


def _adk_event(
    n: int, author: str, parts: list[dict[str, Any]], role: str = "model", **extra: Any
) -> dict[str, Any]:
    event: dict[str, Any] = {
        "content": {"parts": parts, "role": role},
        "invocation_id": "e-7f3b",
        "author": author,
        "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}},
        "id": f"ev-{n}",
        "timestamp": 1750000000.0 + n,
    }
    event.update(extra)
    return event


def _usage(prompt: int, candidates: int, **more: int) -> dict[str, int]:
    return {
        "prompt_token_count": prompt,
        "candidates_token_count": candidates,
        "total_token_count": prompt + candidates + sum(more.values()),
        **more,
    }


def adk_session() -> dict[str, Any]:
    """A coordinator that transfers to a weather agent, whose first lookup fails."""
    events = _adk_events()
    events[-1]["content"] = None
    return {
        "id": "s-1",
        "app_name": "weather_app",
        "user_id": "u-1",
        "state": {"last_city": "Oslo"},
        "events": events,
        "last_update_time": 1750000009.0,
    }


def _adk_events() -> list[dict[str, Any]]:
    call = {"id": "adk-1", "name": "get_weather", "args": {"city": "Oslo"}}
    retry = {"id": "adk-2", "name": "get_weather", "args": {"city": "Oslo, NO"}}
    transfer = {"id": "adk-0", "name": "transfer_to_agent", "args": {"agent_name": "weather"}}
    return [
        _adk_event(0, "user", [{"text": "Weather in Oslo?"}], role="user"),
        _adk_event(1, "coordinator", [{"function_call": transfer}], usage_metadata=_usage(40, 6)),
        _adk_event(
            2,
            "coordinator",
            [{"function_response": {"id": "adk-0", "name": "transfer_to_agent", "response": {}}}],
            role="user",
            actions={"transfer_to_agent": "weather", "state_delta": {}},
        ),
        _adk_event(
            3,
            "weather",
            [{"text": "The user wants Oslo.", "thought": True}, {"function_call": call}],
            usage_metadata=_usage(55, 9, thoughts_token_count=12),
        ),
        _adk_event(
            4,
            "weather",
            [
                {
                    "function_response": {
                        "id": "adk-1",
                        "name": "get_weather",
                        "response": {"status": "error", "error_message": "ambiguous city"},
                    }
                }
            ],
            role="user",
        ),
        _adk_event(5, "weather", [{"function_call": retry}], usage_metadata=_usage(70, 9)),
        _adk_event(
            6,
            "weather",
            [
                {
                    "function_response": {
                        "id": "adk-2",
                        "name": "get_weather",
                        "response": {"status": "success", "report": "Snow, -3C"},
                    }
                }
            ],
            role="user",
        ),
        _adk_event(7, "weather", [{"text": "Snow in Oslo, -3C."}], usage_metadata=_usage(90, 7)),
        _adk_event(8, "weather", [], actions={"state_delta": {"last_city": "Oslo"}}),
    ]


def _camel(value: Any) -> Any:
    """A dump by alias (`model_dump_json(by_alias=True)`): camelCase keys, values as is."""
    if isinstance(value, list):
        return [_camel(v) for v in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, inner in value.items():
        head, *rest = key.split("_")
        keep = key in ("args", "response", "state", "state_delta")
        out[head + "".join(r.title() for r in rest)] = inner if keep else _camel(inner)
    return out


def adk_session_by_alias() -> dict[str, Any]:
    """The same kind of session dumped by alias, with a failed model call (error_code)."""
    events = [
        _adk_event(0, "user", [{"text": "Summarise the report."}], role="user"),
        _adk_event(1, "root_agent", [], error_code="MALFORMED_FUNCTION_CALL"),
        _adk_event(
            2, "root_agent", [{"text": "Here is the summary."}], usage_metadata=_usage(30, 5)
        ),
    ]
    events[1]["content"] = None
    return _camel({"id": "s-2", "app_name": "summary", "user_id": "u-2", "events": events})


def adk_prerelease() -> dict[str, Any]:
    """The 2024-12 pre-release schema: `options`, `context`, usage in `event_logs`."""
    call = {"args": {"item": "tea"}, "name": "order"}
    events = [
        {"invocation_id": "i1", "author": "user", "options": {}, "id": "e1", "timestamp": 1.0}
        | {"content": {"parts": [{"text": "Order tea."}], "role": "user"}},
        {"invocation_id": "i1", "author": "shop", "options": {"partial": False}, "id": "e2"}
        | {"content": {"parts": [{"function_call": call}], "role": "model"}, "timestamp": 2.0},
        {"invocation_id": "i1", "author": "shop", "id": "e3", "timestamp": 3.0}
        | {"options": {"function_call_event_id": "e2"}}
        | {"content": {"parts": [{"function_response": {"name": "order", "response": {}}}]}},
        {"invocation_id": "i1", "author": "shop", "options": {"partial": False}, "id": "e4"}
        | {"content": {"parts": [{"text": "Tea ordered."}], "role": "model"}, "timestamp": 4.0},
    ]
    logs = [
        {
            "invocation_id": "i1",
            "event_id": event_id,
            "model_request": {"model": "gemini-1.5-flash", "contents": []},
            "model_response": {"usage_metadata": _usage(*usage)},
        }
        for event_id, usage in (("e2", (20, 4)), ("e4", (31, 3)))
    ]
    return {
        "id": "s-3",
        "context": {"_time": "2024-12-01 09:00:00"},
        "events": events,
        "past_events": [],
        "pending_events": {},
        "artifacts": {},
        "event_logs": logs,
    }


FIXTURES: dict[str, Any] = {
    "agentops/agents-sdk-trace.json": agentops_agents_sdk(),
    "agentops/crew-trace.json": agentops_crew(),
    "google-adk/session.json": adk_session(),
    "google-adk/session-by-alias.json": adk_session_by_alias(),
    "google-adk/prerelease-session.json": adk_prerelease(),
}
