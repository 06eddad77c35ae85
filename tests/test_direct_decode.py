"""The trace decoder on JSON bytes (`decode_trace_json`) against the dict path (`parse_trace`
of the strictly decoded document).

Whatever the bytes path accepts, the dict path accepts too and builds the same Trace
(compared by repr, so 1 and 1.0 differ); everything else is left to the dict path.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_reliability_harness import api
from agent_reliability_harness.errors import InputError, TraceError
from agent_reliability_harness.io import decode_json_bytes
from agent_reliability_harness.models.common import Status
from agent_reliability_harness.models.trace import Step, Trace, decode_trace_json, parse_trace
from agent_reliability_harness.nesting import MAX_DEPTH
from agent_reliability_harness.pipeline import (
    Needs,
    RunOptions,
    UnitProcessor,
    WorkPlan,
    input_units,
)
from strategies import traces

pytestmark = pytest.mark.slow  # an equivalence oracle (see pyproject.toml)

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def _general(data: bytes) -> object:
    """What the general path makes of JSON text: ("ok", repr(Trace)) or ("error", ...)."""
    try:
        return ("ok", repr(parse_trace(decode_json_bytes(data))))
    except (InputError, TraceError) as exc:
        return ("error", str(exc))


def _agrees(data: bytes) -> bool:
    """Asserts the fast decoder agrees with the general path; True if it took the input."""
    fast = decode_trace_json(data)
    if fast is None:
        return False
    assert ("ok", repr(fast)) == _general(data)
    return True


ODD_VALUES = st.sampled_from(
    [None, "", "x", 0, -1, 1.0, -0.0, 2**53, 2**53 + 1, 2**64, 3.0, True, [], {}, [1], {"a": 1}]
)
KEYS = st.sampled_from([*Step.__struct_fields__, "unknown"])
TOP_KEYS = st.sampled_from([*Trace.__struct_fields__, "x"])


@st.composite
def mutated(draw: st.DrawFn) -> dict[str, Any]:
    """A generated trace with a few fields set to odd values (or odd keys added)."""
    trace = draw(traces())
    for _ in range(draw(st.integers(0, 3))):
        steps = trace.get("steps")
        if isinstance(steps, list) and steps and draw(st.booleans()):
            step = steps[draw(st.integers(0, len(steps) - 1))]
            if isinstance(step, dict):
                step[draw(KEYS)] = draw(ODD_VALUES)
        else:
            key = draw(TOP_KEYS)
            trace[key] = draw(ODD_VALUES | st.sampled_from(["1", "1.4", "2", "01"]))
    return trace


@given(mutated(), st.booleans())
def test_fast_paths_agree_with_the_general_parser(trace: dict[str, Any], spaced: bool) -> None:
    data = json.dumps(trace, indent=1 if spaced else None).encode()
    _agrees(data)


@given(traces())
def test_well_formed_traces_take_the_fast_paths(trace: dict[str, Any]) -> None:
    assert _agrees(json.dumps(trace).encode())


HEAD = b'{"trace_id":"t","agent_name":"a","workflow":"w",'
STEP = b'{"step_id":"s1","type":"tool_call","tool_name":"x"'

EDGE_CASES = [
    HEAD + b'"steps":[]}',
    HEAD + b'"steps":[],"metadata":{"n":1e400}}',  # out of range: refused by the decoder
    HEAD + b'"steps":[],"extra":1e400}',  # unknown key: left to the general path
    HEAD + b'"steps":[' + STEP + b',"latency_ms":1e400}]}',
    HEAD + b'"steps":[' + STEP + b',"latency_ms":9007199254740993}]}',
    HEAD + b'"steps":[' + STEP + b',"latency_ms":1E2,"cost_usd":0.1}]}',
    HEAD + b'"steps":[' + STEP + b',"input_tokens":3.0}]}',
    HEAD + b'"steps":[' + STEP + b',"input_tokens":9223372036854775808}]}',
    HEAD + b'"steps":[' + STEP + b',"status":null,"error":"boom"}]}',
    HEAD + b'"steps":[' + STEP + b',"error":"boom"}]}',
    HEAD + b'"steps":[' + STEP + b',"error":"boom","status":"ok"}]}',
    HEAD + b'"steps":[' + STEP + b',"error":""}]}',
    HEAD + b'"steps":[' + STEP + b',"arguments":{"n":123456789012345678901234567890}}]}',
    HEAD + b'"steps":[' + STEP + b',"arguments":{"a":1,"a":"two"}}]}',
    HEAD + b'"steps":[' + STEP + b',"tool_name":"y"}]}',  # duplicate key: the last wins
    HEAD + b'"steps":[' + STEP + b',"text":"\xff"}]}',  # invalid UTF-8
    HEAD + b'"steps":[' + STEP + b',"text":"\\ud800"}]}',  # lone surrogate
    HEAD + b'"steps":[' + STEP + b',"text":"caf\xc3\xa9 \\u00e9 \\n"}]}',
    HEAD + b'"steps":[' + STEP + b',"citations":null}]}',
    HEAD + b'"steps":[' + STEP + b',"metadata":null}]}',
    HEAD + b'"steps":[' + STEP + b',"type":"thought"}]}',
    b"\xef\xbb\xbf" + HEAD + b'"steps":[]}',  # BOM
    HEAD + b'"steps":[],"schema_version":"1.7"}',
    HEAD + b'"steps":[],"schema_version":"2"}',
    HEAD + b'"steps":[],"schema_version":null}',
    b'[{"trace_id":"t","agent_name":"a","workflow":"w","steps":[]}]',
    b"  " + HEAD + b'"steps":[]}\r\n',
]


@pytest.mark.parametrize("data", EDGE_CASES)
def test_edge_cases(data: bytes) -> None:
    _agrees(data)


def test_status_follows_the_spec_when_absent() -> None:
    took = decode_trace_json(HEAD + b'"steps":[' + STEP + b',"error":"boom"}]}')
    assert took is not None and took.steps[0].status is Status.ERROR
    built = parse_trace(json.loads(HEAD + b'"steps":[' + STEP + b',"error":""}]}'))
    assert built.steps[0].status is Status.OK


def test_unknown_keys_and_bad_numbers_go_the_general_way() -> None:
    assert decode_trace_json(HEAD + b'"steps":[],"extra":1}') is None
    assert decode_trace_json(HEAD + b'"steps":[],"metadata":{"n":1e400}}') is None
    with pytest.raises(InputError):
        decode_json_bytes(HEAD + b'"steps":[],"extra":1e400}')
    assert isinstance(parse_trace(json.loads(HEAD + b'"steps":[],"extra":1}')), Trace)


@pytest.mark.parametrize("depth", [1, 100, 505, 506, 507, 508, 1000])
def test_every_path_reads_or_refuses_a_depth_alike(depth: int) -> None:
    """MAX_DEPTH counts from the document root: the trace object, steps, a step and its
    arguments object take four levels, so `depth` more nested objects inside reach
    depth + 4; up to 512 is read, deeper refused, the same way on every path."""
    nested = b'{"a":' * depth + b"1" + b"}" * depth
    data = HEAD + b'"steps":[' + STEP + b',"arguments":' + nested + b"}]}"
    fast = decode_trace_json(data)
    general = _general(data)
    if depth + 4 <= MAX_DEPTH:
        assert fast is not None and general == ("ok", repr(fast))
    else:
        assert fast is None and general[0] == "error" and "nesting is too deep" in str(general)


def _reports(processor_paths: list[str], direct: bool) -> list[object]:
    policy = api.load_policy(str(SAMPLES / "policy.json"))
    processor = UnitProcessor(WorkPlan((policy,), needs=Needs(keep_reports=True)))
    processor.reader.direct = direct
    batch = processor.process_all(input_units(processor_paths, RunOptions()))
    return [*batch.reports, *batch.failures]


def test_stream_direct_path_gives_the_general_paths_reports(tmp_path: Path) -> None:
    sample = (SAMPLES / "traces" / "refund-ok.json").read_bytes()
    files = {
        "lead.json": b"\n\n  \n" + sample,  # the trace starts on line 4
        "lines.jsonl": b"\n".join(
            [json.dumps(json.loads(sample)).encode(), b'{"trace_id": 5}', HEAD + b'"steps":[]}']
        ),
        "bom.json": b"\xef\xbb\xbf" + sample,
        "extra.json": HEAD + b'"steps":[],"x":1}',
        "bad.json": HEAD + b'"steps":[' + STEP + b',"latency_ms":-1}]}',
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    paths = [str(tmp_path / name) for name in files]
    direct, general = _reports(paths, True), _reports(paths, False)
    assert direct == general
    assert direct[0].source_line == 4  # type: ignore[attr-defined]
