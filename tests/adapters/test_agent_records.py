"""What the agent run record formats (openhands, smolagents, browser-use, letta) make of
their fixtures: calls paired with their results, failures, tokens counted once, labels,
delegation (trace v1.2 `agent` / `parent_step_id`). Goldens, detection and refusal of
these fixtures are checked with every other format's (test_cli_adapters.py,
test_sdk_formats.py, test_refusal_matrix.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness.adapters import to_canonical
from agent_reliability_harness.adapters.frameworks import _smolagents_text
from agent_reliability_harness.errors import AdapterError

HERE = Path(__file__).resolve().parent


def convert(relative: str, fmt: str = "auto") -> list[dict[str, Any]]:
    value = json.loads((HERE / "fixtures" / relative).read_text(encoding="utf-8"))
    return to_canonical(value, fmt, Path(relative).stem)


def calls(trace: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in trace["steps"] if s["type"] == "tool_call"]


def tokens(trace: dict[str, Any]) -> tuple[int, int]:
    steps = trace["steps"]
    return (
        sum(s.get("input_tokens") or 0 for s in steps),
        sum(s.get("output_tokens") or 0 for s in steps),
    )


def test_openhands_trajectory() -> None:
    (trace,) = convert("openhands/trajectory.json")
    assert trace["source"] == "openhands"
    # four completions, each counted once although several events carry each of them
    assert tokens(trace) == (3400 + 3600 + 3700 + 3900, 120 + 40 + 50 + 30)
    by_id = {s["step_id"]: s for s in trace["steps"]}
    assert by_id["toolu_01"]["output"] == "app.py  Makefile"
    assert by_id["toolu_03"]["status"] == "error"
    assert by_id["toolu_03"]["error"] == "exit code 2"
    rejected = [s for s in trace["steps"] if s["type"] == "model_response" and "status" in s]
    assert [s["error"] for s in rejected] == [
        "Parameter 'command' is expected to be one of ['view', 'create']."
    ]
    delegated = [s for s in trace["steps"] if "agent" in s]
    assert {s["agent"] for s in delegated} == {"BrowsingAgent"}
    assert {s["parent_step_id"] for s in delegated} == {"toolu_04"}
    assert [s.get("tool_name") for s in delegated] == [None, "browse_interactive", "finish"]
    assert by_id["toolu_04"]["output"].startswith("BrowsingAgent finishes task")
    # the steps after the delegation are the main agent's again
    assert "agent" not in trace["steps"][-1]


def test_openhands_evaluation_records() -> None:
    (graded,) = convert("openhands/eval-output.json")
    assert graded["task_id"] == "django__django-11099"
    assert graded["outcome"] == {"success": True}
    assert graded["agent_name"] == "CodeActAgent"
    assert tokens(graded) == (10200, 110)
    (stopped,) = convert("openhands/eval-unmetered.json")
    assert "maximum iteration" in stopped["metadata"]["openhands"]["error"]
    assert "outcome" not in stopped
    # no completion on any action: the record's accumulated usage, once, on the first step
    assert tokens(stopped) == (10200, 110)
    assert stopped["steps"][0]["metadata"]["usage"].startswith("run total")


@pytest.mark.parametrize("name", ["messages", "memory-steps", "benchmark-record"])
def test_smolagents_run(name: str) -> None:
    (trace,) = convert(f"smolagents/{name}.json")
    assert trace["source"] == "smolagents"
    assert trace["metadata"]["adapter"]["notes"] == []
    named = [(s["tool_name"], s.get("status")) for s in calls(trace)]
    assert named == [
        ("web_search", "ok"),
        ("python_interpreter", "error"),  # written only as "Error executing tool ..."
        ("python_interpreter", "ok"),
        ("web_search", None),  # a parallel call: the joined observation went to the first
        ("final_answer", "ok"),
    ]
    assert calls(trace)[1]["arguments"] == {"code": "2102650 *"}
    failed_turns = [s for s in trace["steps"] if s["type"] == "model_response" and "status" in s]
    assert [s["error"] for s in failed_turns] == [
        "Error while parsing tool call from model output: no tool call found"
        + ("" if name == "memory-steps" else _RETRY)
    ]
    expected = {"messages": (0, 0), "memory-steps": (910, 105), "benchmark-record": (910, 105)}
    assert tokens(trace) == expected[name]


_RETRY = (
    "\nNow let's retry: take care not to repeat previous errors! If you have retried"
    " several times, try a completely different approach.\n"
)


def test_smolagents_failed_call_arguments_are_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The arguments of "Error executing tool" are the dict up to its closing brace, read
    once: "}: " inside its strings never makes each prefix a literal to try (a code
    argument full of them took tens of seconds)."""
    read: list[str] = []
    literal = _smolagents_text.literal
    monkeypatch.setattr(
        _smolagents_text, "literal", lambda text: read.append(text) or literal(text)
    )
    code = "".join(f"print(f'{{k{n}}}: {{v}}')\n" for n in range(500))
    error = f"Error executing tool 'python_interpreter' with arguments {{'code': {code!r}}}: "
    found = _smolagents_text.failed_call(error + "SyntaxError: can't parse it")
    assert found == ("python_interpreter", {"code": code})
    assert len(read) == 1


def test_browser_use_history() -> None:
    (trace,) = convert("browser-use/agent-history.json")
    named = [(s["tool_name"], s.get("status"), s.get("output")) for s in calls(trace)]
    assert named[:3] == [
        ("go_to_url", "ok", "Navigated to https://shop.example.com/"),
        ("click_element_by_index", "error", None),
        ("input_text", None, None),  # not run: the click before it failed
    ]
    assert named[-1] == ("done", "ok", "The red mug costs 12 EUR.")
    assert trace["outcome"] == {"success": True}  # the judge's verdict
    failed = [s for s in trace["steps"] if s["type"] == "model_response" and "status" in s]
    assert [s["error"] for s in failed] == ["RateLimitError: 429 Too Many Requests"]
    assert trace["steps"][0]["metadata"]["reasoning"] == [
        "The user wants the price of the red mug."
    ]
    (legacy,) = convert("browser-use/agent-history-legacy.json")
    assert [s["tool_name"] for s in calls(legacy)] == ["search_google", "done"]


def test_letta_agent_files() -> None:
    (trace,) = convert("letta/agent-file.json")
    assert trace["agent_name"] == "launch-helper"
    named = [(s["tool_name"], s.get("status")) for s in calls(trace)]
    assert named == [("conversation_search", "ok"), ("memory_replace", "error")]
    assert calls(trace)[1]["error"] == "PermissionError: read-only"
    assert calls(trace)[1]["metadata"]["reasoning_redacted"] == 1
    assert trace["metadata"]["adapter"]["skipped"]["agent without messages"] == 1
    (legacy,) = convert("letta/memgpt-2025-03.json")
    assert [(s["tool_name"], s.get("status")) for s in calls(legacy)] == [
        ("core_memory_replace", "error"),  # its JSON reply says "status": "Failed"
        ("send_message", "ok"),
    ]


@pytest.mark.parametrize(
    ("relative", "fmt"),
    [
        ("openhands/trajectory.json", "browser-use"),
        ("smolagents/messages.json", "openai-chat"),
        ("browser-use/agent-history.json", "letta"),
        ("letta/agent-file.json", "openhands"),
        ("letta/memgpt-2025-03.json", "openai-chat"),
    ],
)
def test_an_ill_fitting_format_is_refused(relative: str, fmt: str) -> None:
    with pytest.raises(AdapterError) as caught:
        convert(relative, fmt)
    own = relative.split("/", 1)[0]
    assert f" {own} document; pass --format {own}" in str(caught.value)
