"""Detection is one pass (adapters/core/detect.py): every format's claim on a document is asked
once; a document no format claims is refused naming the format it comes closest to and
what it lacks (adapters/core/claims.py; docs/adapters.md, "How a format is detected")."""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness import adapters
from agent_reliability_harness.adapters import to_canonical
from agent_reliability_harness.adapters.core import detect as _detect
from agent_reliability_harness.adapters.core import registry as _registry
from agent_reliability_harness.adapters.core.claims import MARKS, closest
from agent_reliability_harness.adapters.core.registry import declared_adapter
from agent_reliability_harness.errors import AdapterError, InputError
from agent_reliability_harness.io import decode_json_bytes

FIX = Path(__file__).resolve().parent / "fixtures"
DOCUMENTS = sorted(p for p in FIX.rglob("*.json") if p.is_file())
_ASKED = ("detect", "detect_line", "markers")


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[str, str]]:
    """How often each format's detection functions are called (through the registry)."""
    calls: Counter[tuple[str, str]] = Counter()
    real = _registry._Late.__call__

    def counted(self: Any, *args: Any) -> Any:
        if self.attr in _ASKED:
            calls[(self.module, self.attr)] += 1
        return real(self, *args)

    monkeypatch.setattr(_registry._Late, "__call__", counted)
    return calls


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(FIX)))
def test_each_claim_is_asked_once_per_document(path: Path, asked: Counter[tuple[str, str]]) -> None:
    value = decode_json_bytes(path.read_bytes())
    adapters.export_kind(value)  # as the pipeline asks of a JSONL line before converting it
    with contextlib.suppress(AdapterError):
        to_canonical(value, "auto", "t")
    assert asked and max(asked.values()) == 1, asked.most_common(3)


def test_a_document_changed_after_conversion_is_scanned_again() -> None:
    value: dict[str, Any] = {"hello": "world"}
    with pytest.raises(AdapterError, match="no format-specific field"):
        to_canonical(value)
    value.clear()
    value.update({"messages": [{"role": "tool", "tool_call_id": "c", "content": "x"}]})
    assert adapters.detect(value).name == "openai-chat"


_EVENTS = [{"source": "agent", "action": "run", "args": {"command": "ls"}}]
_CLOSEST = "closest is 'openhands' (has 'action', 'source') but it lacks 'observation', 'id'"


def test_auto_refusal_names_the_closest_format_and_what_it_lacks() -> None:
    with pytest.raises(AdapterError) as caught:
        to_canonical(_EVENTS)
    assert str(caught.value).startswith(f"unrecognised input format: {_CLOSEST}; pass --format")


def test_an_ill_fitting_format_says_the_same() -> None:
    value = {"history": [{"model_output": {"action": []}}]}
    with pytest.raises(AdapterError) as caught:
        to_canonical(value, "openhands")
    assert str(caught.value) == (
        "not an openhands transcript: $: expected OpenHands events or evaluation records; "
        "closest is 'browser-use' (has 'history', 'model_output') "
        "but it lacks 'result', 'state'"
    )


@pytest.mark.parametrize(
    "value",
    [
        {"hello": "world"},
        42,
        {"messages": [{"role": "user", "content": "hi"}]},
        [{"id": 1, "source": "user", "type": "user"}],  # common keys alone say nothing
    ],
)
def test_plain_documents_are_close_to_no_format(value: Any) -> None:
    assert closest(value) is None
    with pytest.raises(AdapterError, match="no format-specific field found"):
        to_canonical(value)


def test_of_equals_the_earlier_format_is_closest() -> None:
    # `resourceSpans` + `scopeSpans`: openinference and otel-genai have two each.
    assert closest({"resourceSpans": [{"scopeSpans": 1}]}) == (
        "closest is 'openinference' (has 'resourceSpans', 'scopeSpans') "
        "but it lacks 'openinference.span.kind'"
    )


def test_markers_are_declared_for_every_transcript_format_in_registry_order() -> None:
    assert list(MARKS) == [row.name for row in _registry.TRANSCRIPTS]
    assert [a.name for a in adapters.ENVELOPES] == list(_registry.ENVELOPE_ORDER)


# ARH_REAL_RUNS: the real-runs folder, for a checkout that is not beside shared/ (a worktree).
REAL = Path(
    os.environ.get("ARH_REAL_RUNS")
    or Path(__file__).resolve().parents[2] / ".." / "shared" / "real-runs"
)


def _documents(path: Path) -> list[Any]:
    """The decoded documents of a JSON or JSONL file (each line), [] if it is neither."""
    data = path.read_bytes()
    try:
        return [decode_json_bytes(data)]
    except InputError:
        found: list[Any] = []
        for raw in data.splitlines():
            with contextlib.suppress(InputError):
                found.append(decode_json_bytes(raw))
        return found


def _gates_hold(paths: list[Path]) -> None:
    modules = {row.name: declared_adapter(row.module) for row in _registry.TRANSCRIPTS}
    for path in paths:
        for value in _documents(path):
            for row in _registry.TRANSCRIPTS:
                if modules[row.name].detect(value):
                    assert _detect.Scan(value).gate_open(adapters.BY_NAME[row.name]), (
                        row.name,
                        str(path),
                    )


def test_every_declared_gate_lets_through_what_its_detect_claims_in_the_fixtures() -> None:
    _gates_hold(sorted(p for p in FIX.rglob("*") if p.suffix in (".json", ".jsonl", ".traj")))


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/real-runs is absent")
def test_every_declared_gate_lets_through_what_its_detect_claims_in_real_runs() -> None:
    suffixes = (".json", ".jsonl", ".traj", ".af")
    _gates_hold(sorted(p for p in REAL.rglob("*") if p.suffix in suffixes and p.is_file()))


@pytest.mark.parametrize(
    ("value", "shut"),
    [
        ({"messages": []}, {"claude-code", "codex-cli", "atif", "inspect", "letta"}),
        ([{"role": "user"}], {"swe-agent", "atif", "browser-use", "letta", "inspect"}),
        ("text", {"claude-code", "swe-agent", "inspect", "letta", "gemini-stream"}),
    ],
)
def test_a_shut_gate_asks_no_detect(
    value: Any, shut: set[str], asked: Counter[tuple[str, str]]
) -> None:
    scan = _detect.Scan(value)
    assert not any(scan.claims(adapters.BY_NAME[name]) for name in shut)
    modules = {row.module for row in _registry.TRANSCRIPTS if row.name in shut}
    assert not any(module in modules for module, _ in asked)
