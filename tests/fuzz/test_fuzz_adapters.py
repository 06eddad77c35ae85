"""Fuzz targets: every registered adapter (random edits of its own fixtures, other
formats' fixtures and random JSON, as a document and as session lines) and format
detection. An input is converted or refused with InputError, never anything else, and a
trace an adapter builds is either a canonical trace or refused by the parser."""

from __future__ import annotations

import contextlib
from functools import cache
from typing import Any

from fuzzing import FIXTURES, JSON_VALUES, edited_json, fuzz, to_json
from hypothesis import given
from hypothesis import strategies as st

from agent_reliability_harness import adapters
from agent_reliability_harness.adapters import ADAPTERS, AUTO, Adapter, Identity
from agent_reliability_harness.errors import InputError
from agent_reliability_harness.io import Document, decode_json_bytes
from agent_reliability_harness.models.report import InputFailure
from agent_reliability_harness.models.trace import parse_trace
from agent_reliability_harness.pipeline import Loaded, Reader


@cache
def _fixtures(name: str) -> tuple[Any, ...]:
    """Decoded fixture documents of one format (a JSONL file: the list of its lines)."""
    found: list[Any] = []
    for path in sorted((FIXTURES / name).glob("*")):
        data = path.read_bytes()
        try:
            found.append(decode_json_bytes(data))
        except InputError:
            found.append([_line(line) for line in data.splitlines() if line.strip()])
    return tuple(found)


def _line(raw: bytes) -> Any:
    try:
        return decode_json_bytes(raw)
    except InputError:
        return raw.decode("utf-8", "replace")


@cache
def _every_fixture() -> tuple[Any, ...]:
    return tuple(value for a in ADAPTERS for value in _fixtures(a.name))


def _convert(adapter: Adapter | None, value: Any) -> list[Any]:
    try:
        return adapters.to_canonical(value, adapter.name if adapter else AUTO, "fuzz")
    except InputError:
        return []


def _session(adapter: Adapter, lines: list[Any]) -> list[Any]:
    try:
        return adapters.convert_session(adapter, list(enumerate(lines, start=1)), "fuzz")
    except InputError:
        return []


def _parsed(traces: list[Any]) -> None:
    for trace in traces:
        try:
            parse_trace(trace)
        except InputError:
            continue
    to_json(traces)  # whatever an adapter builds can be written as JSON


@st.composite
def _case(draw: st.DrawFn) -> tuple[Adapter, Any]:
    adapter = draw(st.sampled_from(ADAPTERS))
    own = _fixtures(adapter.name)
    value = draw(
        st.one_of(
            edited_json(own) if own else JSON_VALUES,
            edited_json(_every_fixture()),
            JSON_VALUES,
        )
    )
    return adapter, value


@fuzz(examples=60)
@given(case=_case())
def test_fuzz_adapters(case: tuple[Adapter, Any]) -> None:
    adapter, value = case
    _parsed(_convert(adapter, value))
    if adapter.convert_lines is not None:
        lines = value if isinstance(value, list) else [value]
        _parsed(_session(adapter, lines))
    with contextlib.suppress(InputError):
        _parsed(adapters.to_canonical(value, adapter.name, "x", Identity("id", "a", "w")))


@fuzz()
@given(value=st.one_of(edited_json(_every_fixture()), JSON_VALUES))
def test_fuzz_detection(value: Any) -> None:
    try:
        found = adapters.detect(value)
    except InputError:
        found = None
    claimed = adapters.claimants(value)
    assert found is None or found is adapters.BY_NAME["arh"] or found in claimed
    adapters.export_kind(value)
    _parsed(_convert(None, value))
    items = list(Reader().traces(Document("fuzz.json", value)))
    assert all(isinstance(item, Loaded | InputFailure) for item in items)
