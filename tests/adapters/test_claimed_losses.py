"""Losses found by the real-run sweep in formats ARH already claims (issue 25, part 3).

Each case is built from the format's documented schema or the vendor's own code paths
(Codex's codex-rs output texts, Inspect's EvalLog classes, LangSmith's batch payload, the
OpenTelemetry JS ReadableSpan), never from the real files."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import cli_codex as cx
import pytest

from agent_reliability_harness.adapters import BY_NAME, convert_session, to_canonical
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.errors import AdapterError


def _session(fmt: str, lines: list[dict[str, Any]]) -> dict[str, Any]:
    (trace,) = convert_session(BY_NAME[fmt], iter(enumerate(lines, 1)), "s")
    return trace


def _turn(n: int) -> dict[str, Any]:
    return cx._line(n, "turn_context", {"cwd": "/w", "model": "gpt-5-codex"})


# Codex 0.40 (codex-rs core/src/codex.rs) answers a call it could not run with text, the
# payload's `success` flag not being written to the rollout: a sandbox denial with
# approval policy never/on-request, any other exec failure, a patch the user rejected.
_SANDBOX = "failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error"
_CODEX_040 = [
    cx._line(0, "session_meta", {"id": "r040", "cwd": "/w", "cli_version": "0.40.0"}),
    cx._line(1, "response_item", cx._text("user", "Fix the build.")),
    _turn(2),
    cx._tokens(3, (1000, 0, 10), (1000, 0, 10)),  # this request's usage, before its items
    cx._line(4, "response_item", {"type": "reasoning", "summary": [], "encrypted_content": "g"}),
    cx._line(5, "response_item", cx._fn("call_1", "shell", {"command": ["make"]})),
    cx._line(6, "response_item", cx._out("call_1", _SANDBOX)),
    _turn(7),
    cx._tokens(8, (2100, 0, 30), (1100, 0, 20)),
    cx._line(9, "response_item", cx._fn("call_2", "shell", {"command": ["mkae"]})),
    cx._line(10, "response_item", cx._out("call_2", "execution error: No such file (os error 2)")),
    _turn(11),
    cx._tokens(12, (3300, 0, 60), (1200, 0, 30)),
    cx._line(13, "response_item", cx._fn("call_3", "apply_patch", {"input": "*** Begin Patch"})),
    cx._line(14, "response_item", cx._out("call_3", "patch rejected by user")),
    cx._line(15, "response_item", cx._fn("call_4", "shell", {"command": ["ls"]})),
    cx._line(
        16,
        "response_item",
        cx._out("call_4", '{"output":"a\\n","metadata":{"exit_code":0,"duration_seconds":0.1}}'),
    ),
    _turn(17),
    cx._tokens(18, (4600, 0, 100), (1300, 0, 40)),
    cx._line(19, "response_item", cx._text("assistant", "The build needs approval to run.")),
]


def test_codex_040_failure_texts_are_errors() -> None:
    trace = _session("codex-cli", _CODEX_040)
    calls = [s for s in trace["steps"] if s["type"] == "tool_call"]
    assert [(s["step_id"], s.get("status"), s.get("error")) for s in calls] == [
        ("call_1", "error", _SANDBOX),
        ("call_2", "error", "execution error: No such file (os error 2)"),
        ("call_3", "error", "patch rejected by user"),
        ("call_4", "ok", None),
    ]


def test_codex_usage_written_before_its_request_lands_on_that_request() -> None:
    trace = _session("codex-cli", _CODEX_040)
    usage = [(s["step_id"], s.get("input_tokens"), s.get("output_tokens")) for s in trace["steps"]]
    assert usage == [
        ("call_1", 1000, 10),
        ("call_2", 1100, 20),
        ("call_3", 1200, 30),
        ("call_4", None, None),
        ("step-5", 1300, 40),
    ]
    assert trace["metadata"]["adapter"]["notes"] == []


def test_codex_usage_written_after_its_request_still_lands_on_it() -> None:
    """Older rollouts write token_count after the request's items (the clean fixture)."""
    trace = _session("codex-cli", cx.ROLLOUT_CLEAN)
    usage = [(s.get("input_tokens"), s.get("output_tokens")) for s in trace["steps"]]
    assert usage == [(5200, 120), (5400, 30)]
    assert trace["metadata"]["adapter"]["notes"] == []


def test_codex_output_that_only_mentions_a_failure_text_is_not_an_error() -> None:
    lines = [
        cx._line(0, "session_meta", {"id": "r", "cwd": "/w", "cli_version": "0.40.0"}),
        cx._line(1, "response_item", cx._fn("c", "shell", {"command": ["cat", "notes"]})),
        cx._line(2, "response_item", cx._out("c", "notes: patch rejected by user twice")),
    ]
    (call,) = _session("codex-cli", lines)["steps"]
    assert call.get("status") != "error"


# SWE-agent trajectories hold no exit code; its tools write some failures as text: the
# lint-gated `edit` (tools/windowed_edit_linting/bin/edit, 0.x edit_linting.sh) reverts
# an edit that introduces syntax errors ("Your changes have NOT been applied", exit 1),
# and the environment interrupts a command past its timeout ("EXECUTION TIMED OUT").
_LINT = (
    "Your proposed edit has introduced new syntax error(s). Please read this error message "
    "carefully and then retry editing the file.\n\nERRORS:\n- E999 IndentationError: "
    "unexpected indent\n\nThis is how your edit would have looked if applied\n---\n"
    "1:  return x\n---\n\nYour changes have NOT been applied. Please fix your edit command "
    "and try again.\nDO NOT re-run the same failed edit command. Running it again will lead "
    "to the same error."
)
_NO_OUTPUT = (
    "Running attack.\nEXECUTION TIMED OUT BECAUSE NO OUTPUT WAS PRODUCED FOR MORE THAN 60.0 "
    "SECONDS.\nPLEASE REFINE YOUR RUNNING COMMAND SO IT WILL PRODUCE OUTPUT IN THE SPECIFIED "
    "TIME FRAME."
)


def test_swe_agent_failures_written_as_text_are_errors() -> None:
    steps = [
        ("edit 1:1\n  return x\nend_of_edit", _LINT),
        ("edit 1:1\nreturn x\nend_of_edit", "File updated. Please review the changes."),
        ("./rock", "\nEXECUTION TIMED OUT"),
        ("python attack.py", _NO_OUTPUT),
        ("cat notes.txt", "a note that says: Your changes have NOT been applied yet"),
    ]
    trajectory = [
        {"action": a, "observation": o, "thought": f"step {n}", "response": f"step {n}"}
        for n, (a, o) in enumerate(steps)
    ]
    history = [{"role": "system", "content": "You are SWE-agent.", "agent": "primary"}]
    for n, (action, observation) in enumerate(steps):
        history.append({"role": "assistant", "content": f"step {n}", "agent": "primary"})
        history[-1].update(thought=f"step {n}", action=action)
        history.append({"role": "user", "content": observation, "agent": "primary"})
    value = {"trajectory": trajectory, "history": history, "info": {"exit_status": "submitted"}}
    (trace,) = to_canonical(value, "swe-agent", "t")
    calls = [s for s in trace["steps"] if s["type"] == "tool_call"]
    assert [c.get("status", "ok") for c in calls] == ["error", "ok", "error", "error", "ok"]
    assert "not applied" in calls[0]["error"] and "timed out" in calls[2]["error"]
    assert calls[0]["output"] == _LINT  # the text stays the output
    assert trace["metadata"]["adapter"]["notes"] == []


def _mcp_sampling_session() -> list[Any]:
    """A tool call during which the server asks the client for an LLM completion
    (sampling/createMessage, ids in the server's own space), built with `mcp.types`."""
    mt = pytest.importorskip("mcp.types")

    def wire(model: Any) -> Any:
        return json.loads(model.model_dump_json(by_alias=True, exclude_none=True))

    said = mt.SamplingMessage(role="user", content=mt.TextContent(type="text", text="Quote"))
    asked = mt.CreateMessageRequestParams(messages=[said], maxTokens=100, systemPrompt="Be brief")
    answer = mt.CreateMessageResult(
        role="assistant",
        content=mt.TextContent(type="text", text="So we beat on"),
        model="claude-3-5-haiku",
        stopReason="endTurn",
    )
    called = mt.CallToolResult(content=[mt.TextContent(type="text", text="LLM said: So")])
    call = {"name": "trigger-sampling-request", "arguments": {"prompt": "Quote"}}
    return [
        wire(mt.JSONRPCRequest(jsonrpc="2.0", id=7, method="tools/call", params=call)),
        wire(
            mt.JSONRPCRequest(
                jsonrpc="2.0", id=0, method="sampling/createMessage", params=wire(asked)
            )
        ),
        wire(mt.JSONRPCResponse(jsonrpc="2.0", id=0, result=wire(answer))),
        wire(mt.JSONRPCResponse(jsonrpc="2.0", id=7, result=wire(called))),
    ]


def test_mcp_sampling_is_kept_with_the_call_that_asked_for_it() -> None:
    """Not a model turn of the run (the session's last step would read as its final
    response): the request and the client's answer go to the running call's metadata."""
    (trace,) = to_canonical(_mcp_sampling_session(), "mcp", "s")
    assert trace["metadata"]["adapter"]["notes"] == []
    (call,) = trace["steps"]
    assert (call["step_id"], call["output"]) == ("7", "LLM said: So")
    (sampled,) = call["metadata"]["sampling"]
    assert sampled["request"]["systemPrompt"] == "Be brief"
    assert sampled["result"]["content"]["text"] == "So we beat on"
    assert sampled["result"]["model"] == "claude-3-5-haiku"
    assert trace["metadata"]["adapter"]["mapped"] == 4


def test_mcp_sampling_outside_a_call_is_still_noted() -> None:
    session = _mcp_sampling_session()
    order = [session[0], session[3], *session[1:3]]  # the call answered before sampling
    (trace,) = to_canonical(order, "mcp", "s")
    issues = [n["issue"] for n in trace["metadata"]["adapter"]["notes"]]
    assert issues[-2:] == [
        "sampling/createMessage request is not a tool call",
        "sampling/createMessage result is not a tool call",
    ]


def test_mcp_sampling_without_a_result_is_still_noted() -> None:
    (trace,) = to_canonical(_mcp_sampling_session()[:2], "mcp", "s")
    (note,) = trace["metadata"]["adapter"]["notes"]
    assert note["issue"] == "sampling/createMessage request without a result"
    assert [s["type"] for s in trace["steps"]] == ["tool_call"]


def arh(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(out, err, io.BytesIO(b"")))
    return code, out.getvalue(), err.getvalue()


def test_an_unrecognised_jsonl_file_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text("".join(json.dumps({"n": n, "text": "x"}) + "\n" for n in range(149)))
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"policy_id": "p", "allow_unlisted_tools": True}))
    for argv in (["convert"], ["validate", "--policy", str(policy)]):
        code, _, err = arh(*argv, str(path), str(path))  # twice: one error per file given
        lines = err.splitlines()
        assert code == 1 and len(lines) == 2 and lines[0] == lines[1], argv
        assert lines[0].startswith(f"error: {path}:1: unrecognised input format: ")
        assert lines[0].endswith("(and 148 more lines of the file alike, the last at line 149)")


def test_a_jsonl_file_refused_by_an_explicit_format_is_one_error(tmp_path: Path) -> None:
    """`--format X` on a JSONL file none of whose lines is X (here `codex exec --json`
    events, shaped as its documented thread/turn/item events): one error for the file,
    not one identical refusal per line; another refusal is never folded into it."""
    path = tmp_path / "events.jsonl"
    events = [
        {"type": "thread.started", "thread_id": "t1"},
        {"type": "turn.started"},
        {"type": "item.completed", "item": {"id": "i0", "type": "agent_message", "text": "4"}},
        {"type": "turn.completed", "usage": {"input_tokens": 5, "output_tokens": 1}},
    ]
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    for fmt in ("openhands", "smolagents", "claude-code", "gemini-stream"):
        code, out, err = arh("convert", "--format", fmt, str(path))
        lines = err.splitlines()
        assert (code, out, len(lines)) == (1, "", 1), (fmt, err)
        assert lines[0].startswith(f"error: {path}:1: not a"), fmt
        assert lines[0].endswith("(and 3 more lines of the file alike, the last at line 4)")


def test_a_line_failing_otherwise_is_not_folded(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_text('{"n": 1}\n{"n": 2}\n{oops\n{"n": 4}\n')
    code, _, err = arh("convert", str(path))
    assert code == 1
    assert [line.split(": ")[1] for line in err.splitlines()] == [
        f"{path}:1",
        f"{path}:3",
        f"{path}:4",
    ]
    assert "(and 1 more line of the file alike, the last at line 2)" in err.splitlines()[0]


def test_converting_an_empty_jsonl_file_is_an_error(tmp_path: Path) -> None:
    empty, blank = tmp_path / "empty.jsonl", tmp_path / "blank.jsonl"
    empty.write_text("")
    blank.write_text("\n\n")
    code, out, err = arh("convert", str(empty), str(blank))
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        f"error: {empty}: no traces found: the file is empty",
        f"error: {blank}: no traces found: the file is empty",
    ]


def _direct_solver_log() -> dict[str, Any]:
    """An Inspect sample whose solver called the model itself: the prompt alone in
    `messages`, no output choice; two model events and a tool event (Inspect's classes)."""
    from inspect_ai.event import ModelEvent, ToolEvent  # noqa: PLC0415
    from inspect_ai.log import EvalSample  # noqa: PLC0415
    from inspect_ai.model import (  # noqa: PLC0415
        ChatCompletionChoice,
        ChatMessageAssistant,
        ChatMessageUser,
        GenerateConfig,
        ModelOutput,
        ModelUsage,
    )
    from inspect_ai.tool import ToolCall, ToolCallError  # noqa: PLC0415

    prompt = ChatMessageUser(content="Write fib(n).")

    def model(message: ChatMessageAssistant, used: tuple[int, int]) -> ModelEvent:
        usage = ModelUsage(input_tokens=used[0], output_tokens=used[1], total_tokens=sum(used))
        choice = ChatCompletionChoice(message=message, stop_reason="stop")
        output = ModelOutput(model="m", choices=[choice], usage=usage, time=1.5)
        return ModelEvent(
            model="m",
            input=[prompt],
            tools=[],
            tool_choice="none",
            config=GenerateConfig(),
            output=output,
        )

    call = ToolCall(id="t1", function="python", arguments={"code": "fib(3)"})
    events = [
        model(ChatMessageAssistant(content="", tool_calls=[call], model="m"), (100, 20)),
        ToolEvent(
            id="t1",
            function="python",
            arguments={"code": "fib(3)"},
            result="",
            error=ToolCallError(type="unknown", message="NameError: fib"),
        ),
        model(ChatMessageAssistant(content="def fib(n): ...", model="m"), (150, 30)),
    ]
    sample = EvalSample(
        id=1,
        epoch=1,
        input="Write fib(n).",
        target="",
        messages=[prompt],
        output=ModelOutput(model="m", choices=[]),
        events=events,
    )
    dumped = sample.model_dump(mode="json", exclude_none=True)
    return {
        "version": 2,
        "status": "success",
        "eval": {"task": "t", "model": "m"},
        "samples": [dumped],
    }


def test_inspect_model_turns_found_only_in_events_are_the_steps() -> None:
    (trace,) = to_canonical(_direct_solver_log(), "auto", "log")
    steps = [
        (s["type"], s.get("text"), s.get("status"), s.get("input_tokens"), s.get("output_tokens"))
        for s in trace["steps"]
    ]
    assert steps == [
        ("tool_call", None, "error", 100, 20),
        ("model_response", "def fib(n): ...", None, 150, 30),
    ]
    assert trace["steps"][0]["error"] == "NameError: fib"
    assert trace["inputs"] == [{"role": "user", "text": "Write fib(n)."}]
    assert trace["metadata"]["adapter"]["notes"] == []


def test_an_invariant_dataset_header_line_is_bookkeeping(tmp_path: Path) -> None:
    """Invariant's dataset JSONL (AgentDojo's published runs): a `{"metadata": {...}}`
    line, then one run per line (`index`, OpenAI chat `messages`, `metadata`)."""
    messages = [
        {"role": "user", "content": "What is my balance?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_balance", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "1810.0"},
        {"role": "assistant", "content": "Your balance is 1810.0."},
    ]
    header = {"metadata": {"benchmark": "agent-dojo", "accuracy": 0.5, "name": "m"}}
    run = {"index": 1, "messages": messages, "metadata": {"suite_name": "banking"}}
    path = tmp_path / "dataset.jsonl"
    path.write_text(json.dumps(header) + "\n" + json.dumps(run) + "\n")
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"policy_id": "p", "allow_unlisted_tools": True}))
    code, out, err = arh("convert", str(path))
    assert (code, err) == (0, "")
    assert [s["tool_name"] for s in json.loads(out)["steps"] if "tool_name" in s] == ["get_balance"]
    code, out, err = arh("validate", "--policy", str(policy), "--quiet", str(path))
    assert (code, err) == (0, "")


def _langsmith_batch() -> dict[str, Any]:
    """What the LangSmith SDK posts to /runs/batch for a traced OpenAI call that asked for a
    tool, and the tool's run: `post` holds each run as created, `patch` as ended (RunTree's
    own dicts; the completion in OpenAI's shape, usage in `usage_metadata`)."""
    from datetime import UTC, datetime, timedelta  # noqa: PLC0415

    from langsmith.run_trees import RunTree  # noqa: PLC0415

    start = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    prompt = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "2+2?"}]
    llm = RunTree(
        name="ChatOpenAI",
        run_type="llm",
        inputs={"messages": prompt},
        start_time=start,
        project_name="p",
    )
    tool = llm.create_child(name="add", run_type="tool", inputs={"a": 2, "b": 2})
    tool.start_time = start + timedelta(seconds=2)
    post = [llm._get_dicts_safe(), tool._get_dicts_safe()]
    completion = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-4o-mini",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "add", "arguments": '{"a": 2, "b": 2}'},
                        }
                    ],
                },
            }
        ],
        "usage_metadata": {"input_tokens": 30, "output_tokens": 12, "total_tokens": 42},
    }
    llm.end(outputs=completion, end_time=start + timedelta(seconds=1))
    tool.end(error="ZeroDivisionError: no", end_time=start + timedelta(seconds=3))
    keys = ("id", "name", "trace_id", "parent_run_id", "dotted_order", "end_time", "outputs")
    patch = [{k: r._get_dicts_safe().get(k) for k in (*keys, "error")} for r in (llm, tool)]
    patch[0]["outputs"] = completion
    patch[1]["error"] = "ZeroDivisionError: no"
    return json.loads(json.dumps({"post": post, "patch": patch}, default=_iso))


def _iso(value: Any) -> str:
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def test_langsmith_batch_payload_is_read_as_its_runs() -> None:
    (trace,) = to_canonical(_langsmith_batch(), "auto", "batch")
    assert trace["source"] == "langchain"
    steps = [
        (s["type"], s.get("tool_name"), s.get("status"), s.get("input_tokens"), s.get("latency_ms"))
        for s in trace["steps"]
    ]
    assert steps == [
        ("model_response", None, None, 30, 1000.0),
        ("tool_call", "add", "error", None, 1000.0),
    ]
    assert trace["inputs"] == [
        {"role": "system", "text": "Be brief."},
        {"role": "user", "text": "2+2?"},
    ]
    assert trace["metadata"]["adapter"]["notes"] == []


def _js_span(name: str, span_id: str, parent: str | None, attrs: dict[str, Any], t: int) -> Any:
    """A span as OpenTelemetry JS serialises a ReadableSpan (what Vercel AI SDK span dumps
    hold): `spanContext`, `parentSpanId`, HrTime `[seconds, nanoseconds]` times."""
    span: dict[str, Any] = {
        "name": name,
        "kind": 0,
        "spanContext": {"traceId": "5b8aa5a2d2c872e8321cf37308d69df2", "spanId": span_id},
        "attributes": {"ai.operationId": name, **attrs},
        "status": {"code": 0},
        "startTime": [1770000000 + t, 0],
        "endTime": [1770000000 + t, 500_000_000],
        "events": [],
    }
    if parent is not None:
        span["parentSpanId"] = parent
    return span


def _vercel_spans() -> list[Any]:
    model = {"gen_ai.system": "openai.chat", "gen_ai.request.model": "gpt-4o-mini"}
    prompt = [{"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]}]
    call = {"toolCallId": "call_1", "toolName": "weather", "input": {"city": "Paris"}}
    result = {"type": "tool-result", "toolCallId": "call_1", "toolName": "weather"}
    result["output"] = {"type": "error-text", "value": "service down"}
    history = [*prompt, {"role": "tool", "content": [result]}]
    tool = _js_span(
        "ai.toolCall",
        "c3",
        "a1",
        {
            "ai.toolCall.name": "weather",
            "ai.toolCall.id": "call_1",
            "ai.toolCall.args": '{"city": "Paris"}',
        },
        2,
    )
    tool["status"] = {"code": 2, "message": "service down"}
    return [
        _js_span("ai.generateText", "a1", None, {"ai.response.text": "Sorry."}, 0),
        _js_span(
            "ai.generateText.doGenerate",
            "b2",
            "a1",
            {
                **model,
                "ai.prompt.messages": json.dumps(prompt),
                "ai.response.toolCalls": json.dumps([call]),
                "gen_ai.usage.input_tokens": 40,
                "gen_ai.usage.output_tokens": 12,
            },
            1,
        ),
        tool,
        _js_span(
            "ai.generateText.doGenerate",
            "d4",
            "a1",
            {
                **model,
                "ai.prompt.messages": json.dumps(history),
                "ai.response.text": "Sorry.",
                "gen_ai.usage.input_tokens": 60,
                "gen_ai.usage.output_tokens": 3,
            },
            3,
        ),
    ]


def test_vercel_ai_sdk_readable_spans_are_read_as_otel_spans() -> None:
    (trace,) = to_canonical(_vercel_spans(), "auto", "spans")
    assert trace["source"] == "otel-genai"
    steps = [
        (s["type"], s.get("text"), s.get("tool_name"), s.get("status"), s.get("input_tokens"))
        for s in trace["steps"]
    ]
    assert steps == [
        ("model_response", None, None, None, 40),
        ("tool_call", None, "weather", "error", None),
        ("model_response", "Sorry.", None, None, 60),
    ]
    assert trace["steps"][1]["arguments"] == {"city": "Paris"}
    assert trace["steps"][1]["error"] == "service down"
    assert trace["steps"][0]["latency_ms"] == 500.0
    assert trace["inputs"] == [{"role": "user", "text": "Weather in Paris?"}]
    assert trace["metadata"]["adapter"]["notes"] == []


def test_a_document_of_inputs_only_is_refused_in_words_that_agree() -> None:
    """Refused before with "no step mapped; 2 of 2 items mapped", which reads as a
    contradiction: every item was mapped, none of them as a step."""
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
    with pytest.raises(AdapterError) as caught:
        to_canonical(messages, "openai-chat", "run")
    assert str(caught.value) == (
        "not an openai-chat transcript: no step mapped: the 2 items mapped are inputs or"
        " labels, no model turn or tool call"
    )


def test_folded_errors_are_the_same_on_every_executor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A trace between lines that fail alike does not break the fold, and the report is the
    same whatever the partials' bounds (one unit each, here) and the executor."""
    from agent_reliability_harness.pipeline import executors  # noqa: PLC0415

    trace = {
        "trace_id": "t",
        "agent_name": "a",
        "workflow": "w",
        "steps": [{"step_id": "s1", "type": "model_response", "text": "ok"}],
    }
    lines = [{"n": 1}, {"n": 2}, trace, {"n": 4}, "[oops", {"n": 6}]
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.jsonl").write_text(
        "".join((v if isinstance(v, str) else json.dumps(v)) + "\n" for v in lines)
    )
    (data / "b.jsonl").write_text(json.dumps({**trace, "trace_id": "u"}) + "\n")
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"policy_id": "p", "allow_unlisted_tools": True}))
    argv = ["validate", "--policy", str(policy), "--fail-under", "0", "--quiet", str(data)]
    one = arh(*argv, "--jobs", "1")
    monkeypatch.setattr(executors, "CHUNK_BYTES", 1)
    monkeypatch.setattr(executors, "CHUNK_UNITS", 1)
    assert arh(*argv, "--jobs", "2") == one
    code, _, err = one
    assert code == 1
    where = [line.split(": ")[1] for line in err.splitlines()]
    assert where == [f"{data}/a.jsonl:1", f"{data}/a.jsonl:5", f"{data}/a.jsonl:6"]
    assert err.splitlines()[0].endswith("(and 2 more lines of the file alike, the last at line 4)")
