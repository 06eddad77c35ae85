"""The "mlflow" format: a trace made and serialised by MLflow itself (sdk_mlflow.py; skipped
without the mlflow-skinny test extra), and one written to MLflow's documented
`Trace.to_dict()` schema, read by auto-detection and by `--format mlflow`."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness.adapters import to_canonical
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams


def arh(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def _span(n: int, name: str, kind: str, parent: int | None, **io_: Any) -> dict[str, Any]:
    attributes = {"mlflow.spanType": json.dumps(kind)}
    for key, value in io_.items():
        attributes[f"mlflow.span{key}"] = json.dumps(value)
    return {
        "trace_id": "AAAAAAAAAAAAAAAAAAAAAQ==",
        "span_id": f"span-{n}",
        "parent_span_id": f"span-{parent}" if parent is not None else None,
        "name": name,
        "start_time_unix_nano": 1_700_000_000_000_000_000 + n * 1_000_000,
        "end_time_unix_nano": 1_700_000_000_000_000_000 + n * 1_000_000 + 500_000,
        "status": {"code": "STATUS_CODE_OK", "message": ""},
        "events": [],
        "attributes": attributes,
    }


DOCUMENTED: dict[str, Any] = {
    "info": {
        "trace_id": "tr-1",
        "state": "OK",
        "tags": {"mlflow.traceName": "qa"},
        "trace_metadata": {"mlflow.traceInputs": '{"q": "2+2?"}'},
    },
    "data": {
        "spans": [
            _span(1, "qa", "CHAIN", None, Inputs={"q": "2+2?"}, Outputs="4"),
            _span(
                2,
                "llm",
                "LLM",
                1,
                Inputs={"messages": [{"role": "user", "content": "2+2?"}]},
                Outputs={
                    "choices": [{"message": {"role": "assistant", "content": "4"}}],
                    "usage": {"prompt_tokens": 5, "completion_tokens": 1},
                },
            ),
        ]
    },
}


def test_a_documented_trace_is_detected_and_read(tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(DOCUMENTED), "utf-8")
    for argv in (["convert", str(path)], ["convert", "--format", "mlflow", str(path)]):
        code, out, err = arh(*argv)
        assert (code, err) == (0, "")
        trace = json.loads(out)
        assert (trace["source"], trace["trace_id"], trace["workflow"]) == ("mlflow", "tr-1", "qa")
        (step,) = trace["steps"]
        assert (step["text"], step["input_tokens"], step["output_tokens"]) == ("4", 5, 1)
        assert trace["inputs"] == [{"role": "user", "text": "2+2?"}]
        assert trace["metadata"]["adapter"]["notes"] == []


def test_a_leaf_span_of_another_type_is_noted() -> None:
    value = json.loads(json.dumps(DOCUMENTED))
    value["data"]["spans"].append(_span(3, "rerank", "RERANKER", 1, Inputs={}, Outputs=[]))
    (trace,) = to_canonical(value)
    assert isinstance(trace, dict)
    assert [n["issue"] for n in trace["metadata"]["adapter"]["notes"]] == [
        "span that is not a model or tool span"
    ]


def test_a_trace_made_by_mlflow_itself(tmp_path: Path) -> None:
    pytest.importorskip("mlflow")
    import sdk_mlflow  # noqa: PLC0415 (needs the mlflow extra)

    (trace,) = to_canonical(sdk_mlflow.trace(tmp_path))
    assert isinstance(trace, dict) and trace["source"] == "mlflow"
    rows = [
        (s["type"], s.get("tool_name"), s.get("agent"), s.get("parent_step_id"), s.get("status"))
        for s in trace["steps"]
    ]
    assert rows == [
        ("model_response", None, "refund_agent", None, None),
        ("tool_call", "lookup_order", "refund_agent", None, "ok"),
        ("tool_call", "refund", "refund_agent", None, "error"),
        ("model_response", None, "policy_checker", "call_2", None),
        ("model_response", None, "refund_agent", None, None),
    ]
    steps = {s["step_id"]: s for s in trace["steps"]}
    assert steps["call_1"]["output"] == {"order_id": "ORD-1", "status": "delivered"}
    assert steps["call_2"]["error"] == "RuntimeError: refund window closed"
    assert trace["steps"][-1]["text"] == "ORD-1 cannot be refunded."
    assert sum(s.get("input_tokens") or 0 for s in trace["steps"]) == 160
    assert [i["role"] for i in trace["inputs"]] == ["system", "user", "user"]
    assert trace["metadata"]["adapter"]["notes"] == []
