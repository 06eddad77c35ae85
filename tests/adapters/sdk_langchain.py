"""Render scenarios as LangChain message lists (built with langchain-core's message classes,
serialised by `messages_to_dict`, `dumpd` and `model_dump`), and run them as a real LangGraph
agent (a fake chat model replaying the turns, ToolNode running the tools) whose state,
checkpoint and LangSmith run tree (collected by RunCollectorCallbackHandler) are dumped."""

# The SDKs are an optional test extra: import them only when a fixture is built.
# ruff: noqa: PLC0415
# No `from __future__ import annotations`: @tool reads the tools' annotations at run time,
# and InjectedToolCallId is imported inside the function that defines them.

import json
import re
from typing import Annotated, Any

from scenarios import PARALLEL, RETRY, Result, Scenario, Turn
from sdk_spans import _output

MODEL = "gpt-4.1-mini"
# Which serialiser writes each scenario's message list (all three are in use).
SERIALISER = {"clean": "messages_to_dict", "retry": "dumpd", "parallel": "model_dump"}


def _ai(turn: Turn, number: int) -> Any:
    from langchain_core.messages import AIMessage

    texts = list(turn.texts)
    content: Any = (
        [{"type": "text", "text": t} for t in texts] if len(texts) > 1 else "".join(texts)
    )
    good = [c for c in turn.calls if c.raw_args is None]
    bad = [c for c in turn.calls if c.raw_args is not None]
    return AIMessage(
        content=content,
        tool_calls=[{"name": c.name, "args": dict(c.args), "id": c.call_id} for c in good],
        invalid_tool_calls=[
            {"name": c.name, "args": c.raw_args, "id": c.call_id, "error": "invalid JSON"}
            for c in bad
        ],
        usage_metadata={
            "input_tokens": turn.usage[0],
            "output_tokens": turn.usage[1],
            "total_tokens": sum(turn.usage),
        },
        response_metadata={"model_name": MODEL, "finish_reason": "stop"},
        id=f"run-{number:04d}",
    )


def _tool(result: Result) -> Any:
    from langchain_core.messages import ToolMessage

    content: Any = (
        [{"type": "text", "text": p} for p in result.parts]
        if result.parts
        else result.error or _output(result.output)
    )
    return ToolMessage(
        content=content,
        tool_call_id=result.call_id,
        name=result.name,
        status="error" if result.error else "success",
    )


def messages(s: Scenario) -> list[Any]:
    from langchain_core.messages import HumanMessage, SystemMessage

    out: list[Any] = [SystemMessage("You are a refund assistant."), HumanMessage(s.user)]
    for number, event in enumerate(s.events, start=1):
        if isinstance(event, Turn):
            out.append(_ai(event, number))
        else:
            out += [_tool(r) for r in event]
    if s.orphan is not None:
        out.append(_tool(s.orphan))
    return out


def serialise(items: list[Any], how: str) -> Any:
    from langchain_core.load import dumpd
    from langchain_core.messages import messages_to_dict

    if how == "messages_to_dict":
        return messages_to_dict(items)
    if how == "dumpd":
        return [dumpd(m) for m in items]
    return [m.model_dump(mode="json") for m in items]


def langchain(s: Scenario) -> Any:
    return serialise(messages(s), SERIALISER.get(s.name, "messages_to_dict"))


# --- LangGraph and LangSmith -----------------------------------------------------------


def run_graph(s: Scenario) -> tuple[Any, Any, Any]:
    """Run the scenario as a LangGraph ReAct loop; returns (app, checkpointer, collector)."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import HumanMessage
    from langchain_core.tools import InjectedToolCallId, tool
    from langchain_core.tracers.run_collector import RunCollectorCallbackHandler
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition

    results = s.results
    replies = iter([_ai(t, n) for n, t in enumerate(s.turns, start=1)])
    llm = GenericFakeChatModel(messages=replies)

    def answer(call_id: str) -> Any:
        result = results[call_id]
        if result.error:
            raise TimeoutError(result.error)
        return _output(result.output)

    @tool
    def lookup_order(order_id: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Look up an order."""
        return answer(call_id)

    @tool
    def search_kb(query: str, call_id: Annotated[str, InjectedToolCallId], top_k: int = 3) -> str:
        """Search the knowledge base."""
        return answer(call_id)

    @tool
    def issue_refund(
        order_id: str, amount: float, currency: str, call_id: Annotated[str, InjectedToolCallId]
    ) -> str:
        """Refund an order."""
        return answer(call_id)

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [llm.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node(
        "tools", ToolNode([lookup_order, search_kb, issue_refund], handle_tool_errors=True)
    )
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    saver = InMemorySaver()
    app = graph.compile(checkpointer=saver, name="refund-agent")
    collector = RunCollectorCallbackHandler()
    config = {"configurable": {"thread_id": f"thread-{s.name}"}, "callbacks": [collector]}
    app.invoke({"messages": [HumanMessage(s.user)]}, config)
    return app, saver, collector


def _run(tree: Any) -> Any:
    """A collected RunTree as the LangSmith `Run` schema (what `client.list_runs` yields)."""
    from langsmith.schemas import Run

    fields = {
        k: getattr(tree, k) for k in Run.model_fields if k != "child_runs" and hasattr(tree, k)
    }
    return Run(**fields, child_runs=[_run(c) for c in tree.child_runs])


def provider_blocks() -> Any:
    """AI messages as provider integrations fill them: ChatAnthropic's content blocks
    (thinking, redacted thinking, text, a tool_use copy of each tool call) and a
    DeepSeek-style `reasoning_content` in additional_kwargs."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    call = {"name": "lookup_order", "args": {"order_id": "ORD-1042"}, "id": "toolu_01"}
    first = AIMessage(
        content=[
            {
                "type": "thinking",
                "thinking": "The user wants a refund status.",
                "signature": "c2ln",
            },
            {"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"},
            {"type": "text", "text": "Let me look that up."},
            {"type": "tool_use", "id": "toolu_01", "name": "lookup_order", "input": call["args"]},
        ],
        tool_calls=[call],
        usage_metadata={"input_tokens": 120, "output_tokens": 40, "total_tokens": 160},
        response_metadata={"model_name": "claude-sonnet-4-5", "stop_reason": "tool_use"},
        id="msg_01",
    )
    second = AIMessage(
        content="ORD-1042 was delivered.",
        additional_kwargs={"reasoning_content": "The order status is delivered."},
        usage_metadata={"input_tokens": 180, "output_tokens": 12, "total_tokens": 192},
        response_metadata={"model_name": "deepseek-reasoner"},
        id="msg_02",
    )
    tool = ToolMessage(content='{"status": "delivered"}', tool_call_id="toolu_01")
    return serialise([HumanMessage("Where is ORD-1042?"), first, tool, second], "messages_to_dict")


def graph_extras() -> list[tuple[str, Any]]:
    from langchain_core.load import dumpd

    out: list[tuple[str, Any]] = [("provider-blocks.json", provider_blocks())]
    app, saver, collector = run_graph(RETRY)
    config = {"configurable": {"thread_id": "thread-retry"}}
    out.append(("langgraph-state-retry.json", normalise(dumpd(app.get_state(config).values))))
    tree = _run(collector.traced_runs[0]).model_dump(mode="json")
    out.append(("langsmith-run-tree-retry.json", normalise(tree)))
    app, saver, collector = run_graph(PARALLEL)
    config = {"configurable": {"thread_id": "thread-parallel"}}
    checkpoint = saver.get_tuple(config)._asdict()
    checkpoint.pop("pending_writes", None)
    out.append(("langgraph-checkpoint-parallel.json", normalise(dumpd(checkpoint))))
    flat = []

    def walk(run: Any) -> None:
        flat.append(run.model_dump(mode="json", exclude={"child_runs"}))
        for child in run.child_runs or []:
            walk(child)

    walk(_run(collector.traced_runs[0]))
    flat.sort(key=lambda r: r["dotted_order"])
    out.append(("langsmith-runs-flat-parallel.json", normalise(flat)))
    return out


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?")
_DOTTED = re.compile(r"\d{8}T\d{6}\d+Z")
_VERSION = re.compile(r"\d{32}\.\d+\.\d+")


def normalise(value: Any) -> Any:
    """Stable ids, clocks and channel versions in place of random and wall-clock ones, and
    tracebacks without this machine's paths (orders kept)."""
    text = json.dumps(value)
    text = re.sub(r" object at 0x[0-9a-f]+>", " object at 0x0>", text)
    text = re.sub(r'File \\"[^"]*?\\", line \d+, in \w+', 'File \\"<tool>\\", line 1, in run', text)
    text = re.sub(r"(\\n)+( {2,}[^\\]*(\\n)+)+", r"\\n", text)
    for n, old in enumerate(dict.fromkeys(_UUID.findall(text)), start=1):
        text = text.replace(old, f"00000000-0000-4000-8000-{n:012d}")
    order = {old: n for n, old in enumerate(sorted(set(_STAMP.findall(text))))}
    text = _STAMP.sub(lambda m: f"2026-01-15T09:00:00.{order[m.group(0)]:06d}+00:00", text)
    dotted = {old: n for n, old in enumerate(sorted(set(_DOTTED.findall(text))))}
    text = _DOTTED.sub(lambda m: f"20260115T090000{dotted[m.group(0)]:06d}Z", text)
    versions = {v: n for n, v in enumerate(dict.fromkeys(_VERSION.findall(text)), start=1)}
    text = _VERSION.sub(lambda m: f"{versions[m.group(0)]:032d}.0.5", text)
    return json.loads(text)
