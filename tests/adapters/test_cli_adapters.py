"""The CLI-tool and benchmark adapters: goldens, detection against every format's fixtures,
what each conversion must carry, and random edits that must never crash them."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import cli_swe
import make_cli_fixtures as mk
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_never_crash import _paths, _replace, junk

from agent_reliability_harness.adapters import (
    ADAPTERS,
    BY_NAME,
    checked,
    claimants,
    envelope_of,
    to_canonical,
)
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.errors import AdapterError, TraceError
from agent_reliability_harness.models.trace import parse_trace

HERE = Path(__file__).resolve().parent
MINE = sorted(p for fmt in mk.FORMATS for p in (HERE / "fixtures" / fmt).glob("*") if p.is_file())
EVERY = sorted(p for p in (HERE / "fixtures").rglob("*") if p.suffix in mk.SUFFIXES)
LINE_ADAPTERS = [a for a in ADAPTERS if a.detect_line is not None]
TRANSCRIPTS = [a for a in ADAPTERS if a.name != "arh"]
# Fixtures that another format's markers claim too, judged one by one. A mini-swe-agent
# trajectory with tool calls holds an OpenAI Chat message list: its envelope decides
# (docs/adapters.md, "Envelope formats"), and coverage agrees (read as swe-agent it maps
# 15 items, as openai-chat 12 of 13, missing the exit message; the run ended by an
# exception likewise).
OVERLAPS: dict[str, set[str]] = {
    "swe-agent/mini-toolcall.traj.json": {"openai-chat"},
    "swe-agent/mini-v2-exception.traj.json": {"openai-chat"},
    "letta/memgpt-2025-03.json": {"openai-chat"},  # OpenAI-shaped messages in Letta's envelope
    # Anthropic messages with Cline's conventions: anthropic-messages' `detect` takes the
    # shape, its declared `against` (metrics, result text, environment details) withdraws it.
    "cline/roo-native.json": {"anthropic-messages"},
    "cline/sdk-session.json": {"anthropic-messages"},
    "cline/task-native.json": {"anthropic-messages"},
}


def rel(path: Path) -> str:
    return str(path.relative_to(HERE / "fixtures"))


def traces(relative: str) -> list[dict[str, Any]]:
    return mk.convert_fixture(HERE / "fixtures" / relative)


def arh(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def test_goldens_are_current() -> None:
    built, disk = mk.build_all(), mk.on_disk()
    stale = sorted(k for k in built.keys() | disk.keys() if built.get(k) != disk.get(k))
    assert not stale, f"run python tests/adapters/make_cli_fixtures.py; stale: {stale[:5]}"


def _refused(golden: Any) -> bool:
    return isinstance(golden, dict) and set(golden) == {"error"}


@pytest.mark.parametrize("path", MINE, ids=rel)
def test_golden(path: Path) -> None:
    expected = (HERE / mk.expected_path(rel(path))).read_text(encoding="utf-8")
    assert mk.golden_of(path) == expected
    golden = json.loads(expected)
    if _refused(golden):
        assert golden["error"].startswith(f"not a {path.parent.name} transcript: ")
        return
    for trace in golden if isinstance(golden, list) else [golden]:
        parse_trace(trace)
        assert trace["source"] == path.parent.name


def _claims(path: Path) -> set[str]:
    """The formats whose markers claim a fixture: a JSON Lines session by its first line
    (as a session, or as a document on its own), any other file as a document."""
    value = mk.read_fixture(path)
    if path.suffix == ".jsonl":
        first = value[0][1]
        by_line = {a.name for a in LINE_ADAPTERS if a.detect_line and a.detect_line(first)}
        return by_line | {a.name for a in TRANSCRIPTS if a.detect(first)}
    return {a.name for a in TRANSCRIPTS if a.detect(value)}


@pytest.mark.parametrize("path", EVERY, ids=rel)
def test_no_fixture_is_claimed_by_another_format(path: Path) -> None:
    own, claims = path.parent.name, _claims(path)
    if own in mk.FORMATS:
        assert claims == {own} | OVERLAPS.get(rel(path), set())
        if path.suffix != ".jsonl":  # the envelope leaves its format the only candidate
            assert [a.name for a in claimants(mk.read_fixture(path))] == [own]
    else:  # the SDK formats overlap among themselves on purpose; never with these
        assert own in claims and not claims & set(mk.FORMATS), claims


def _auto(path: Path) -> tuple[int, set[str], str]:
    """`arh convert --format auto` on a fixture: exit code, trace sources, stderr (a JSON
    Lines session is read whole, by the format its first line names)."""
    code, out, err = arh("convert", "--format", "auto", str(path))
    converted = json.loads(out) if out else []
    converted = converted if isinstance(converted, list) else [converted]
    return code, {t["source"] for t in converted}, err


@pytest.mark.parametrize("path", EVERY, ids=rel)
def test_auto_names_the_format_of_every_fixture(path: Path) -> None:
    own = path.parent.name
    code, sources, err = _auto(path)
    if path.parent.name in mk.FORMATS and _refused(json.loads(mk.golden_of(path))):
        assert code == 1 and f"it looks like {own}, but no step mapped" in err
    else:
        assert (code, sources, err) == (0, {own}, "")
    if path.suffix == ".jsonl":  # the session as the pipeline reads it: the golden's traces
        golden = json.loads(mk.golden_of(path))
        out = json.loads(arh("convert", str(path))[1])
        assert out == golden


WRONG = [
    (path, fmt)
    for path in EVERY
    for fmt in BY_NAME
    if fmt not in ("arh", path.parent.name)
    and mk.FORMATS.count(fmt) + mk.FORMATS.count(path.parent.name)
]


# Sessions whose lines another session format's `convert_lines` would half-read if it were
# given them whole: codex-cli reads untyped `{"type": "message", "role", "content"}` lines
# as the bare items of legacy rollouts. The pipeline never gives it such a file (its first
# line is no rollout's), and each line is refused naming its own format (checked above).
HALF_READ = {("gemini-stream/stream-clean.jsonl", "codex-cli")}


@pytest.mark.parametrize(("path", "fmt"), WRONG, ids=lambda v: rel(v) if isinstance(v, Path) else v)
def test_an_explicit_wrong_format_is_an_error(path: Path, fmt: str) -> None:
    """Every fixture of these formats under every other `--format`, and every other
    format's fixture under theirs: an input error, never a trace to judge."""
    value, adapter = mk.read_fixture(path), BY_NAME[fmt]
    code, _, err = arh("convert", "--format", fmt, str(path))
    assert code == 1 and err.startswith("error: ")
    if (rel(path), fmt) in HALF_READ:
        assert f"it is a {path.parent.name} document" in err
        return
    if path.suffix != ".jsonl":
        with pytest.raises(AdapterError):
            to_canonical(value, fmt, path.stem)
    elif adapter.convert_lines is not None:
        with pytest.raises(AdapterError, match=f"not an? {fmt} transcript"):
            checked(adapter, adapter.convert_lines(iter(value), path.stem))
    else:  # read line by line, as io reads a JSON Lines file for such a format
        claimed = [line for _, line in value if envelope_of(line) is not None]
        for line in claimed:  # a line of the session's own kinds: refused, naming it
            with pytest.raises(AdapterError, match=f"not an? {fmt} transcript"):
                to_canonical(line, fmt, path.stem)
        # The head line always is one (so the file fails); the lines of a rollout written
        # before the typed lines are bare Responses API items, which that format reads.
        assert claimed and claimed[0] == value[0][1]


def test_directory_walks_pick_up_traj_files() -> None:
    assert ".traj" in BY_NAME["swe-agent"].suffixes


def _totals(trace: dict[str, Any]) -> tuple[int, int, int, int, int]:
    steps = trace["steps"]
    calls = [s for s in steps if s["type"] == "tool_call"]
    return (
        len(calls),
        sum("output" in s for s in calls),
        sum(s.get("status") == "error" for s in steps),
        sum(s.get("input_tokens") or 0 for s in steps),
        sum(s.get("output_tokens") or 0 for s in steps),
    )


def test_claude_code_counts_usage_once_per_message_id() -> None:
    (trace,) = traces("claude-code/session-clean.jsonl")
    # msg_01A spans three lines (thinking, text, tool_use); its last line's usage counts.
    assert _totals(trace) == (1, 1, 0, (3 + 8037 + 17842) + (1 + 208 + 25879), 96 + 19)
    first = trace["steps"][0]
    assert first["text"] == "I'll run the tests."
    assert first["metadata"]["reasoning"] == ["Run pytest first."]
    (array,) = traces("claude-code/session-array.json")
    assert (array["steps"], array["inputs"]) == (trace["steps"], trace["inputs"])


def test_claude_code_failures_sidechains_and_bookkeeping() -> None:
    (trace,) = traces("claude-code/session-parallel-errors.jsonl")
    read_ok, read_missing = (s for s in trace["steps"] if s["type"] == "tool_call")
    assert read_ok["output"] == '     1→[shop]\n     2→currency = "EUR"'
    assert (read_missing["status"], read_missing["error"]) == (
        "error",
        "<tool_use_error>File does not exist.</tool_use_error>",
    )
    assert trace["metadata"]["adapter"]["skipped"]["repeated line (same uuid)"] == 1
    (inline,) = traces("claude-code/session-sidechain.jsonl")
    sub = [s for s in inline["steps"] if s.get("metadata", {}).get("sidechain")]
    assert [s.get("tool_name") for s in sub] == ["Grep", None]
    (agent,) = traces("claude-code/agent-a1b2c3d.jsonl")
    assert agent["metadata"]["sidechain"] is True
    assert agent["trace_id"].endswith("-agent-a1b2c3d")


def test_codex_counts_cumulative_totals_once() -> None:
    (trace,) = traces("codex-cli/rollout-clean.jsonl")
    assert _totals(trace) == (1, 1, 0, 10600, 150)
    (failures,) = traces("codex-cli/rollout-failures.jsonl")
    by_id = {s["step_id"]: s for s in failures["steps"]}
    assert by_id["call_p1"]["arguments"]["input"].startswith("*** Begin Patch")
    assert [by_id[i].get("status") for i in ("call_p1", "call_p2", "call_p3", "call_p4")] == [
        "error",
        "error",
        "ok",
        "error",
    ]
    assert by_id["call_p4"]["latency_ms"] == 4200.0
    assert _totals(failures)[3:] == (13000, 200)


def test_tau_bench_names_runs_and_reads_text_failures() -> None:
    ok, failed = traces("tau-bench/results-clean.json")
    assert (ok["trace_id"], ok["task_id"], ok["outcome"]) == (
        "7-0",
        "7",
        {"reward": 1.0, "success": True},
    )
    assert failed["outcome"]["success"] is False
    assert _totals(failed)[:3] == (1, 1, 1)
    idless, crashed = traces("tau-bench/results-failures.json")
    assert [s.get("status") for s in idless["steps"] if s["type"] == "tool_call"] == [
        "ok",
        "error",
        "error",
    ]
    assert crashed["steps"] == [] and crashed["metadata"]["adapter"]["notes"]
    first, telecom = traces("tau-bench/tau2-results.json")
    assert _totals(first) == (2, 2, 1, 1830 + 1950, 64 + 20)
    assert telecom["trace_id"] == "telecom_4-0"


def test_swe_agent_latency_cost_and_tokens() -> None:
    (trace,) = traces("swe-agent/function-calling.traj")
    calls = [s for s in trace["steps"] if s["type"] == "tool_call"]
    assert [c["latency_ms"] for c in calls] == [240.0, 330.0, 410.0, 270.0]
    assert [c["step_id"] for c in calls[:3]] == ["call_swe1", "call_swe2", "call_swe3"]
    assert _totals(trace)[3:] == (7141, 243)
    assert trace["steps"][0]["cost_usd"] == 0.0195
    (mini,) = traces("swe-agent/mini-toolcall.traj.json")
    assert _totals(mini) == (4, 4, 2, 5400, 127)


def test_gemini_cli_replays_the_log() -> None:
    (trace,) = traces("gemini-cli/session-log.jsonl")
    assert [s.get("tool_name") for s in trace["steps"] if s["type"] == "tool_call"] == [
        "glob",
        "search_file_content",
    ]
    issues = [n["issue"] for n in trace["metadata"]["adapter"]["notes"]]
    assert sum(i.startswith("message removed by a rewind") for i in issues) == 2
    (legacy,) = traces("gemini-cli/session-legacy.json")
    assert _totals(legacy) == (3, 3, 2, 4100 + 15 + 4600, 120 + 300 + 40)


def _run(value: Any, fmt: str, lines: bool) -> None:
    adapter = BY_NAME[fmt]
    try:
        if lines:
            assert adapter.convert_lines is not None
            out = adapter.convert_lines(iter(enumerate(value, 1)), "junk")
        else:
            out = adapter.convert(value, "junk")
    except AdapterError:
        return
    json.dumps(out, allow_nan=False)
    for trace in out:
        with contextlib.suppress(TraceError):
            parse_trace(trace)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_edits_never_crash(data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(MINE), label="fixture")
    value = mk.read_fixture(path)
    lines = path.suffix == ".jsonl"
    if lines:
        value = [v for _, v in value]
    for _ in range(data.draw(st.integers(1, 3), label="edits")):
        paths = _paths(value)
        target = paths[data.draw(st.integers(0, len(paths) - 1), label="where")]
        value = _replace(value, target, data.draw(junk, label="junk"))
    _run(value, path.parent.name, lines and isinstance(value, list))
    if lines and isinstance(value, list):
        _run(value, path.parent.name, False)


def _judged(trace: dict[str, Any]) -> list[tuple[Any, ...]]:
    keys = ("step_id", "type", "text", "tool_name", "arguments", "output", "status", "error")
    tokens = ("input_tokens", "output_tokens")
    return [
        (*(s.get(k) for k in keys + tokens), (s.get("metadata") or {}).get("reasoning"))
        for s in trace["steps"]
    ]


@pytest.mark.parametrize("name", ["session-clean", "session-thinking", "session-parallel-errors"])
def test_claude_code_reads_messages_as_the_messages_api_does(name: str) -> None:
    """The messages of a session, each put back together from its lines (the Message the
    API returned), read as an Anthropic Messages transcript: the same steps and tokens."""
    (session,) = traces(f"claude-code/{name}.jsonl")
    lines = [v for _, v in mk.read_fixture(HERE / "fixtures" / "claude-code" / f"{name}.jsonl")]
    entries: list[dict[str, Any]] = []
    whole: dict[str, dict[str, Any]] = {}
    for line in lines:
        message = line.get("message")
        if line.get("type") == "user":
            entries.append(message)
        elif line.get("type") == "assistant" and message["id"] in whole:
            joined = whole[message["id"]]["content"]
            joined += [b for b in message["content"] if b not in joined]  # a line written again
            whole[message["id"]]["usage"] = message["usage"]  # the last line's is final
        elif line.get("type") == "assistant":
            whole[message["id"]] = {**message, "content": list(message["content"])}
            entries.append(whole[message["id"]])
    (anthropic,) = to_canonical(entries, "anthropic-messages", name)
    assert _judged(session) == _judged(anthropic)
    assert session["inputs"] == anthropic["inputs"]


def test_claude_code_thinking_neither_splits_text_nor_invents_a_step() -> None:
    (trace,) = traces("claude-code/session-thinking.jsonl")
    kinds = [(s["type"], s.get("text")) for s in trace["steps"]]
    assert kinds[0] == ("model_response", "\n\nLet me look at the config.")
    assert [k for k, _ in kinds] == [
        "model_response",
        "tool_call",
        "tool_call",
        "tool_call",  # msg_07B: its thinking led straight to this call
        "model_response",
    ]
    assert trace["steps"][3]["metadata"]["reasoning"] == ["bcrypt needs a C compiler."]
    assert _totals(trace) == (3, 3, 1, 25353 + 25701 + 25811, 88 + 41 + 9)


def test_swe_agent_reads_a_bare_mini_message_list_when_told() -> None:
    value = cli_swe.mini_bare()
    with pytest.raises(AdapterError, match="no format-specific field found"):
        to_canonical(value)
    (trace,) = to_canonical(value, "swe-agent", "bare")
    calls = [s for s in trace["steps"] if s["type"] == "tool_call"]
    assert [(c["arguments"], c["status"]) for c in calls] == [
        ({"command": "ls -la"}, "ok"),
        ({"command": "git diff"}, "ok"),
    ]
    assert trace["agent_name"] == "mini-swe-agent"


# Values of the wrong type where a field is expected: each replaces every value of a
# fixture in turn (found by this sweep: a `choices` entry that is null in a rejected turn).
SWEEP = [None, [None], {}, "x", -1, 10**400]


@pytest.mark.parametrize("path", MINE, ids=rel)
def test_every_value_replaced_by_a_wrong_type_is_read_or_refused(path: Path) -> None:
    value = mk.read_fixture(path)
    lines = path.suffix == ".jsonl"
    if lines:
        value = [v for _, v in value]
    for where in _paths(value):
        for wrong in SWEEP:
            edited = _replace(value, where, wrong)
            _run(edited, path.parent.name, lines and isinstance(edited, list))
            with contextlib.suppress(AdapterError):
                json.dumps(to_canonical(edited, path.parent.name, "junk"), allow_nan=False)
