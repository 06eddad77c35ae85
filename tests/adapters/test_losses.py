"""One regression test per loss of issue 12, on fixtures built with the vendors' SDKs (or,
for tools without one, their documented message shapes): see sdk_losses.py."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness.adapters import Identity, detect, to_canonical
from agent_reliability_harness.api import validate
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.errors import AdapterError

HERE = Path(__file__).resolve().parent
FORMATS = (
    "openai-chat",
    "openai-responses",
    "anthropic-messages",
    "cohere-chat",
    "google-genai",
    "openai-agents",
    "otel-genai",
)


def fixture(fmt: str, name: str) -> Any:
    return json.loads((HERE / "fixtures" / fmt / f"{name}.json").read_text(encoding="utf-8"))


def convert(fmt: str, name: str) -> dict[str, Any]:
    (trace,) = to_canonical(fixture(fmt, name), "auto", name)
    assert trace["source"] == fmt
    return dict(trace)


def calls(trace: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in trace["steps"] if s["type"] == "tool_call"]


def tokens(trace: dict[str, Any]) -> tuple[int, int]:
    steps = trace["steps"]
    return (
        sum(s.get("input_tokens") or 0 for s in steps),
        sum(s.get("output_tokens") or 0 for s in steps),
    )


def test_idless_results_pair_with_idless_calls_in_order() -> None:
    trace = convert("openai-chat", "idless-results")
    assert [(c["tool_name"], c["output"]) for c in calls(trace)] == [
        (
            "lookup_order",
            json.dumps({"order_id": "ORD-1042", "status": "delivered", "total": 25.0}),
        ),
        ("search_kb", "Refunds within 30 days."),
    ]
    assert trace["metadata"]["adapter"]["notes"] == []


def test_tool_call_ids_lists_name_their_calls() -> None:
    trace = convert("openai-chat", "tool-call-ids")
    assert [(c["step_id"], c["output"]) for c in calls(trace)] == [
        ("call_0", "src tests"),
        ("call_1", "1 failed"),
    ]


def test_error_field_of_a_tool_message_is_its_status() -> None:
    trace = convert("openai-chat", "tool-error-field")
    assert [(c["tool_name"], c["status"], c.get("error")) for c in calls(trace)] == [
        ("get_balance", "ok", None),
        ("send_money", "error", "ValueError: insufficient funds"),
    ]
    policy = {"policy_id": "p", "error_handling": {"require_retry_on_error": True}}
    found = {f.rule_id for f in validate([trace], policy).reports[0].findings}
    assert "ARH-FLW-001" in found  # the failed payment is judged as failed


def test_split_message_entries_count_usage_once() -> None:
    trace = convert("anthropic-messages", "split-blocks")
    # msg_A: 30 + 500 cached input, 40 output, written on three entries; msg_B: 60 + 500, 5.
    assert tokens(trace) == (530 + 560, 45)
    assert trace["steps"][0]["metadata"]["reasoning"] == ["Look it up first."]


def test_equal_blocks_of_one_entry_are_all_kept() -> None:
    trace = convert("anthropic-messages", "repeated-pieces")
    assert [s["text"] for s in trace["steps"]] == ["Sunny. Windy. Done"]
    assert "skipped" not in trace["metadata"]["adapter"]
    value = fixture("anthropic-messages", "split-blocks")
    value.insert(3, value[2])  # an entry written twice: its repeat is skipped
    (split,) = to_canonical(value, "anthropic-messages", "split")
    assert [s.get("text") for s in split["steps"]] == ["Let me check.", None, "Delivered."]
    skipped = split["metadata"]["adapter"]["skipped"]
    assert skipped == {"content block repeated in another entry of its message": 1}


def test_bare_responses_dump_keeps_usage_model_and_id() -> None:
    value = fixture("openai-responses", "bare-response")
    bare = to_canonical(value, "openai-responses", "r")[0]
    wrapped = to_canonical([value], "openai-responses", "r")[0]
    assert bare["steps"] == wrapped["steps"]
    first = bare["steps"][0]
    assert (first["input_tokens"], first["output_tokens"]) == (150, 25)
    assert first["metadata"] == {"model": "gpt-4.1-mini-2025-04-14", "response_id": "resp_bare"}


def test_messages_with_response_map_the_response() -> None:
    trace = convert("openai-chat", "messages-response")
    last = trace["steps"][-1]
    assert (last["type"], last["text"], last["output_tokens"]) == (
        "model_response",
        "ORD-1042 was delivered.",
        8,
    )
    policy = {"policy_id": "p", "completion": {"require_final_response": True}}
    found = {f.rule_id for f in validate([trace], policy).reports[0].findings}
    assert "ARH-CMP-001" not in found


def test_response_repeating_the_last_message_is_mapped_once() -> None:
    value = fixture("openai-chat", "messages-response")
    message = value["response"]["choices"][0]["message"]
    value["messages"].append(message)
    trace = to_canonical(value, "openai-chat", "pair")[0]
    assert [s.get("text") for s in trace["steps"]].count("ORD-1042 was delivered.") == 1
    assert trace["steps"][-1]["output_tokens"] == 8
    assert trace["metadata"]["adapter"]["skipped"] == {
        "response that repeats the last assistant message": 1
    }


def test_body_labels_are_carried_and_do_not_break_detection() -> None:
    value = fixture("openai-chat", "body-labels")
    assert detect(value).name == "openai-chat"
    trace = to_canonical(value, "auto", "file-stem")[0]
    assert (trace["trace_id"], trace["agent_name"], trace["workflow"]) == (
        "refund-run-7",
        "refund-copilot",
        "refunds",
    )
    assert trace["task_id"] == "12"
    assert trace["outcome"] == {"success": True, "reward": 1.0, "grader": "human"}
    assert trace["inputs"] == [
        {"role": "developer", "text": "Be brief."},
        {"role": "user", "text": "Where is ORD-1042?"},
    ]


def test_cli_labels_win_over_body_labels() -> None:
    value = fixture("openai-chat", "body-labels")
    (trace,) = to_canonical(value, "auto", "stem", Identity(trace_id="cli", workflow="w"))
    assert (trace["trace_id"], trace["agent_name"], trace["workflow"]) == (
        "cli",
        "refund-copilot",
        "w",
    )


def test_bad_body_labels_are_noted() -> None:
    value = {**fixture("openai-chat", "body-labels"), "task_id": 1.5, "outcome": {"reward": "x"}}
    trace = to_canonical(value, "openai-chat", "stem")[0]
    assert "task_id" not in trace and "outcome" not in trace
    notes = [(n["at"], n["issue"]) for n in trace["metadata"]["adapter"]["notes"]]
    assert notes == [
        ("task_id", "label is not a string"),
        ("outcome", "outcome.reward is not a number"),
    ]


def test_legacy_otel_names_give_tokens_and_provider() -> None:
    trace = convert("otel-genai", "legacy-names")
    assert tokens(trace) == (95, 10)
    assert {s["metadata"]["provider"] for s in trace["steps"]} == {"openai"}
    assert [s["text"] for s in trace["steps"]] == ["30 days.", "Shipping is not refunded."]


def test_otel_indexed_attributes_give_content_calls_and_results() -> None:
    trace = convert("otel-genai", "indexed-attributes")
    assert tokens(trace) == (155, 25)
    (call,) = calls(trace)
    assert (call["step_id"], call["arguments"]) == ("call_ix1", {"order_id": "ORD-1042"})
    assert call["output"] == json.dumps(
        {"order_id": "ORD-1042", "status": "delivered", "total": 25.0}
    )
    assert trace["steps"][-1]["text"] == "ORD-1042 was delivered."
    assert [i["role"] for i in trace["inputs"]] == ["system", "user"]


def test_otel_messages_on_the_operation_details_event() -> None:
    trace = convert("otel-genai", "details-event")
    assert [s["text"] for s in trace["steps"]] == ["30 days."]
    assert trace["inputs"] == [{"role": "user", "text": "Refund window?"}]
    assert trace["metadata"]["adapter"]["notes"] == []


def test_anthropic_bundle_takes_usage_from_responses() -> None:
    trace = convert("anthropic-messages", "bundle-responses")
    assert tokens(trace) == (600 + 640, 26)
    assert [s.get("text") for s in trace["steps"]] == ["Checking.", None, "Delivered."]
    assert trace["inputs"][0] == {"role": "system", "text": "You are a support agent."}


def test_anthropic_bundle_matches_responses_to_the_messages_they_are() -> None:
    trace = convert("anthropic-messages", "bundle-history")
    steps = [
        (s.get("text"), s.get("input_tokens"), s.get("metadata", {}).get("response_id"))
        for s in trace["steps"]
    ]
    assert steps == [
        ("Hello, how can I help?", None, None),  # earlier history: no response is it
        (None, 600, "msg_h1"),  # the tool_use sent back is the first response
        ("Delivered.", 640, "msg_h2"),  # the answer, in no message: its own step
    ]
    assert tokens(trace) == (600 + 640, 26)
    value = fixture("anthropic-messages", "bundle-history")
    final = value["responses"][1]
    value["messages"].append({"role": "assistant", "content": final["content"]})
    final["content"] = [{"type": "thinking", "thinking": "Delivered.", "signature": "s"}]
    final["content"] += value["messages"][-1]["content"]  # sent back without its thinking
    (sent,) = to_canonical(value, "anthropic-messages", "sent")
    assert [s.get("input_tokens") for s in sent["steps"]] == [None, 600, 640]


@pytest.mark.parametrize(
    ("fmt", "name", "text"),
    [
        ("openai-chat", "plain-messages-response", "Refunds within 30 days."),
        ("openai-responses", "plain-input-response", "Checking."),
        ("anthropic-messages", "bundle-plain", "30 days."),
    ],
)
def test_plain_request_is_known_by_its_response_part(fmt: str, name: str, text: str) -> None:
    value = fixture(fmt, name)
    assert detect(value).name == fmt
    trace = convert(fmt, name)
    assert trace["steps"][-1]["text"] == text
    assert trace["steps"][-1]["input_tokens"] is not None
    plain = {k: v for k, v in value.items() if k not in ("response", "responses")}
    with pytest.raises(AdapterError, match="no format-specific field found"):
        to_canonical(plain)  # the messages alone are plain text


def test_cohere_reasoning_conversation_is_not_taken_for_anthropic() -> None:
    value = fixture("cohere-chat", "plan-thinking-documents")
    assert detect(value).name == "cohere-chat"
    trace = convert("cohere-chat", "plan-thinking-documents")
    assert len(trace["steps"]) == 5
    assert calls(trace)[0]["output"] == "upstream timeout"
    with pytest.raises(AdapterError, match="not an anthropic-messages transcript"):
        to_canonical(value, "anthropic-messages")


@pytest.mark.parametrize(
    ("fmt", "name"),
    [
        ("openai-chat", "stream-chunks"),
        ("anthropic-messages", "stream-events"),
        ("google-genai", "stream-chunks"),
    ],
)
def test_streamed_chunks_join_into_one_response(fmt: str, name: str) -> None:
    trace = convert(fmt, name)
    text, call = trace["steps"][0], calls(trace)[0]
    assert text["text"] == "Let me check."
    assert (call["tool_name"], call["arguments"]) == ("lookup_order", {"order_id": "ORD-1042"})
    assert len(trace["steps"]) == 2


def test_streamed_reasoning_deltas_join_as_the_message_field_does() -> None:
    trace = convert("openai-chat", "stream-reasoning")
    assert [(s["text"], s["metadata"]["reasoning"]) for s in trace["steps"]] == [
        ("30 days.", ["Policy says 30 days."]),  # delta.reasoning_content
        ("No refunds.", ["Sale items are final."]),  # delta.reasoning
    ]


def test_responses_stream_events_map_the_completed_response() -> None:
    trace = convert("openai-responses", "stream-events")
    assert [s.get("text") for s in trace["steps"]] == ["Checking.", None]
    assert tokens(trace) == (150, 25)
    value = fixture("openai-responses", "stream-events")[:-1]  # cut before response.completed
    (cut,) = to_canonical(value, "openai-responses", "cut")
    assert [s["step_id"] for s in cut["steps"]] == ["step-1", "call_bare"]
    assert tokens(cut) == (0, 0)  # the usage only arrives with the completed response


def test_responses_stream_events_without_sequence_numbers() -> None:
    trace = convert("openai-responses", "stream-events-no-sequence")
    assert trace["steps"] == convert("openai-responses", "stream-events")["steps"]
    realtime = [  # Realtime API events share the names, but carry an event_id
        {"type": "response.created", "event_id": "ev_1", "response": {"id": "r", "output": []}},
        {"type": "response.output_item.added", "event_id": "ev_2", "output_index": 0},
    ]
    with pytest.raises(AdapterError, match="no format-specific field found"):
        to_canonical(realtime)


def test_cohere_stream_events_join_per_message() -> None:
    trace = convert("cohere-chat", "stream-events")
    assert [s.get("text") for s in trace["steps"]] == [
        "I will look up the order.",
        None,
        "It was delivered.",
    ]
    assert calls(trace)[0]["arguments"] == {"order_id": "ORD-1042"}
    assert tokens(trace) == (230, 26)


# A token count beyond the float range (issue 18, item 1): a located error, never a crash.
HUGE = 10**309
HUGE_DOCS = {
    "openai-chat": [{"choices": [], "usage": {"prompt_tokens": HUGE}}],
    "openai-responses": [{"object": "response", "output": [], "usage": {"input_tokens": HUGE}}],
    "anthropic-messages": [
        {"type": "message", "role": "assistant", "content": [], "usage": {"input_tokens": HUGE}}
    ],
    "cohere-chat": [
        {"message": {"role": "assistant"}, "usage": {"tokens": {"input_tokens": HUGE}}}
    ],
    "google-genai": [{"candidates": [], "usage_metadata": {"prompt_token_count": HUGE}}],
    "openai-agents": {
        "data": [
            {
                "object": "trace.span",
                "trace_id": "t",
                "span_data": {"type": "generation", "usage": {"input_tokens": HUGE}},
            }
        ]
    },
    "otel-genai": {
        "resourceSpans": [
            {
                "scopeSpans": [
                    {
                        "spans": [
                            {
                                "traceId": "ab",
                                "attributes": [
                                    {
                                        "key": "gen_ai.operation.name",
                                        "value": {"stringValue": "chat"},
                                    },
                                    {
                                        "key": "gen_ai.usage.input_tokens",
                                        "value": {"intValue": str(HUGE)},
                                    },
                                ],
                            }
                        ]
                    }
                ]
            }
        ]
    },
}


@pytest.mark.parametrize("fmt", FORMATS)
def test_token_count_beyond_float_range_is_a_located_error(fmt: str) -> None:
    with pytest.raises(AdapterError, match=r"tokens?(_count)?: expected a token count from 0"):
        to_canonical(HUGE_DOCS[fmt], fmt)


def test_console_exporter_lines_join_into_one_trace(tmp_path: Path) -> None:
    """ConsoleSpanExporter with a one-line formatter: one span per JSONL line."""
    spans = fixture("otel-genai", "console-exporter")
    path = tmp_path / "spans.jsonl"
    path.write_text("".join(json.dumps(span) + "\n" for span in spans))
    out, err = io.StringIO(), io.StringIO()
    assert main(["convert", str(path)], Streams(out, err, io.BytesIO())) == 0
    converted = json.loads(out.getvalue())
    expected = json.loads((HERE / "expected" / "otel-genai" / "retry.json").read_text())
    assert converted["steps"] == expected["steps"]
