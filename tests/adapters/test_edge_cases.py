"""Small, targeted inputs for rules the SDK fixtures do not reach."""

from __future__ import annotations

from typing import Any

import pytest

from agent_reliability_harness.adapters import to_canonical
from agent_reliability_harness.errors import AdapterError


def one(value: Any, fmt: str) -> dict[str, Any]:
    (trace,) = to_canonical(value, fmt, "edge")
    assert isinstance(trace, dict)
    return trace


def issues(trace: dict[str, Any]) -> list[str]:
    return [n["issue"] for n in trace["metadata"]["adapter"]["notes"]]


def test_usage_without_content_gets_an_empty_response_step() -> None:
    dump = {
        "object": "chat.completion",
        "model": "m",
        "choices": [],
        "usage": {"prompt_tokens": 5, "completion_tokens": 0},
    }
    before = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    trace = one([*before, dump], "openai-chat")
    assert trace["steps"][1] == {
        "step_id": "step-2",
        "type": "model_response",
        "text": None,
        "input_tokens": 5,
        "output_tokens": 0,
    }
    assert issues(trace) == ["completion without choices", "model turn with usage but no content"]
    # Alone, the dump holds nothing to judge: the explicit format is refused, not an empty PASS.
    with pytest.raises(AdapterError, match="not an openai-chat transcript: 0 of 2 items mapped"):
        to_canonical([dump], "openai-chat")


def test_extra_choices_and_unknown_roles_are_noted() -> None:
    choice = {"index": 0, "message": {"role": "assistant", "content": "a"}}
    dump = {"choices": [choice, {**choice, "index": 1}]}
    value = [{"role": "user", "content": "q"}, dump, {"role": "critic", "content": "?"}]
    value += [{"role": "assistant", "content": "b"}]
    trace = one(value, "openai-chat")
    assert [s["text"] for s in trace["steps"]] == ["a", "b"]
    assert issues(trace) == [
        "additional choice not followed by the conversation",
        "message with an unknown role",
    ]
    assert [n["step"] for n in trace["metadata"]["adapter"]["notes"]] == ["step-1", "step-1"]


def test_arguments_that_are_json_but_not_an_object() -> None:
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "[1, 2]"}}
    trace = one([{"role": "assistant", "tool_calls": [call]}], "openai-chat")
    assert trace["steps"][0]["arguments"] is None
    assert issues(trace) == ["arguments are not a JSON object"]


def test_responses_hosted_tool_failure_and_repeated_items() -> None:
    item = {
        "type": "mcp_call",
        "id": "mcp_1",
        "name": "crm.lookup",
        "arguments": '{"q": 1}',
        "server_label": "crm",
        "error": "denied",
    }
    trace = one({"input": [item, item]}, "openai-responses")
    (step,) = trace["steps"]
    assert (step["tool_name"], step["status"], step["error"]) == ("crm.lookup", "error", "denied")
    assert step["arguments"] == {"q": 1}
    assert issues(trace) == []
    assert trace["metadata"]["adapter"]["skipped"] == {"item repeated (already mapped)": 1}


def test_anthropic_server_tool_error_content() -> None:
    message = {
        "type": "message",
        "role": "assistant",
        "stop_reason": "end_turn",
        "content": [
            {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "q"}},
            {
                "type": "web_search_tool_result",
                "tool_use_id": "s1",
                "content": {
                    "type": "web_search_tool_result_error",
                    "error_code": "max_uses_exceeded",
                },
            },
            {"type": "mystery", "x": 1},
        ],
    }
    trace = one([message], "anthropic-messages")
    (step,) = trace["steps"]
    assert (step["status"], step["error"]) == ("error", "max_uses_exceeded")
    assert step["metadata"]["server_tool"] is True
    assert issues(trace) == ["mystery block is not a step"]


def test_anthropic_text_after_tool_use_is_a_new_step() -> None:
    content = [
        {"type": "text", "text": "Before."},
        {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
        {"type": "text", "text": "After."},
    ]
    trace = one([{"role": "assistant", "content": content}], "anthropic-messages")
    assert [(s["type"], s.get("text")) for s in trace["steps"]] == [
        ("model_response", "Before."),
        ("tool_call", None),
        ("model_response", "After."),
    ]


def test_gemini_calls_without_ids_match_results_by_name_in_order() -> None:
    model = {
        "role": "model",
        "parts": [
            {"function_call": {"name": "f", "args": {"n": 1}}},
            {"function_call": {"name": "f", "args": {"n": 2}}},
        ],
    }
    replies = {
        "role": "user",
        "parts": [
            {"function_response": {"name": "f", "response": {"output": "one"}}},
            {"function_response": {"name": "f", "response": {"error": "two failed"}}},
            {"function_response": {"name": "g", "response": {"x": 1}}},
        ],
    }
    trace = one({"contents": [model, replies]}, "google-genai")
    steps = trace["steps"]
    assert [(s["step_id"], s["output"], s["status"]) for s in steps] == [
        ("step-1", "one", "ok"),
        ("step-2", None, "error"),
    ]
    assert issues(trace) == ["tool result without a matching call"]


def test_gemini_code_execution() -> None:
    model = {
        "role": "model",
        "parts": [
            {"executable_code": {"language": "PYTHON", "code": "1/0"}},
            {"code_execution_result": {"outcome": "OUTCOME_FAILED", "output": "ZeroDivisionError"}},
        ],
    }
    (step,) = one([model], "google-genai")["steps"]
    assert (step["tool_name"], step["status"], step["error"]) == (
        "code_execution",
        "error",
        "OUTCOME_FAILED",
    )


def test_cohere_several_documents() -> None:
    plan = {
        "role": "assistant",
        "tool_plan": "Look.",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "s", "arguments": "{}"}}
        ],
    }
    tool = {
        "role": "tool",
        "tool_call_id": "c1",
        "content": [
            {"type": "document", "document": {"data": {"a": 1}}},
            {"type": "document", "document": {"data": "two"}},
        ],
    }
    steps = one([plan, tool], "cohere-chat")["steps"]
    assert steps[0]["metadata"] == {"tool_plan": True}
    assert steps[1]["output"] == [{"a": 1}, "two"]


def test_agents_bad_timestamps_are_noted_not_fatal() -> None:
    span = {
        "object": "trace.span",
        "id": "span_1",
        "trace_id": "t",
        "started_at": "yesterday",
        "ended_at": "today",
        "span_data": {"type": "function", "name": "f", "input": "{}"},
    }
    trace = one([span], "openai-agents")
    assert "latency_ms" not in trace["steps"][0]
    assert issues(trace) == ["span timestamps are not ISO 8601"]


def test_otel_bad_timestamp_is_a_located_error() -> None:
    doc = {
        "resourceSpans": [
            {
                "scopeSpans": [
                    {"spans": [{"traceId": "ab", "startTimeUnixNano": "soon", "attributes": []}]}
                ]
            }
        ]
    }
    with pytest.raises(AdapterError, match=r"spans\[0\]\.startTimeUnixNano"):
        to_canonical(doc, "otel-genai")


def test_otel_attribute_value_kinds() -> None:
    attrs = [
        {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
        {"key": "gen_ai.tool.name", "value": {"stringValue": "f"}},
        {
            "key": "gen_ai.tool.call.arguments",
            "value": {
                "kvlistValue": {
                    "values": [
                        {"key": "n", "value": {"intValue": "7"}},
                        {"key": "tags", "value": {"arrayValue": {"values": [{"boolValue": True}]}}},
                    ]
                }
            },
        },
    ]
    doc = {
        "resourceSpans": [
            {
                "scopeSpans": [
                    {
                        "spans": [
                            {
                                "traceId": "ab",
                                "spanId": "01",
                                "attributes": attrs,
                                "status": {"code": 2},
                            }
                        ]
                    }
                ]
            }
        ]
    }
    (step,) = one(doc, "otel-genai")["steps"]
    assert step["step_id"] == "01"
    assert step["arguments"] == {"n": 7, "tags": [True]}
    assert (step["status"], step["error"]) == ("error", "error")


@pytest.mark.parametrize(
    ("fmt", "value", "where"),
    [
        ("openai-chat", [{"role": "assistant", "tool_calls": "x"}], "[0].tool_calls"),
        ("openai-responses", [{"object": "response", "output": {}}], "[0].output"),
        ("anthropic-messages", [{"role": "assistant", "content": [3]}], "[0].content[0]"),
        ("cohere-chat", [{"role": "assistant", "tool_calls": [1]}], "[0].tool_calls[0]"),
        ("google-genai", [{"role": "model", "parts": {}}], "[0].parts"),
        (
            "openai-agents",
            {"data": [{"object": "trace.span", "span_data": 1}]},
            "data[0].span_data",
        ),
        ("otel-genai", {"resourceSpans": [{"scopeSpans": [{"spans": [7]}]}]}, "spans[0]"),
    ],
)
def test_malformed_input_names_the_location(fmt: str, value: Any, where: str) -> None:
    with pytest.raises(AdapterError) as caught:
        to_canonical(value, fmt)
    assert where in str(caught.value)
