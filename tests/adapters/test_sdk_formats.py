"""The framework/SDK formats (make_sdk_fixtures.py): goldens, freshness, scenario contents,
binary readers and their failures (detection against every other format's fixtures:
test_detection.py)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import sys
import warnings
import zipfile
from pathlib import Path, PurePath
from typing import Any

import make_fixtures
import make_sdk_fixtures as gen
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scenarios import SCENARIOS, Scenario
from test_never_crash import _paths, _replace, junk

from agent_reliability_harness.adapters import BY_NAME, FILE_READERS, to_canonical
from agent_reliability_harness.adapters.harnesses import inspect_zip
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.errors import AdapterError, InputError, TraceError
from agent_reliability_harness.models.trace import parse_trace

HERE = Path(__file__).resolve().parent
FIX = HERE / "fixtures"
OURS = [p for fmt in gen.FORMATS for p in gen.owned(fmt) if p.parent.parent == FIX]
BINARY = [p for p in sorted((FIX).rglob("*")) if p.suffix in FILE_READERS]
EVERY = sorted(p for p in FIX.rglob("*") if p.is_file())


def documents(path: Path) -> list[Any]:
    return gen.read_fixture(PurePath(path.name), path.read_bytes())


def arh(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(out, err, io.BytesIO(b"")))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("path", OURS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_golden(path: Path) -> None:
    fmt = path.parent.name
    expected = HERE / "expected" / fmt / f"{path.stem}.json"
    assert gen.expected_text(fmt, path.name, path.read_bytes()) == expected.read_text("utf-8")
    for trace in gen.convert_file(fmt, path.name, path.read_bytes()):
        parse_trace(trace)


@pytest.mark.parametrize("fmt", gen.FORMATS)  # one test a format: xdist spreads the SDKs
def test_fixtures_are_current(fmt: str) -> None:
    missing = sorted(m for m in gen.SDKS[fmt] if importlib.util.find_spec(m) is None)
    if missing:
        if os.environ.get("CI") and fmt not in gen.OUTSIDE_EXTRA:
            pytest.fail(f"SDKs missing in CI: {missing}; install the test-adapters extra")
        pytest.skip(f"SDKs not installed: {missing}")
    built = gen.build_format(fmt)
    on_disk = {str(p.relative_to(HERE)): p.read_bytes() for p in gen.owned(fmt)}
    stale = sorted(k for k in built.keys() | on_disk.keys() if built.get(k) != on_disk.get(k))
    assert not stale, f"run python tests/adapters/make_sdk_fixtures.py; stale: {stale[:5]}"


# --- scenario contents ----------------------------------------------------------------

# What each format records of a scenario: text, tokens, tool failures.
CARRIES = {
    "openinference": {"text", "tokens", "errors"},
    "pydantic-ai": {"text", "tokens", "errors"},
    "langchain": {"text", "tokens", "errors"},
    "langfuse": {"text", "tokens", "errors"},
    "mcp": {"errors"},  # tool calls only; JSON-RPC ids are the step ids
}
SCENARIO_CASES = [
    (fmt, s) for fmt in gen.SCENARIO_RENDERERS for s in SCENARIOS if gen.supports(fmt, s)
]


@pytest.mark.parametrize(("fmt", "scenario"), SCENARIO_CASES, ids=lambda v: getattr(v, "name", v))
def test_conversion_matches_scenario(fmt: str, scenario: Scenario) -> None:
    (trace,) = to_canonical(json.loads((FIX / fmt / f"{scenario.name}.json").read_text()), fmt)
    carries = CARRIES[fmt]
    steps = trace["steps"]
    calls = [s for s in steps if s["type"] == "tool_call"]
    notes = trace["metadata"]["adapter"]["notes"]
    assert [c["tool_name"] for c in calls] == [c.name for c in scenario.calls]
    for step, call in zip(calls, scenario.calls, strict=True):
        if "text" in carries:  # formats that record the model's own call ids
            assert step["step_id"] == call.call_id
        assert step["arguments"] == (None if call.raw_args is not None else call.args)
        result = scenario.results[call.call_id]
        if "errors" in carries:
            assert step["status"] == ("error" if result.error else "ok")
            if result.error:
                assert step["error"] == result.error
    if "text" in carries:
        texts = [s["text"] for s in steps if s["type"] == "model_response" and s.get("text")]
        assert texts == ["".join(t.texts) for t in scenario.turns if t.texts]
    if "tokens" in carries:
        assert sum(s.get("input_tokens") or 0 for s in steps) == sum(
            t.usage[0] for t in scenario.turns
        )
        assert sum(s.get("output_tokens") or 0 for s in steps) == sum(
            t.usage[1] for t in scenario.turns
        )
    orphaned = [n for n in notes if n["issue"] == "tool result without a matching call"]
    assert len(orphaned) == (1 if scenario.orphan else 0)
    bad = [n for n in notes if n["issue"] == "arguments are not valid JSON"]
    assert len(bad) == sum(1 for c in scenario.calls if c.raw_args is not None)


# --- the ingest contract on edge cases the fixtures do not hold ------------------------


def _fixture(relative: str) -> Any:
    return json.loads((FIX / relative).read_text("utf-8"))


def _adapter_record(trace: dict[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = trace["metadata"]["adapter"]
    return record


def test_langsmith_run_listed_twice_is_read_once() -> None:
    tree = _fixture("langchain/langsmith-run-tree-retry.json")
    (once,) = to_canonical(tree, "langchain")
    (twice,) = to_canonical([tree, tree["child_runs"][0]], "langchain")
    assert twice["steps"] == once["steps"]
    assert _adapter_record(twice)["skipped"]["run repeated with the same id"] >= 1


def test_langgraph_state_labels() -> None:
    state = {
        "messages": _fixture("langchain/clean.json"),
        "task_id": 7,
        "outcome": {"success": True},
    }
    (trace,) = to_canonical(state, "langchain")
    assert (trace["task_id"], trace["outcome"]) == ("7", {"success": True})


def test_inspect_messages_of_the_input_are_not_the_runs_actions() -> None:
    log = _fixture("inspect/refunds.json")
    sample = log["samples"][0]
    example = {"role": "assistant", "source": "input", "content": "Example answer."}
    sample["messages"].insert(2, example)
    traces = to_canonical(log, "inspect")
    assert [s.get("text") for s in traces[0]["steps"]] == [
        s.get("text") for s in to_canonical(_fixture("inspect/refunds.json"), "inspect")[0]["steps"]
    ]
    notes = _adapter_record(traces[0])["notes"]
    assert [n["at"] for n in notes] == ["samples[0].messages[2]"]


def test_pydantic_ai_turn_that_only_reasoned_keeps_its_reasoning_usage_and_cost() -> None:
    history = _fixture("pydantic-ai/clean.json")
    thinking = {
        "kind": "response",
        "parts": [{"part_kind": "thinking", "content": "Nothing to do."}],
        "usage": {"input_tokens": 5, "output_tokens": 2, "cost": 0.001},
        "model_name": "m",
    }
    (trace,) = to_canonical([*history, thinking], "pydantic-ai")
    last = trace["steps"][-1]
    assert (last["type"], last.get("text")) == ("model_response", None)
    assert last["metadata"]["reasoning"] == ["Nothing to do."]
    assert (last["input_tokens"], last["output_tokens"], last["cost_usd"]) == (5, 2, 0.001)


def test_mcp_requests_of_other_methods_are_notes_and_initialize_is_mapped() -> None:
    session = _fixture("mcp/clean.json")
    read = {"jsonrpc": "2.0", "id": 99, "method": "resources/read", "params": {"uri": "x://1"}}
    (trace,) = to_canonical([*session, read], "mcp")
    record = _adapter_record(trace)
    assert [n["issue"] for n in record["notes"]] == ["resources/read request is not a tool call"]
    assert trace["metadata"]["mcp_client"] and "initialize request" not in record["skipped"]


# --- binary inputs ---------------------------------------------------------------------


@pytest.mark.parametrize("path", BINARY, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_binary_twins_convert_like_their_golden(path: Path) -> None:
    """A binary fixture converts to its golden (for otel-genai, the JSON fixture's)."""
    fmt = path.parent.name
    expected = (HERE / "expected" / fmt / f"{path.stem}.json").read_text("utf-8")
    assert gen.expected_text(fmt, path.name, path.read_bytes()) == expected


def test_cli_reads_binary_files_and_walks_their_suffixes(tmp_path: Path) -> None:
    walked = tmp_path / "in"
    for path in BINARY:
        (walked / path.parent.name).mkdir(parents=True, exist_ok=True)
        (walked / path.parent.name / path.name).write_bytes(path.read_bytes())
    code, out, err = arh("convert", str(FIX / "openinference" / "clean.binpb"))
    assert (code, err) == (0, "")
    assert out == (HERE / "expected" / "openinference" / "clean.json").read_text("utf-8")
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"policy_id": "p"}))
    code, out, err = arh("validate", "--policy", str(policy), "--jobs", "1", str(walked))
    assert err == ""
    assert out.count("[PASS]") + out.count("[FAIL]") == sum(
        len(to_canonical(d)) for p in BINARY for d in documents(p)
    )


def test_missing_otlp_extra_is_one_clear_error(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setitem(
        sys.modules, "opentelemetry.proto.collector.trace.v1.trace_service_pb2", None
    )
    path = tmp_path / "x.pb"
    path.write_bytes((FIX / "otel-genai" / "parallel.pb").read_bytes())
    code, out, err = arh("convert", str(path))
    assert (code, out) == (1, "")
    assert err == (
        f"error: {path.as_posix()}: reading OTLP protobuf needs the 'otlp' extra: "
        "pip install 'arh-harness[otlp]'\n"
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty file"),
        (b"\x0a\xff\xff", "not an OTLP ExportTraceServiceRequest"),
        (b"\x00\x00\x10\x00\x0a", "4-byte length prefix at byte 0 runs past the end"),
        (b"\x85", "not a valid varint"),
    ],
)
def test_bad_protobuf_is_an_input_error(data: bytes, message: str) -> None:
    with pytest.raises(InputError, match=message):
        FILE_READERS[".pb"](data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_byte_edits_of_binary_fixtures_never_crash(data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(BINARY), label="fixture")
    raw = bytearray(path.read_bytes())
    for _ in range(data.draw(st.integers(1, 4), label="edits")):
        at = data.draw(st.integers(0, len(raw) - 1), label="at")
        if data.draw(st.booleans(), label="cut"):
            del raw[at : at + data.draw(st.integers(1, 64), label="n")]
        else:
            raw[at] = data.draw(st.integers(0, 255), label="byte")
        if not raw:
            raw = bytearray(b"\x0a")
    try:
        docs = FILE_READERS[path.suffix](bytes(raw))
        for doc in docs:
            for trace in to_canonical(doc, path.parent.name, "junk"):
                json.dumps(trace, allow_nan=False)
                with contextlib.suppress(TraceError):
                    parse_trace(trace)
    except (AdapterError, InputError):
        pass


def test_equivalence_with_make_fixtures_goldens_is_checked() -> None:
    """Guard: the otel-genai binary twins exist and map to make_fixtures.py's goldens."""
    twins = [p for p in BINARY if p.parent.name in make_fixtures.RENDERERS]
    assert {p.parent.name for p in twins} == {"otel-genai"}
    assert all((HERE / "expected" / "otel-genai" / f"{p.stem}.json").exists() for p in twins)


SESSIONS = [p for p in EVERY if p.suffix == ".jsonl"]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutated_session_lines_never_crash(data: st.DataObject) -> None:
    """Session JSONL formats: random values in place of lines or of parts of lines."""
    path = data.draw(st.sampled_from(SESSIONS), label="fixture")
    lines = documents(path)
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        n = data.draw(st.integers(0, len(lines) - 1), label="line")
        paths = _paths(lines[n])
        target = paths[data.draw(st.integers(0, len(paths) - 1), label="where")]
        lines[n] = _replace(lines[n], target, data.draw(junk, label="junk"))
    adapter = BY_NAME[path.parent.name]
    assert adapter.convert_lines is not None
    try:
        traces = adapter.convert_lines(enumerate(lines, start=1), "junk")
    except AdapterError:
        return
    for trace in traces:
        json.dumps(trace, allow_nan=False)
        with contextlib.suppress(TraceError):
            parse_trace(trace)


EVAL_LOGS = sorted((FIX / "inspect").glob("*.eval"))


def test_eval_archive_and_json_log_of_one_eval_convert_alike() -> None:
    eval_file, json_file = FIX / "inspect" / "refunds.eval", FIX / "inspect" / "refunds.json"
    assert gen.convert_file("inspect", "refunds.eval", eval_file.read_bytes()) == (
        gen.convert_file("inspect", "refunds.json", json_file.read_bytes())
    )


@pytest.mark.parametrize("path", EVAL_LOGS, ids=lambda p: p.name)
def test_eval_members_decode_without_zipfile_zstd_support(path: Path, monkeypatch: Any) -> None:
    """Python < 3.14 without Inspect's zipfile patch: Zstandard members are decoded with the
    `inspect` extra, to the same documents."""
    expected = FILE_READERS[".eval"](path.read_bytes())
    monkeypatch.setattr(inspect_zip, "_stdlib_zstd", lambda: False)
    assert FILE_READERS[".eval"](path.read_bytes()) == expected


def test_missing_inspect_extra_is_one_clear_error(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(inspect_zip, "_stdlib_zstd", lambda: False)
    monkeypatch.setitem(sys.modules, "zstandard", None)
    path = tmp_path / "run.eval"
    path.write_bytes((FIX / "inspect" / "refunds.eval").read_bytes())
    code, out, err = arh("convert", str(path))
    assert (code, out) == (1, "")
    assert err == (
        f"error: {path.as_posix()}: reading a zstd-compressed Inspect log needs Python 3.14 "
        "or the 'inspect' extra: pip install 'arh-harness[inspect]'\n"
    )
    # A deflate archive (older Inspect versions) needs nothing beyond the stdlib.
    assert FILE_READERS[".eval"]((FIX / "inspect" / "epochs-deflate.eval").read_bytes())


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"PK\x03\x04 not really", "not a zip archive"),
        (b"", "not a zip archive"),
    ],
)
def test_bad_eval_archive_is_an_input_error(data: bytes, message: str) -> None:
    with pytest.raises(InputError, match=message):
        FILE_READERS[".eval"](data)


def test_eval_archive_without_header_or_samples(tmp_path: Path) -> None:
    empty = io.BytesIO()
    with zipfile.ZipFile(empty, "w") as archive:
        archive.writestr("notes.txt", "hello")
    with pytest.raises(InputError, match=r"no header\.json"):
        FILE_READERS[".eval"](empty.getvalue())
    (document,) = FILE_READERS[".eval"]((FIX / "inspect" / "refunds.eval").read_bytes())
    with pytest.raises(AdapterError, match="holds no samples"):
        to_canonical({**document, "samples": []}, "inspect")


# --- the fixtures are what the frameworks themselves read back --------------------------


def _need(*modules: str) -> None:
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"not installed: {missing}")


def test_inspect_reads_back_the_eval_logs() -> None:
    _need("inspect_ai")
    from inspect_ai.log import read_eval_log  # noqa: PLC0415

    for path in sorted((FIX / "inspect").iterdir()):
        log = read_eval_log(str(path))
        traces = gen.convert_file("inspect", path.name, path.read_bytes())
        assert [(f"{log.eval.task}/{s.id}", s.epoch) for s in log.samples or []] == [
            (t["task_id"], t["metadata"]["epoch"]) for t in traces
        ]


def test_pydantic_ai_reads_back_the_histories() -> None:
    _need("pydantic_ai")
    from pydantic_ai.messages import ModelMessagesTypeAdapter  # noqa: PLC0415

    for path in sorted((FIX / "pydantic-ai").glob("*.json")):
        assert ModelMessagesTypeAdapter.validate_json(path.read_bytes())


def test_langchain_reads_back_the_messages() -> None:
    _need("langchain_core")
    from langchain_core.load import load  # noqa: PLC0415
    from langchain_core.messages import BaseMessage, messages_from_dict  # noqa: PLC0415

    for path in sorted((FIX / "langchain").glob("*.json")):
        value = json.loads(path.read_text("utf-8"))
        if isinstance(value, list) and value and "data" in value[0]:
            assert all(isinstance(m, BaseMessage) for m in messages_from_dict(value))
        elif isinstance(value, list) and value and value[0].get("lc") == 1:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # `load` is marked beta
                loaded = [load(m, allowed_objects="messages") for m in value]
            assert all(isinstance(m, BaseMessage) for m in loaded)


def test_mcp_sdk_reads_back_the_sessions() -> None:
    _need("mcp")
    from mcp.types import JSONRPCMessage  # noqa: PLC0415
    from pydantic import TypeAdapter  # noqa: PLC0415

    adapter: Any = TypeAdapter(JSONRPCMessage)
    for path in sorted((FIX / "mcp").iterdir()):
        for item in documents(path):
            for message in item if isinstance(item, list) else [item]:
                adapter.validate_python(message.get("message", message))


def test_langfuse_models_read_back_the_observations() -> None:
    _need("langfuse")
    from langfuse.api.commons.types.observation_v2 import ObservationV2  # noqa: PLC0415
    from langfuse.api.core.pydantic_utilities import parse_obj_as  # noqa: PLC0415

    for path in sorted((FIX / "langfuse").glob("*.json")):
        value = json.loads(path.read_text("utf-8"))
        traces = value if isinstance(value, list) else [value]
        for trace in traces:
            for observation in trace.get("observations", trace.get("data", [])):
                # As the SDK's client parses an API response (camelCase aliases).
                assert parse_obj_as(ObservationV2, observation).id == observation["id"]


def test_langfuse_ui_export_reads_the_trace_beside_its_observations() -> None:
    value = json.loads((FIX / "langfuse" / "ui-export.json").read_text("utf-8"))
    (trace,) = to_canonical(value, "langfuse", "ui-export")
    bare = {**value["trace"], "observations": value["observations"]}
    (same,) = to_canonical(bare, "langfuse", "ui-export")
    assert trace["trace_id"] == "trace-ui-export"
    assert trace["workflow"] == "refund-support"
    assert trace["outcome"] == {"scores": {"resolution": 1.0}, "reward": 1.0}
    assert trace["metadata"]["session_id"] == "session-clean"
    assert trace["inputs"][0]["text"] == value["trace"]["input"]
    copies = (
        trace["metadata"]["adapter"]
        .pop("skipped")
        .pop("trace's summary of an observation listed in full beside it")
    )
    assert copies == len(value["observations"])
    assert {k: v for k, v in trace.items() if k != "metadata"} == {
        k: v for k, v in same.items() if k != "metadata"
    }
    assert trace["metadata"]["adapter"]["mapped"] == same["metadata"]["adapter"]["mapped"]


def test_langfuse_stream_wrapper_gives_its_answer_to_the_last_step_without_output() -> None:
    value = json.loads((FIX / "langfuse" / "stream-wrapper.json").read_text("utf-8"))
    (trace,) = to_canonical(value, "langfuse", "stream-wrapper")
    (plain,) = to_canonical(json.loads((FIX / "langfuse" / "clean.json").read_text()), "langfuse")
    texts = [s.get("text") for s in trace["steps"] if s["type"] == "model_response"]
    assert texts[-1] == "Refunded 25.00 USD for ORD-1042 (refund RF-77)."
    assert len(trace["steps"]) == len(plain["steps"])  # the wrapper adds no step
    assert [s["step_id"] for s in trace["steps"]] == [s["step_id"] for s in plain["steps"]]
    assert "skipped" not in trace["metadata"]["adapter"]  # the wrapper's output is mapped
    assert trace["metadata"]["adapter"]["mapped"] == plain["metadata"]["adapter"]["mapped"] + 1


def test_langfuse_generation_input_and_output_as_json_text_read_as_their_values() -> None:
    value = json.loads((FIX / "langfuse" / "json-text.json").read_text("utf-8"))
    (trace,) = to_canonical(value, "langfuse", "json-text")
    (plain,) = to_canonical(json.loads((FIX / "langfuse" / "clean.json").read_text()), "langfuse")
    assert isinstance(value["observations"][1]["output"], str)
    assert trace["steps"] == plain["steps"]
    assert trace["inputs"] == plain["inputs"]
    assert trace["metadata"]["adapter"] == plain["metadata"]["adapter"]


def test_langfuse_json_text_decoding_keeps_text_and_notes_other_objects() -> None:
    value = json.loads((FIX / "langfuse" / "json-text-edges.json").read_text("utf-8"))
    (trace,) = to_canonical(value, "langfuse", "json-text-edges")
    texts = [s["text"] for s in trace["steps"]]
    assert texts == ["[draft] Refund approved.", None, "{not json"]
    notes = trace["metadata"]["adapter"]["notes"]
    assert [(n["at"], n["issue"]) for n in notes] == [
        ("$.observations[1].output", "generation output that is not a message")
    ]
    assert trace["inputs"] == [{"role": "user", "text": "Refund ORD-1042?"}]


def test_langfuse_provider_response_outputs_read_as_their_assistant_message() -> None:
    value = json.loads((FIX / "langfuse" / "provider-outputs.json").read_text("utf-8"))
    (trace,) = to_canonical(value, "langfuse", "provider-outputs")
    steps = [(s["type"], s["step_id"], s.get("text"), s.get("tool_name")) for s in trace["steps"]]
    assert steps == [
        ("model_response", "step-1", "Looking it up.", None),
        ("tool_call", "call_lookup1", None, "lookup_order"),
        ("model_response", "step-3", "Order ORD-1042 was delivered.", None),
        ("model_response", "step-4", "Anything else?", None),
        ("model_response", "step-5", None, None),
    ]
    assert trace["steps"][1]["arguments"] == {"order_id": "ORD-1042"}
    notes = trace["metadata"]["adapter"]["notes"]
    assert [(n["at"], n["issue"]) for n in notes] == [
        ("$.observations[4].output", "generation output that is not a message")
    ]
