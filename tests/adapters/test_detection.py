"""Every fixture of every format (vendor SDKs, frameworks, CLI tools), read as a user reads
it: `arh convert --format auto` names its own format; an explicit framework/SDK format on
another format's fixture, and any other explicit format on a framework/SDK fixture, is
refused instead of giving a trace (docs/adapters.md, "Coverage and refusal")."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path, PurePath
from typing import Any

import make_fixtures
import make_sdk_fixtures as gen
import pytest

from agent_reliability_harness.adapters import ADAPTERS, BY_NAME, checked, to_canonical
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.errors import AdapterError, TraceError
from agent_reliability_harness.models.trace import parse_trace

HERE = Path(__file__).resolve().parent
FIX = HERE / "fixtures"
EVERY = sorted(p for p in FIX.rglob("*") if p.is_file())
# One file is one session: read by the format's convert_lines (the session JSONL formats).
SESSIONS = [p for p in EVERY if p.suffix == ".jsonl"]
DOCUMENTS = [p for p in EVERY if p.suffix != ".jsonl"]
# The framework/SDK formats (make_sdk_fixtures.py; otel-genai only has binary twins there).
FRAMEWORKS = tuple(f for f in gen.FORMATS if f not in make_fixtures.RENDERERS)


def rel(path: Path) -> str:
    return str(path.relative_to(FIX))


def arh(*argv: str, stdin: bytes = b"") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(out, err, io.BytesIO(stdin)))
    return code, out.getvalue(), err.getvalue()


def lines(path: Path) -> list[Any]:
    return gen.read_fixture(PurePath(path.name), path.read_bytes())


def _golden_error(path: Path) -> str | None:
    """The refusal a fixture's golden holds (a document that must not be judged, such as
    a tau2 voice run), or None."""
    expected = HERE / "expected" / path.parent.name / f"{path.stem}.json"
    golden = json.loads(expected.read_text("utf-8")) if expected.exists() else None
    return golden["error"] if isinstance(golden, dict) and set(golden) == {"error"} else None


@pytest.mark.parametrize("path", DOCUMENTS, ids=rel)
def test_convert_auto_names_the_format(path: Path) -> None:
    code, out, err = arh("convert", "--format", "auto", str(path))
    if (refusal := _golden_error(path)) is not None:  # named, and refused as its golden says
        why = refusal.split(" transcript: ", 1)[1]
        assert (code, out) == (1, "")
        assert err.startswith("error: ") and err.endswith(
            f"{rel(path)}: unrecognised input format: it looks like "
            f"{path.parent.name}, but {why}; pass --format if it is another format\n"
        )
        return
    assert (code, err) == (0, "")
    converted = json.loads(out)
    traces = converted if isinstance(converted, list) else [converted]
    assert traces
    assert {t["source"] for t in traces} == {path.parent.name}


@pytest.mark.parametrize("path", SESSIONS, ids=rel)
def test_sessions_are_claimed_by_their_format_alone(path: Path) -> None:
    """A session file is claimed by its first line, by one format; the same session as a
    JSON array of its lines (which these formats also read) goes through `--format auto`."""
    own = path.parent.name
    items = lines(path)
    claimed = [a.name for a in ADAPTERS if a.detect_line is not None and a.detect_line(items[0])]
    assert claimed == [own]
    convert_lines = BY_NAME[own].convert_lines
    assert convert_lines is not None
    traces = checked(BY_NAME[own], convert_lines(enumerate(items, start=1), path.stem))
    assert traces and {t["source"] for t in traces} == {own}
    code, out, err = arh("convert", "--format", "auto", "-", stdin=json.dumps(items).encode())
    assert (code, err) == (0, "")
    converted = json.loads(out)
    assert {t["source"] for t in (converted if isinstance(converted, list) else [converted])} == {
        own
    }


def _accepted(fmt: str, documents: list[Any], session: list[Any] | None) -> str | None:
    """What an explicit `--format fmt` made of a fixture it must refuse: None when it
    refused (an adapter error, or traces that are not canonical for `arh`)."""
    adapter = BY_NAME[fmt]
    try:
        if session is not None and adapter.convert_lines is not None:
            traces = checked(adapter, adapter.convert_lines(enumerate(session, start=1), "x"))
        else:
            traces = [t for doc in documents for t in to_canonical(doc, fmt, "x")]
    except AdapterError:
        return None
    if fmt == "arh":
        with contextlib.suppress(TraceError):
            for trace in traces:
                parse_trace(trace)
            return "parsed as canonical traces" if traces else None
        return None
    steps = sum(len(t.get("steps") or []) for t in traces if isinstance(t, dict))
    return f"{len(traces)} trace(s), {steps} step(s)" if traces else None


@pytest.mark.parametrize("path", EVERY, ids=rel)
def test_explicit_wrong_formats_refuse_it(path: Path) -> None:
    own = path.parent.name
    session = lines(path) if path.suffix == ".jsonl" else None
    # A session read by a format without convert_lines: its lines as one array.
    documents = [session] if session is not None else lines(path)
    wrong = [f for f in (BY_NAME if own in FRAMEWORKS else FRAMEWORKS) if f != own]
    accepted = {
        fmt: found for fmt in wrong if (found := _accepted(fmt, documents, session)) is not None
    }
    assert not accepted, f"{rel(path)} read by other formats: {accepted}"
