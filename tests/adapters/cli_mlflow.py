"""An MLflow trace to the documented `Trace.to_dict()` schema (MLflow 3: `info` with
`trace_id`, `state`, `tags`, `trace_metadata`; `data.spans` as MLflow serialises
OpenTelemetry spans, every attribute value JSON text). test_mlflow.py also reads one made
by MLflow itself."""

from __future__ import annotations

import json
from typing import Any

BASE = 1_768_467_600_000_000_000


def _span(n: int, name: str, kind: str, parent: int | None, **fields: Any) -> dict[str, Any]:
    attributes = {
        "mlflow.traceRequestId": json.dumps("tr-7f3a"),
        "mlflow.spanType": json.dumps(kind),
    }
    for key, value in fields.pop("io", {}).items():
        attributes[key] = json.dumps(value)
    return {
        "trace_id": "f3oAAAAAAAAAAAAAAAAAAQ==",
        "span_id": f"AAAAAAAAAA{n}=",
        "parent_span_id": f"AAAAAAAAAA{parent}=" if parent is not None else None,
        "name": name,
        "kind": "SPAN_KIND_INTERNAL",
        "start_time_unix_nano": BASE + n * 10_000_000,
        "end_time_unix_nano": BASE + n * 10_000_000 + 5_000_000,
        "events": fields.pop("events", []),
        "status": fields.pop("status", {"code": "STATUS_CODE_OK", "message": ""}),
        "attributes": attributes,
        "links": [],
    }


ASKED = [{"role": "user", "content": "Refund order ORD-1."}]
CALL = {"id": "call_1", "type": "function"}
CALL["function"] = {"name": "refund", "arguments": '{"order_id": "ORD-1"}'}


def _chat(message: dict[str, Any], tokens: tuple[int, int]) -> dict[str, Any]:
    usage = {"prompt_tokens": tokens[0], "completion_tokens": tokens[1]}
    return {"model": "gpt-4o-mini", "choices": [{"index": 0, "message": message}], "usage": usage}


FAILED = {"code": "STATUS_CODE_ERROR", "message": "RuntimeError: refund window closed"}
EXCEPTION = {
    "name": "exception",
    "timestamp": BASE,
    "attributes": {"exception.type": "RuntimeError", "exception.message": "refund window closed"},
}

TRACE: dict[str, Any] = {
    "info": {
        "trace_id": "tr-7f3a",
        "trace_location": {
            "type": "MLFLOW_EXPERIMENT",
            "mlflow_experiment": {"experiment_id": "0"},
        },
        "request_time": "2026-01-15T09:00:00.000Z",
        "state": "OK",
        "trace_metadata": {"mlflow.traceInputs": '{"q": "Refund order ORD-1."}'},
        "tags": {"mlflow.traceName": "refund_agent"},
        "execution_duration_ms": 60,
    },
    "data": {
        "spans": [
            _span(1, "refund_agent", "AGENT", None),
            _span(
                2,
                "ChatOpenAI",
                "CHAT_MODEL",
                1,
                io={
                    "mlflow.spanInputs": {"messages": ASKED},
                    "mlflow.spanOutputs": _chat(
                        {"role": "assistant", "content": None, "tool_calls": [CALL]}, (40, 12)
                    ),
                },
            ),
            _span(
                3,
                "refund",
                "TOOL",
                1,
                io={"mlflow.spanInputs": {"order_id": "ORD-1"}},
                status=FAILED,
                events=[EXCEPTION],
            ),
            _span(
                4,
                "ChatOpenAI",
                "CHAT_MODEL",
                1,
                io={
                    "mlflow.spanInputs": {"messages": ASKED},
                    "mlflow.spanOutputs": _chat(
                        {"role": "assistant", "content": "ORD-1 cannot be refunded."}, (70, 8)
                    ),
                },
            ),
        ]
    },
}

FIXTURES: dict[str, Any] = {"mlflow/trace-agent-tools.json": TRACE}
