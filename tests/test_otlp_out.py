"""`--otlp-out FILE` (policy v1.2 section 6): one gen_ai.evaluation.result event per trace
and per finding, carrying the source's trace id where the trace has one; validated against
the OTLP protobuf schema (opentelemetry-proto's ExportLogsServiceRequest, JSON mapping);
golden and the same on every executor."""

from __future__ import annotations

import base64
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness.cli import main, validate_cmd
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.models.common import Severity
from agent_reliability_harness.models.report import Finding, TraceReport
from agent_reliability_harness.pipeline import executors
from agent_reliability_harness.render.otlp import source_trace_id, trace_records

GOLDEN = Path(__file__).resolve().parent / "golden" / "otlp"
FIXTURES = "tests/adapters/fixtures"
INPUTS = [
    f"{FIXTURES}/otel-genai/bad-args.json",
    f"{FIXTURES}/openinference/bad-args.json",
    f"{FIXTURES}/langfuse/clean.json",
    f"{FIXTURES}/langchain/langsmith-runs-flat-parallel.json",
    "tests/data/samples/traces",
]

pytestmark = pytest.mark.usefixtures("at_repo_root")


def cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, None))
    return code, out.getvalue(), err.getvalue()


def parse_request(text: str) -> Any:
    """The request as protobuf: OTLP/JSON writes trace ids in hex (the OTLP spec), the
    generic protobuf JSON mapping reads bytes as base64, so they are converted first."""
    logs_service_pb2 = pytest.importorskip("opentelemetry.proto.collector.logs.v1.logs_service_pb2")
    from google.protobuf import json_format  # noqa: PLC0415

    data = json.loads(text)
    for resource in data["resourceLogs"]:
        for scope in resource["scopeLogs"]:
            for record in scope["logRecords"]:
                if "traceId" in record:
                    record["traceId"] = base64.b64encode(bytes.fromhex(record["traceId"])).decode()
    return json_format.Parse(json.dumps(data), logs_service_pb2.ExportLogsServiceRequest())


def _attributes(record: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in record.attributes:
        kind = item.value.WhichOneof("value")
        out[item.key] = getattr(item.value, kind)
    return out


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_events_are_golden_and_valid_otlp(
    jobs: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(validate_cmd, "__version__", "0.0.0-test")
    monkeypatch.setattr(executors, "CHUNK_UNITS", 2)
    target, report = tmp_path / "otlp.json", tmp_path / "report.json"
    cli(["validate", "--policy", "samples/policy.json", *INPUTS, "--quiet", "--jobs", jobs,
         "--otlp-out", str(target), "--json-out", str(report)])  # fmt: skip
    data = target.read_bytes()
    golden = GOLDEN / "mixed.json"
    if os.environ.get("ARH_UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_bytes(data)
    assert data == golden.read_bytes(), f"{golden} is stale (ARH_UPDATE_GOLDEN=1)"
    request = parse_request(target.read_text())
    [resource] = request.resource_logs
    records = list(resource.scope_logs[0].log_records)
    reports = json.loads(report.read_text())["reports"]
    assert len(records) == sum(1 + len(r["findings"]) for r in reports)
    at = 0
    for judged in reports:
        verdict = records[at]
        attributes = _attributes(verdict)
        assert verdict.event_name == "gen_ai.evaluation.result"
        assert attributes["gen_ai.evaluation.name"] == "arh"
        assert attributes["gen_ai.evaluation.score.value"] == judged["score"]
        assert attributes["gen_ai.evaluation.score.label"] == (
            "pass" if judged["passed"] else "fail"
        )
        assert attributes["arh.trace_id"] == judged["trace_id"]
        for finding, record in zip(judged["findings"], records[at + 1 :], strict=False):
            found = _attributes(record)
            assert found["gen_ai.evaluation.name"] == finding["rule_id"]
            assert found["gen_ai.evaluation.score.label"] == finding["severity"]
            assert record.trace_id == verdict.trace_id
        at += 1 + len(judged["findings"])
    ids = {_attributes(r)["arh.trace_id"]: r.trace_id.hex() for r in records}
    assert ids["6261642d617267730000000000000000"] == "6261642d617267730000000000000000"
    assert ids["00000000-0000-4000-8000-000000000001"] == "00000000000040008000000000000001"
    assert ids["trace-clean"] == "" and ids["refund-ok-0001"] == ""


def test_a_run_without_traces_writes_an_empty_request(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    target = tmp_path / "otlp.json"
    cli(["validate", "--policy", "samples/policy.json", str(empty), "--allow-empty", "--quiet",
         "--otlp-out", str(target)])  # fmt: skip
    request = parse_request(target.read_text())
    assert len(request.resource_logs[0].scope_logs[0].log_records) == 0


@pytest.mark.parametrize(
    ("source", "trace_id", "expected"),
    [
        ("otel-genai", "0AF7651916CD43DD8448EB211C80319C", "0af7651916cd43dd8448eb211c80319c"),
        ("langfuse", "0x0af7651916cd43dd8448eb211c80319c", "0af7651916cd43dd8448eb211c80319c"),
        ("langchain", "1f0e2a3b-4c5d-6e7f-8091-a2b3c4d5e6f7", "1f0e2a3b4c5d6e7f8091a2b3c4d5e6f7"),
        ("openinference", "0" * 32, None),
        ("otel-genai", "abc", None),
        ("openai-chat", "0af7651916cd43dd8448eb211c80319c", None),
        (None, "0af7651916cd43dd8448eb211c80319c", None),
    ],
)
def test_source_trace_ids(source: str | None, trace_id: str, expected: str | None) -> None:
    assert source_trace_id(source, trace_id) == expected


def test_a_finding_of_an_agents_entry_names_its_agent() -> None:
    """Issue 31: `arh.agent` on the findings of `agents` entries, as in every format."""
    finding = Finding(rule_id="ARH-SCH-001", severity=Severity.ERROR, category="schema",
                      message="m", step_id="s1", agent="writer")  # fmt: skip
    report = TraceReport("t", "a", "w", "p", 0.0, False, None, None, None, None, None, (finding,))
    [_, event] = trace_records(report, None)
    assert {"key": "arh.agent", "value": {"stringValue": "writer"}} in event["attributes"]
