"""The Adapter hooks for session formats (adapters/core/base.py): a JSONL file whose first line
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
from agent_reliability_harness.adapters.core import plugins as format_plugins
from agent_reliability_harness.adapters.core.base import Adapter
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
    # Registered as a format plugin would be: the one detection pass asks these.
    registered = format_plugins.Plugins((TOY,), (), {TOY.name: TOY}, (*adapters.ADAPTERS, TOY))
    monkeypatch.setattr(format_plugins, "_LOADED", [registered])
    monkeypatch.setattr(validate_cmd, "FORMAT_CHOICES", (*adapters.FORMAT_CHOICES, TOY.name))
    SEEN.clear()


def _session_lines(session: str = "sess-1", bad: str = "{not json") -> list[str]:
    rows: list[Any] = [
        {"toy": "session", "id": session},
        {"toy": "call", "name": "lookup_order"},
        {"toy": "say", "text": "done"},
    ]
    lines = [json.dumps(row) for row in rows]
    return [lines[0], "", lines[1], bad, lines[2]]


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "a-session.jsonl").write_text("\n".join(_session_lines()) + "\n")
    whole = _session_lines("sess-2", bad="")
    (folder / "a-session-whole.jsonl").write_text("\n".join(whole) + "\n")
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
    assert code == 1  # the unreadable line: that session is refused whole, not judged
    assert (
        err
        == f"error: {runs}/a-session.jsonl:4: invalid JSON: Expecting property name enclosed in double quotes (line 1, column 2) (session refused)\n"
    )
    report = json.loads(out)
    ids = [(r["trace_id"], r["source_path"]) for r in report["reports"]]
    assert ids == [
        ("sess-2", f"{runs}/a-session-whole.jsonl"),
        ("plain-0", f"{runs}/b-plain.jsonl"),
        ("plain-1", f"{runs}/b-plain.jsonl"),
        ("plain-2", f"{runs}/b-plain.jsonl"),
        ("c", f"{runs}/c.toy"),
    ]
    assert SEEN == ["generator", "generator"]  # each session file streamed to its adapter
    monkeypatch.setattr(executors, "CHUNK_BYTES", 1)
    monkeypatch.setattr(executors, "CHUNK_UNITS", 1)
    assert _validate(runs, "--jobs", "2", "--quiet") == one
    assert _validate(runs, "--dask", local_scheduler, "--quiet") == one


@pytest.mark.usefixtures("toy")
def test_format_naming_the_session_adapter(runs: Path) -> None:
    code, out, _ = _validate(runs / "a-session-whole.jsonl", "--format", "toy-session", "--quiet")
    assert code == 0
    (report,) = json.loads(out)["reports"]
    assert report["trace_id"] == "sess-2"
    assert report["source_path"].endswith("a-session-whole.jsonl")


def test_without_the_adapter_each_line_is_a_document(runs: Path) -> None:
    code, _, err = _validate(runs / "a-session.jsonl", "--quiet")
    assert code == 1
    # Three lines of no known format, one invalid line between them: the lines that fail
    # alike before it are one error (see pipeline/folding.py), the one after it another.
    assert err.count("error: ") == 3
    assert "(and 1 more line of the file alike, the last at line 3)" in err.splitlines()[0]


@pytest.mark.usefixtures("toy")
def test_a_session_with_unreadable_lines_gets_one_error_and_no_verdict(tmp_path: Path) -> None:
    folder = tmp_path / "one"
    folder.mkdir()
    lines = _session_lines()
    lines.insert(2, "[1, 2")  # a second unreadable line, before the first invalid one
    (folder / "s.jsonl").write_text("\n".join(lines) + "\n")
    code, out, err = _validate(folder, "--jobs", "1", "--quiet")
    assert code == 1
    assert err == (
        f"error: {folder}/s.jsonl:3: invalid JSON: Expecting ',' delimiter (line 2, column 1)"
        " (session refused; 1 more unreadable line)\n"
    )
    report = json.loads(out)
    assert report["summary"]["total_traces"] == 0
    assert [e["line"] for e in report["input_errors"]] == [3]
