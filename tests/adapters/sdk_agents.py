"""Multi-agent runs (trace v1.2 `agent` / `parent_step_id`), built with the vendors' SDKs.

openai-agents: a real Runner loop (scripted models, real tools, real tracing): a triage
agent hands off to a billing agent, which calls a research agent as a tool.
"""

# The SDKs are an optional test extra: import them only when a fixture is built.
# ruff: noqa: PLC0415

from __future__ import annotations

import json
from typing import Any

from scenarios import ORDER


def _function_call(call_id: str, name: str, args: dict[str, Any]) -> Any:
    from openai.types.responses import ResponseFunctionToolCall

    return ResponseFunctionToolCall(
        type="function_call",
        call_id=call_id,
        name=name,
        arguments=json.dumps(args),
        id=f"fc_{call_id}",
        status="completed",
    )


def _message(text: str) -> Any:
    from openai.types.responses import ResponseOutputMessage, ResponseOutputText

    part = ResponseOutputText(type="output_text", text=text, annotations=[])
    return ResponseOutputMessage(
        id=f"msg_{len(text)}", type="message", role="assistant", status="completed", content=[part]
    )


def openai_agents() -> list[tuple[str, Any]]:
    from agents import Agent, Model, ModelResponse, RunConfig, Runner, Usage, function_tool
    from agents.tracing import generation_span, set_trace_processors
    from agents.tracing.processor_interface import TracingProcessor
    from sdk_extras import _normalise

    exported: list[Any] = []

    class Keep(TracingProcessor):
        def on_trace_start(self, trace: Any) -> None: ...
        def on_trace_end(self, trace: Any) -> None:
            exported.insert(0, trace.export())

        def on_span_start(self, span: Any) -> None: ...
        def on_span_end(self, span: Any) -> None:
            exported.append(span.export())

        def shutdown(self) -> None: ...
        def force_flush(self) -> None: ...

    class Scripted(Model):
        def __init__(self, name: str, outputs: list[Any]) -> None:
            self.name, self.outputs, self.turn = name, outputs, 0

        async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
            out = [self.outputs[self.turn]]
            self.turn += 1
            tokens = {"input_tokens": 100 * self.turn, "output_tokens": 10 + self.turn}
            with generation_span(model=f"{self.name}-model", usage=dict(tokens)) as span:
                span.span_data.output = [o.model_dump() for o in out]
            total = tokens["input_tokens"] + tokens["output_tokens"]
            usage = Usage(requests=1, total_tokens=total, **tokens)
            return ModelResponse(output=out, usage=usage, response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    @function_tool
    def search_kb(query: str) -> str:
        """Search the knowledge base."""
        return "Refunds within 30 days of delivery."

    @function_tool
    def lookup_order(order_id: str) -> str:
        """Look up an order by id."""
        return json.dumps({**ORDER, "order_id": order_id})

    researcher = Agent(
        name="research",
        instructions="Research.",
        tools=[search_kb],
        model=Scripted(
            "research",
            [
                _function_call("call_kb", "search_kb", {"query": "refund window"}),
                _message("Refunds are allowed within 30 days."),
            ],
        ),
    )
    billing = Agent(
        name="billing",
        instructions="Handle billing.",
        tools=[
            lookup_order,
            researcher.as_tool(tool_name="research", tool_description="Ask the researcher."),
        ],
        model=Scripted(
            "billing",
            [
                _function_call("call_lookup", "lookup_order", {"order_id": "ORD-1042"}),
                _function_call("call_research", "research", {"input": "refund window?"}),
                _message("ORD-1042 can be refunded."),
            ],
        ),
    )
    triage = Agent(
        name="triage",
        instructions="Route.",
        handoffs=[billing],
        model=Scripted("triage", [_function_call("call_handoff", "transfer_to_billing", {})]),
    )
    set_trace_processors([Keep()])
    try:
        Runner.run_sync(
            triage, "Can I refund ORD-1042?", run_config=RunConfig(workflow_name="support")
        )
    finally:
        set_trace_processors([])
    return [("multi-agent-handoff-as-tool", {"data": _normalise(exported)})]


# --- OpenTelemetry GenAI -------------------------------------------------------------

# (span number, parent number, operation, agent, payload) of an orchestrator that asks a
# research agent, run as a tool, then answers; the research agent searches once.
_OTEL_RUN: list[tuple[int, int | None, str, str, dict[str, Any]]] = [
    (1, None, "invoke_agent", "orchestrator", {}),
    (2, 1, "chat", "orchestrator", {"call": ("call_r", "research", {"question": "window?"})}),
    (3, 1, "execute_tool", "orchestrator", {"id": "call_r", "name": "research"}),
    (4, 3, "invoke_agent", "researcher", {}),
    (5, 4, "chat", "researcher", {"call": ("call_s", "search_kb", {"query": "refund"})}),
    (6, 4, "execute_tool", "researcher", {"id": "call_s", "name": "search_kb"}),
    (7, 4, "chat", "researcher", {"text": "Refunds within 30 days."}),
    (8, 1, "chat", "orchestrator", {"text": "You can get a refund within 30 days."}),
]


def _otel_attributes(op: str, agent: str, payload: dict[str, Any]) -> dict[str, Any]:
    if op == "invoke_agent":
        return {"gen_ai.operation.name": op, "gen_ai.agent.name": agent}
    if op == "execute_tool":
        return {
            "gen_ai.operation.name": op,
            "gen_ai.tool.name": payload["name"],
            "gen_ai.tool.call.id": payload["id"],
            "gen_ai.tool.call.arguments": "{}",
            "gen_ai.tool.call.result": "done",
        }
    if "call" in payload:
        call_id, name, args = payload["call"]
        parts = [{"type": "tool_call", "id": call_id, "name": name, "arguments": args}]
    else:
        parts = [{"type": "text", "content": payload["text"]}]
    attrs = {
        "gen_ai.operation.name": op,
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4.1-mini",
        "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}]),
    }
    if agent == "researcher":  # some instrumentations name the agent on its chat spans
        attrs["gen_ai.agent.name"] = agent
    return attrs


def otel_genai() -> list[tuple[str, Any]]:
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope
    from opentelemetry.trace import SpanContext, SpanKind, TraceFlags
    from sdk_spans import BASE, hex_ids

    trace_id = int.from_bytes(b"multi-agent".ljust(16, b"\0"), "big")
    base_ns = int(BASE.timestamp()) * 1_000_000_000

    def context(number: int) -> SpanContext:
        return SpanContext(trace_id, number, is_remote=False, trace_flags=TraceFlags(1))

    spans = [
        ReadableSpan(
            f"{op} {agent if op == 'invoke_agent' else payload.get('name', 'gpt-4.1-mini')}",
            context(number),
            None if parent is None else context(parent),
            Resource({"service.name": "support-service"}),
            _otel_attributes(op, agent, payload),
            kind=SpanKind.CLIENT if op == "chat" else SpanKind.INTERNAL,
            instrumentation_scope=InstrumentationScope("arh.fixtures", "1.0"),
            start_time=base_ns + number * 1_000_000,
            end_time=base_ns + (number + 10 if op != "chat" else number + 1) * 1_000_000,
        )
        for number, parent, op, agent, payload in _OTEL_RUN
    ]
    request = MessageToDict(encode_spans(spans), use_integers_for_enums=True)
    return [("multi-agent-tool", hex_ids(request))]


# --- OpenInference -------------------------------------------------------------------


def openinference() -> list[tuple[str, Any]]:
    """A supervisor AGENT span that calls a researcher agent as a TOOL; the researcher's
    AGENT span names its agent only by its span name."""
    from openinference.semconv.trace import SpanAttributes as A
    from scenarios import Call
    from sdk_openinference import _Builder, _message, to_json

    b = _Builder("multi-agent")
    ask = Call("call_ask", "ask_researcher", {"question": "refund window?"})

    def llm(content: str | None, calls: tuple[Call, ...] = ()) -> dict[str, Any]:
        return {
            A.OPENINFERENCE_SPAN_KIND: "LLM",
            A.LLM_MODEL_NAME: "gpt-4.1-mini",
            **_message(f"{A.LLM_OUTPUT_MESSAGES}.0", "assistant", content, calls),
        }

    supervisor = {A.OPENINFERENCE_SPAN_KIND: "AGENT", A.AGENT_NAME: "supervisor"}
    b.span("supervisor", 1, None, supervisor, 0, 100)
    b.span("ChatOpenAI", 2, 1, llm(None, (ask,)), 1, 10)
    tool = {
        A.OPENINFERENCE_SPAN_KIND: "TOOL",
        A.TOOL_NAME: "ask_researcher",
        "tool_call.id": "call_ask",
        A.INPUT_VALUE: json.dumps(ask.args),
        A.INPUT_MIME_TYPE: "application/json",
        A.OUTPUT_VALUE: "30 days.",
    }
    b.span("ask_researcher", 3, 1, tool, 11, 50)
    b.span("researcher", 4, 3, {A.OPENINFERENCE_SPAN_KIND: "AGENT"}, 12, 49)
    b.span("ChatOpenAI", 5, 4, llm("Refunds within 30 days."), 13, 20)
    b.span("ChatOpenAI", 6, 1, llm("You have 30 days."), 51, 60)
    return [("multi-agent-tool.json", to_json(b.request()))]


# --- Langfuse ------------------------------------------------------------------------


def langfuse() -> list[tuple[str, Any]]:
    """Observations (the SDK's ObservationV2): a planner AGENT whose TOOL observation runs a
    writer AGENT; the writer's generation sits in a SPAN (no step) below its agent."""
    from sdk_langfuse import _observation

    trace_id = "trace-multi-agent"

    def obs(number: int, kind: str, parent: int | None, **fields: Any) -> Any:
        up = None if parent is None else f"obs-{trace_id}-{parent:02d}"
        return _observation(
            trace_id, number, kind, number * 10, number * 10 + 5, parent_observation_id=up, **fields
        )

    call = {"id": "call_w", "type": "function", "function": {"name": "write", "arguments": "{}"}}
    found = [
        obs(1, "AGENT", None, name="planner", input="Draft a refund note."),
        obs(2, "GENERATION", 1, name="plan", output={"role": "assistant", "tool_calls": [call]}),
        obs(3, "TOOL", 1, name="write", input={}, output="Dear customer, ...", metadata=None),
        obs(4, "AGENT", 3, name="writer"),
        obs(5, "SPAN", 4, name="draft-step"),
        obs(6, "GENERATION", 5, name="draft", output={"role": "assistant", "content": "Dear"}),
        obs(7, "GENERATION", 1, name="answer", output={"role": "assistant", "content": "Sent."}),
    ]
    return [("multi-agent-tool.json", found)]


# --- LangGraph ------------------------------------------------------------------------


def _react(name: str, replies: list[Any], tools: list[Any]) -> Any:
    """LangGraph's prebuilt ReAct agent under the agent's name (it names its messages), on
    a scripted chat model."""
    import warnings

    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langgraph.prebuilt import create_react_agent

    class Scripted(GenericFakeChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    with warnings.catch_warnings():  # moved to langchain.agents in LangGraph 1.0
        warnings.simplefilter("ignore")
        return create_react_agent(Scripted(messages=iter(replies)), tools, name=name, version="v1")


def _calls(call_id: str, name: str, args: dict[str, Any]) -> Any:
    from langchain_core.messages import AIMessage

    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id}])


def langgraph() -> list[tuple[str, Any]]:
    """A supervisor agent hands off (transfer_to_researcher) to a researcher agent, whose
    ask_writer tool invokes a writer agent; supervisor and researcher are sub-graphs of
    one app. Written as the LangSmith run tree and as the final state's messages."""
    from langchain_core.load import dumpd
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.tools import tool
    from langchain_core.tracers.run_collector import RunCollectorCallbackHandler
    from langgraph.graph import END, START, MessagesState, StateGraph
    from sdk_langchain import _run, normalise

    writer = _react("writer", [AIMessage("Refunds: 30 days.")], [])

    @tool
    def transfer_to_researcher() -> str:
        """Hand the conversation to the researcher."""
        return "Transferred to researcher"

    @tool
    def ask_writer(topic: str) -> str:
        """Ask the writer agent for a short note."""
        state = writer.invoke({"messages": [HumanMessage(topic)]})
        return str(state["messages"][-1].content)

    supervisor = _react(
        "supervisor",
        [_calls("call_h", "transfer_to_researcher", {}), AIMessage("Over to research.")],
        [transfer_to_researcher],
    )
    researcher = _react(
        "researcher",
        [_calls("call_w", "ask_writer", {"topic": "refund window"}), AIMessage("30 days.")],
        [ask_writer],
    )
    app = StateGraph(MessagesState)
    app.add_node("supervisor", supervisor)
    app.add_node("researcher", researcher)
    app.add_edge(START, "supervisor")
    app.add_edge("supervisor", "researcher")
    app.add_edge("researcher", END)
    collector = RunCollectorCallbackHandler()
    state = app.compile(name="support").invoke(
        {"messages": [HumanMessage("How long do I have for a refund?")]},
        {"callbacks": [collector]},
    )
    tree = _run(collector.traced_runs[0]).model_dump(mode="json")
    return [
        ("langgraph-multi-agent.json", normalise(tree)),
        ("langgraph-multi-agent-state.json", normalise(dumpd(state))),
    ]
