"""An MLflow trace made with MLflow's own tracing API and serialised by its own
`Trace.to_dict()` (mlflow-skinny, a test extra): an agent whose model asks for two tools
(one fails), a sub-agent run inside a tool, and a final answer."""

# The SDK is an optional test extra: import it only when a trace is built.
# ruff: noqa: PLC0415

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any


def _chat(calls: list[dict[str, Any]], text: str | None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": "chatcmpl-1",
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "message": message}],
    }


def _call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def trace(folder: Path) -> dict[str, Any]:
    os.environ["MLFLOW_TRACKING_URI"] = (folder / "mlruns").as_uri()
    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"
    os.environ["MLFLOW_ENABLE_ASYNC_TRACE_LOGGING"] = "false"
    import mlflow
    from mlflow.entities import SpanType

    asked = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Refund ORD-1?"},
    ]

    def model(
        history: list[dict[str, Any]], output: dict[str, Any], tokens: tuple[int, int]
    ) -> None:
        with mlflow.start_span(name="ChatOpenAI", span_type=SpanType.CHAT_MODEL) as span:
            span.set_inputs({"messages": history})
            span.set_outputs(output)
            usage = {
                "input_tokens": tokens[0],
                "output_tokens": tokens[1],
                "total_tokens": sum(tokens),
            }
            span.set_attribute("mlflow.chat.tokenUsage", usage)

    @mlflow.trace(span_type=SpanType.TOOL)
    def lookup_order(order_id: str) -> dict[str, Any]:
        return {"order_id": order_id, "status": "delivered"}

    @mlflow.trace(span_type=SpanType.TOOL)
    def refund(order_id: str) -> str:
        with mlflow.start_span(name="policy_checker", span_type=SpanType.AGENT):
            model(
                [{"role": "user", "content": f"May {order_id} be refunded?"}],
                _chat([], "No: past the window."),
                (20, 6),
            )
        raise RuntimeError("refund window closed")

    @mlflow.trace(span_type=SpanType.AGENT, name="refund_agent")
    def agent() -> str:
        calls = [_call("call_1", "lookup_order", '{"order_id": "ORD-1"}')]
        calls.append(_call("call_2", "refund", '{"order_id": "ORD-1"}'))
        model(asked, _chat(calls, None), (50, 20))
        lookup_order("ORD-1")
        with contextlib.suppress(RuntimeError):  # the agent goes on after a failed call
            refund("ORD-1")
        model(asked, _chat([], "ORD-1 cannot be refunded."), (90, 8))
        return "ORD-1 cannot be refunded."

    agent()
    found = mlflow.get_trace(mlflow.get_last_active_trace_id())
    assert found is not None
    value: dict[str, Any] = found.to_dict()
    return value
