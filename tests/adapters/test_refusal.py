"""Refuse instead of guessing: an explicit format that cannot read a document is an input
error, auto-detection keeps the clear best reading, canonical traces keep their path."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness.adapters import BY_NAME, checked, detect, to_canonical
from agent_reliability_harness.adapters.core.base import Adapter
from agent_reliability_harness.adapters.core.select import coverage, select
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.errors import AdapterError

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
POLICY = str(ROOT / "samples" / "policy.json")


def arh(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def tau_bench(tasks: int) -> list[Any]:
    """A tau-bench results file: one record per run, the chat messages under `traj`."""
    records = []
    for task in range(tasks):
        call = {
            "id": f"call_{task}",
            "type": "function",
            "function": {"name": "cancel_reservation", "arguments": '{"reservation_id": "R1"}'},
        }
        traj = [
            {"role": "system", "content": "You are an airline agent."},
            {"role": "user", "content": "Cancel my reservation."},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"call_{task}", "content": "Error: not found"},
            {"role": "assistant", "content": "I could not cancel it."},
        ]
        records.append({"task_id": task, "trial": 0, "reward": 0.0, "info": {}, "traj": traj})
    return records


def claude_code_lines() -> list[Any]:
    """Claude Code session lines: an envelope per line, the API message under `message`."""
    assistant = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "README.md"}
    return [
        {"type": "summary", "summary": "List files", "leafUuid": "u3"},
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "message": {"role": "user", "content": "ls"},
        },
        {"type": "assistant", "uuid": "u2", "parentUuid": "u1", "message": assistant},
        {
            "type": "user",
            "uuid": "u3",
            "parentUuid": "u2",
            "message": {"role": "user", "content": [result]},
        },
    ]


def test_tau_bench_array_is_not_an_openai_chat_transcript() -> None:
    with pytest.raises(AdapterError) as caught:
        to_canonical(tau_bench(200), "openai-chat")
    assert str(caught.value) == (
        "not an openai-chat transcript: it is a tau-bench document; pass --format tau-bench"
    )
    # Coverage alone refuses it too: the chat reading maps none of the records.
    chat = BY_NAME["openai-chat"]
    with pytest.raises(AdapterError) as caught:
        checked(chat, chat.convert(tau_bench(200), "results"))
    assert str(caught.value) == (
        "not an openai-chat transcript: 0 of 200 items mapped; "
        "noted: message with an unknown role (200)"
    )


def test_explicit_wrong_format_fails_validate_instead_of_passing(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(tau_bench(3)))
    code, out, err = arh("validate", "--policy", POLICY, "--format", "openai-chat", str(path))
    assert code == 1
    assert "[PASS]" not in out
    assert f"error: {path.as_posix()}: not an openai-chat transcript: it is a tau-bench" in err


def test_claude_code_session_is_not_anthropic_messages(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in claude_code_lines()))
    code, out, err = arh("convert", "--format", "anthropic-messages", str(path))
    assert (code, out) == (1, "")
    lines = err.splitlines()
    assert len(lines) == 1  # one error for the file, its lines refused alike folded in
    assert lines[0] == (
        f"error: {path.as_posix()}:1: not an anthropic-messages transcript: it is a claude-code "
        "document; pass --format claude-code (and 3 more lines of the file alike, the last at "
        "line 4)"
    )
    anthropic = BY_NAME["anthropic-messages"]
    with pytest.raises(AdapterError, match="0 of 1 items mapped; noted: message with an unknown"):
        checked(anthropic, anthropic.convert(claude_code_lines()[1], "session"))


def test_auto_refuses_a_lone_claimant_that_maps_nothing() -> None:
    orphans = [{"role": "tool", "tool_call_id": f"c{n}", "content": "x"} for n in range(4)]
    with pytest.raises(AdapterError) as caught:
        to_canonical(orphans)
    assert str(caught.value) == (
        "unrecognised input format: it looks like openai-chat, but 0 of 4 items mapped; "
        "noted: tool result without a matching call (4); pass --format if it is another format"
    )


def test_no_step_but_inputs_is_refused() -> None:
    value = {"messages": [{"role": "user", "content": "hi"}, {"role": "tool", "content": "x"}]}
    with pytest.raises(AdapterError) as caught:
        to_canonical(value, "openai-chat")
    assert str(caught.value) == (
        "not an openai-chat transcript: no step mapped; 1 of 2 items mapped; "
        "noted: tool result without a matching call (1)"
    )


def test_a_document_with_nothing_in_it_holds_no_trace() -> None:
    assert to_canonical({"model": "m", "messages": []}, "openai-chat") == []
    assert to_canonical([], "anthropic-messages") == []


def test_most_notes_refuses_but_a_few_notes_are_kept() -> None:
    good = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]
    few = [*good, {"role": "critic", "content": "?"}]
    (trace,) = to_canonical(few, "openai-chat")
    assert len(trace["metadata"]["adapter"]["notes"]) == 1
    many = [*good, *({"role": "critic", "content": "?"} for _ in range(3))]
    with pytest.raises(AdapterError, match=r"2 of 5 items mapped"):
        to_canonical(many, "openai-chat")


def _fake(name: str, steps: list[dict[str, Any]], mapped: int, notes: int) -> Adapter:
    def convert(value: Any, hint: str) -> list[Any]:
        record = {"format": name, "notes": [{"at": "$", "issue": "x"}] * notes, "mapped": mapped}
        return [{"trace_id": hint, "source": name, "steps": steps, "metadata": {"adapter": record}}]

    return Adapter(name, name, lambda value: True, convert)


TEXT = {"step_id": "step-1", "type": "model_response", "text": "a"}
OTHER = {"step_id": "step-1", "type": "model_response", "text": "b"}


def test_auto_picks_the_reading_that_maps_most() -> None:
    found = select([_fake("one", [TEXT], 3, 1), _fake("two", [OTHER], 4, 0)], {}, "t")
    assert found[0]["source"] == "two"


def test_auto_equal_readings_take_the_more_specific_format() -> None:
    found = select([_fake("one", [TEXT], 4, 0), _fake("two", [dict(TEXT)], 4, 0)], {}, "t")
    assert found[0]["source"] == "one"


def test_auto_equal_scores_but_different_readings_are_ambiguous() -> None:
    with pytest.raises(AdapterError) as caught:
        select([_fake("one", [TEXT], 4, 0), _fake("two", [OTHER], 4, 0)], {}, "t")
    assert str(caught.value) == (
        "ambiguous input format: one, two each map 4 items of it, differently; "
        "pass --format with one of them"
    )


def test_auto_when_no_candidate_reads_it() -> None:
    with pytest.raises(AdapterError) as caught:
        select([_fake("one", [], 0, 2), _fake("two", [TEXT], 1, 3)], {}, "t")
    assert str(caught.value) == (
        "unrecognised input format: no candidate format reads it (as one: 0 of 2 items "
        "mapped; noted: x (2); as two: 1 of 4 items mapped; noted: x (3)); pass --format"
    )


def test_coverage_counts_steps_without_a_record() -> None:
    found = coverage([{"steps": [TEXT, OTHER]}])
    assert (found.steps, found.mapped, found.noted, found.refusal()) == (2, 2, 0, None)


def test_canonical_traces_keep_their_path() -> None:
    sample = json.loads((ROOT / "samples" / "traces" / "refund-ok.json").read_text())
    assert detect(sample) is BY_NAME["arh"]
    labelled = {"trace_id": "x", "agent_name": "a", "workflow": "w"}  # steps missing
    assert detect(labelled) is BY_NAME["arh"]  # the parser then names what is missing


def test_chat_body_with_canonical_labels_is_a_transcript() -> None:
    body = {"trace_id": "t-1", "messages": [{"role": "tool", "tool_call_id": "c", "content": "x"}]}
    body["messages"].insert(
        0,
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
    )
    assert detect(body).name == "openai-chat"
    assert to_canonical(body)[0]["trace_id"] == "t-1"


def _http_span(trace_id: str) -> dict[str, Any]:
    attrs = [{"key": "http.request.method", "value": {"stringValue": "GET"}}]
    return {"traceId": trace_id, "spanId": "0102030405060708", "name": "GET", "attributes": attrs}


def test_spans_of_other_instrumentations_are_bookkeeping() -> None:
    export = json.loads((HERE / "fixtures" / "otel-genai" / "clean.json").read_text())
    export["resourceSpans"].append({"scopeSpans": [{"spans": [_http_span("ff" * 16)]}]})
    (trace,) = to_canonical(export, "otel-genai", "x")  # the HTTP-only trace is no run
    assert trace["metadata"]["adapter"]["notes"] == []
    alone = {"resourceSpans": [{"scopeSpans": [{"spans": [_http_span("ab" * 16)]}]}]}
    with pytest.raises(AdapterError) as caught:
        to_canonical(alone, "otel-genai")
    assert str(caught.value) == (
        "not an otel-genai transcript: no step mapped; 0 of 0 items mapped; "
        "1 skipped as bookkeeping"
    )
