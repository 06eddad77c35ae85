"""The Adapter hooks for session formats (adapters/base.py): a JSONL file whose first line
a `detect_line` claims goes whole, line by line, to that adapter's `convert_lines`, and a
directory walk picks up every adapter's `suffixes`, on every executor. The adapter here
is a toy that exists only to prove the hooks."""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness import adapters
from agent_reliability_harness.adapters.base import Adapter
from agent_reliability_harness.cli import main, validate_cmd
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.pipeline import executors
from helpers import make_trace, response

SEEN: list[str] = []  # how convert_lines was given the lines (in this process)


def _detect_line(value: Any) -> bool:
    return isinstance(value, dict) and value.get("toy") == "session"


def _convert_lines(lines: Iterable[tuple[int, Any]], name_hint: str) -> list[Any]:
    SEEN.append(type(lines).__name__)
    assert isinstance(lines, Iterator)  # streamed, never a list of the file's lines
    trace_id, steps = name_hint, []
    for number, value in lines:
        kind = value.get("toy")
        if kind == "session":
            trace_id = value.get("id", name_hint)
        elif kind == "call":
            steps.append({"step_id": f"l{number}", "type": "tool_call", "tool_name": value["name"]})
        elif kind == "say":
            steps.append({"step_id": f"l{number}", "type": "model_response", "text": value["text"]})
    return [{"trace_id": trace_id, "agent_name": "toy", "workflow": "session", "steps": steps}]


def _detect(value: Any) -> bool:
    return isinstance(value, dict) and "toy-doc" in value


def _convert(value: Any, name_hint: str) -> list[Any]:
    text = value["toy-doc"]
    step = {"step_id": "s1", "type": "model_response", "text": text}
    return [{"trace_id": name_hint, "agent_name": "toy", "workflow": "doc", "steps": [step]}]


TOY = Adapter(
    "toy-session",
    "a session format for the tests",
    _detect,
    _convert,
    detect_line=_detect_line,
    convert_lines=_convert_lines,
    suffixes=(".toy",),
)


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    registered = (*adapters.ADAPTERS, TOY)
    monkeypatch.setattr(adapters, "ADAPTERS", registered)
    monkeypatch.setitem(adapters.BY_NAME, TOY.name, TOY)
    monkeypatch.setattr(validate_cmd, "FORMAT_CHOICES", (*adapters.FORMAT_CHOICES, TOY.name))
    SEEN.clear()


def _session_lines() -> list[str]:
    rows: list[Any] = [
        {"toy": "session", "id": "sess-1"},
        {"toy": "call", "name": "lookup_order"},
        {"toy": "say", "text": "done"},
    ]
    lines = [json.dumps(row) for row in rows]
    return [lines[0], "", lines[1], "{not json", lines[2]]


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "a-session.jsonl").write_text("\n".join(_session_lines()) + "\n")
    plain = [make_trace(response("s1"), trace_id=f"plain-{n}") for n in range(3)]
    (folder / "b-plain.jsonl").write_text("".join(json.dumps(t) + "\n" for t in plain))
    (folder / "c.toy").write_text(json.dumps({"toy-doc": "hello"}))
    (folder / "d-notes.txt").write_text("not an input")
    return folder


def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def _validate(folder: Path, *how: str) -> tuple[int, str, str]:
    policy = folder.parent / "policy.json"
    policy.write_text(json.dumps({"policy_id": "p", "allow_unlisted_tools": True}))
    return _cli(["validate", "--policy", str(policy), str(folder), "--json-out", "-", *how])


@pytest.mark.usefixtures("toy")
def test_session_file_is_one_trace_on_every_executor(
    runs: Path, local_scheduler: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = _validate(runs, "--jobs", "1", "--quiet")
    code, out, err = one
    assert code == 1  # the unreadable line
    assert (
        err
        == f"error: {runs}/a-session.jsonl:4: invalid JSON: Expecting property name enclosed in double quotes (line 1, column 2)\n"
    )
    report = json.loads(out)
    ids = [(r["trace_id"], r["source_path"]) for r in report["reports"]]
    assert ids == [
        ("sess-1", f"{runs}/a-session.jsonl"),
        ("plain-0", f"{runs}/b-plain.jsonl"),
        ("plain-1", f"{runs}/b-plain.jsonl"),
        ("plain-2", f"{runs}/b-plain.jsonl"),
        ("c", f"{runs}/c.toy"),
    ]
    assert SEEN == ["generator"]
    monkeypatch.setattr(executors, "CHUNK_BYTES", 1)
    monkeypatch.setattr(executors, "CHUNK_UNITS", 1)
    assert _validate(runs, "--jobs", "2", "--quiet") == one
    assert _validate(runs, "--dask", local_scheduler, "--quiet") == one


@pytest.mark.usefixtures("toy")
def test_format_naming_the_session_adapter(runs: Path) -> None:
    code, out, _ = _validate(runs / "a-session.jsonl", "--format", "toy-session", "--quiet")
    assert code == 1
    (report,) = json.loads(out)["reports"]
    assert report["trace_id"] == "sess-1" and report["source_path"].endswith("a-session.jsonl")


def test_without_the_adapter_each_line_is_a_document(runs: Path) -> None:
    code, _, err = _validate(runs / "a-session.jsonl", "--quiet")
    assert code == 1
    assert err.count("error: ") == 4  # three lines of no known format, one invalid line
