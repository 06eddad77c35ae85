"""Multi-agent runs (trace v1.2): adapters fill `agent` and `parent_step_id` from what the
source records, on fixtures built with the vendors' SDKs (sdk_agents.py); a source without
agents gains neither field."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness.adapters import to_canonical
from agent_reliability_harness.adapters.core.agents import SpanTree, owned
from agent_reliability_harness.models.trace import parse_trace

HERE = Path(__file__).resolve().parent
# ../shared/real-runs of the repo; ARH_REAL_RUNS names it for a checkout that is not
# beside shared/ (a worktree), as the other real-run tests read it.
REAL_RUNS = Path(os.environ.get("ARH_REAL_RUNS") or HERE.parents[2] / "shared" / "real-runs")


def steps_of(relative: str, fmt: str) -> list[tuple[Any, ...]]:
    """(step id, tool name or text, agent, parent step id) of the fixture's steps, after
    checking that the trace parses and every parent names a step of the trace."""
    path = HERE / "fixtures" / relative
    if path.suffix == ".jsonl":
        lines = path.read_text(encoding="utf-8").splitlines()
        value: Any = [json.loads(line) for line in lines if line.strip()]
    else:
        value = json.loads(path.read_text(encoding="utf-8"))
    [trace] = to_canonical(value, fmt, path.stem)
    parse_trace(trace)
    ids = {s["step_id"] for s in trace["steps"]}
    assert all(s.get("parent_step_id", s["step_id"]) in ids for s in trace["steps"])
    return [
        (s["step_id"], s.get("tool_name") or s.get("text"), s.get("agent"), s.get("parent_step_id"))
        for s in trace["steps"]
    ]


def test_openai_agents_handoff_and_agent_as_tool() -> None:
    steps = steps_of("openai-agents/multi-agent-handoff-as-tool.json", "openai-agents")
    handoff = steps[0][0]  # triage's model turn that chose the hand-off
    research = next(s[0] for s in steps if s[1] == "research")
    assert [(s[2], s[3]) for s in steps] == [
        ("triage", None),
        ("billing", handoff),
        ("billing", handoff),  # lookup_order
        ("billing", handoff),
        ("billing", handoff),  # research: the research agent run as a tool
        ("research", research),
        ("research", research),  # search_kb
        ("research", research),
        ("billing", handoff),
    ]


def test_otel_genai_agent_spans_and_tool_parent() -> None:
    steps = steps_of("otel-genai/multi-agent-tool.json", "otel-genai")
    assert [s[1:] for s in steps] == [
        (None, "orchestrator", None),
        ("research", "orchestrator", None),
        (None, "researcher", "call_r"),
        ("search_kb", "researcher", "call_r"),
        ("Refunds within 30 days.", "researcher", "call_r"),
        ("You can get a refund within 30 days.", "orchestrator", None),
    ]


def test_openinference_agent_spans_and_tool_parent() -> None:
    steps = steps_of("openinference/multi-agent-tool.json", "openinference")
    assert [s[1:] for s in steps] == [
        (None, "supervisor", None),
        ("ask_researcher", "supervisor", None),
        ("Refunds within 30 days.", "researcher", "call_ask"),  # AGENT span named by its name
        ("You have 30 days.", "supervisor", None),
    ]


def test_langfuse_agent_observations_and_tool_parent() -> None:
    steps = steps_of("langfuse/multi-agent-tool.json", "langfuse")
    assert [s[1:] for s in steps] == [
        (None, "planner", None),
        ("write", "planner", None),
        ("Dear", "writer", "call_w"),  # below a SPAN of the writer: still the writer's
        ("Sent.", "planner", None),
    ]


def test_langgraph_run_tree_subgraphs_handoff_and_agent_in_a_tool() -> None:
    steps = steps_of("langchain/langgraph-multi-agent.json", "langchain")
    assert [s[1:] for s in steps] == [
        (None, "supervisor", None),
        ("transfer_to_researcher", "supervisor", None),
        ("Over to research.", "supervisor", None),
        (None, "researcher", "call_h"),  # the hand-off tool call
        ("ask_writer", "researcher", "call_h"),
        ("Refunds: 30 days.", "writer", "call_w"),  # a graph the tool invoked
        ("30 days.", "researcher", "call_h"),
    ]


def test_langgraph_state_messages_named_by_their_agents() -> None:
    steps = steps_of("langchain/langgraph-multi-agent-state.json", "langchain")
    assert [s[1:] for s in steps] == [
        ("transfer_to_researcher", "supervisor", None),
        ("Over to research.", "supervisor", None),
        ("ask_writer", "researcher", "call_h"),
        ("30 days.", "researcher", "call_h"),
    ]


def test_claude_code_inline_sidechains_run_under_their_task_call() -> None:
    steps = steps_of("claude-code/session-parallel-subagents.jsonl", "claude-code")
    assert [s[2:] for s in steps] == [
        ("claude-code", None),  # Task: Explore
        ("claude-code", None),  # Task: code-reviewer
        ("code-reviewer", "toolu_72"),  # its chain starts with its prompt
        ("code-reviewer", "toolu_72"),
        ("Explore", "toolu_71"),
        ("claude-code", None),
    ]


def test_claude_agent_sdk_parent_tool_use_id() -> None:
    steps = steps_of("claude-code/sdk-subagent-stream.jsonl", "claude-code")
    assert [s[2:] for s in steps] == [
        ("claude-code", None),
        ("Explore", "toolu_81"),
        ("Explore", "toolu_81"),
        ("claude-code", None),
    ]


def test_claude_code_subagent_file_has_no_parent_in_its_trace() -> None:
    """A sub-agent's own file holds no Task call: it is a trace of its own, unlabelled."""
    steps = steps_of("claude-code/agent-a1b2c3d.jsonl", "claude-code")
    assert all(s[2:] == (None, None) for s in steps)


@pytest.mark.skipif(not REAL_RUNS.is_dir(), reason="../shared/real-runs is absent")
@pytest.mark.parametrize("month", ["2026-11", "2026-12"])
def test_real_claude_code_sessions(month: str) -> None:
    """Real sessions call Task, their sub-agents' turns live in other files: no step is
    attributed to a sub-agent, and any parent names a Task call of the session."""
    for path in sorted((REAL_RUNS / month / "claude-code" / "raw").glob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        traces = to_canonical([json.loads(x) for x in lines if x.strip()], "claude-code", "r")
        for trace in traces:
            calls = {s["step_id"]: s.get("tool_name") for s in trace["steps"]}
            for step in trace["steps"]:
                parent = step.get("parent_step_id")
                assert parent is None or calls.get(parent) in ("Task", "Agent"), path.name


@pytest.mark.parametrize(
    ("relative", "fmt"),
    [
        ("openai-agents/handoff-guardrail-response.json", "openai-agents"),
        ("openai-chat/clean.json", "openai-chat"),
        ("claude-code/session-clean.jsonl", "claude-code"),
        ("langchain/langsmith-run-tree-retry.json", "langchain"),  # one graph: no sub-agents
        ("langchain/langgraph-state-retry.json", "langchain"),
    ],
)
def test_sources_without_agents_gain_no_fields(relative: str, fmt: str) -> None:
    assert all(s[2:] == (None, None) for s in steps_of(relative, fmt))


def test_span_tree_survives_cycles_and_missing_parents() -> None:
    tree = SpanTree.of(
        [("a", "b", "alpha"), ("b", "a", None), ("c", "gone", None), ("d", "a", None)]
    )
    assert tree.owner("d") == ("alpha", None)
    assert tree.owner("c") == (None, None)
    assert tree.owner("c", "named") == ("named", None)
    tree.steps["b"] = "step-1"  # a span above the agent span produced a step
    assert tree.owner("d") == ("alpha", "step-1")


def test_owned_drops_a_parent_that_names_no_step() -> None:
    steps = [{"step_id": "s1", "type": "model_response"}, {"step_id": "s2", "type": "tool_call"}]
    owners = {0: ("a", "s1"), 1: ("b", "elsewhere")}
    assert owned(steps, owners, "main") == [
        {"step_id": "s1", "type": "model_response", "agent": "a"},  # not its own parent
        {"step_id": "s2", "type": "tool_call", "agent": "b"},
    ]
    assert owned(steps, {}, "main") is steps
