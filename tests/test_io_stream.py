"""Incremental reading and the fast decoder agree with the strict, whole-input path."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness.errors import InputError
from agent_reliability_harness.inputs import iter_documents
from agent_reliability_harness.io import (
    Document,
    Failure,
    _looks_like_jsonl,
    decode_bytes,
    decode_json,
    decode_json_bytes,
    iter_jsonl,
    read_document,
)

pytestmark = pytest.mark.slow  # an equivalence oracle (see pyproject.toml)

EDGE_CASES = [
    b"NaN",
    b"[Infinity]",
    b"-Infinity",
    b"1e400",
    b"[-1e400]",
    b"123456789012345678901234567890",
    b"-9223372036854775809",
    b"1" + b"0" * 4300,
    b"1" + b"0" * 4400,
    b'"\\ud800"',
    b'"x\\udc00y"',
    b'"\\ud83d\\ude00"',
    b'{"a": 1, "a": 2}',
    b"[" * 300 + b"]" * 300,
    b"[" * 995 + b"]" * 995,
    b"[" * 5000 + b"]" * 5000,
    b'"\xed\xa0\x80"',
    b'"\xff"',
    b'"\xc0\x80"',
    b"\xef\xbb\xbf{}",
    b'"a\x01"',
    b'{"a": 1} x',
    b"[1,]",
    b"  {} \r\n",
    b"-0.0",
    b"0.1e-400",
    b'"\x7f\\u0000"',
    b"",
    b"\x0c{}",
    b'{"k": 1.7976931348623157e308, "j": 2.2250738585072014e-308}',
]


def _strict(data: bytes) -> object:
    try:
        return ("ok", decode_json(decode_bytes(data)))
    except InputError as exc:
        return ("error", str(exc))


def _fast(data: bytes) -> object:
    try:
        return ("ok", decode_json_bytes(data))
    except InputError as exc:
        return ("error", str(exc))


@pytest.mark.parametrize("data", EDGE_CASES)
def test_fast_decoder_agrees_with_strict_path(data: bytes) -> None:
    fast, strict = _fast(data), _strict(data)
    assert repr(fast) == repr(strict)


@pytest.mark.parametrize("depth", range(960, 1030, 3))
def test_fast_decoder_agrees_at_the_nesting_limit(depth: int) -> None:
    for data in (b"[" * depth + b"]" * depth, b'{"a":' * depth + b"1" + b"}" * depth):
        assert repr(_fast(data)) == repr(_strict(data))
        assert repr(_nested(lambda d=data: _fast(d), 20)) == repr(
            _nested(lambda d=data: _strict(d), 20)
        )


def _nested(call: Any, frames: int) -> object:
    return call() if frames <= 0 else _nested(call, frames - 1)


def test_read_document_start_line_and_errors() -> None:
    for data in (b"\n\n  \t{}", b"\xef\xbb\xbf\r\n[1]", b"{}", b"\n\nNaN"):
        try:
            fast = read_document(data, "f")
        except InputError as exc:
            with pytest.raises(InputError, match=str(exc).replace("(", r"\(").replace(")", r"\)")):
                read_document(data, "f", keep_text=True)
            continue
        slow = read_document(data, "f", keep_text=True)
        assert (fast.value, fast.start_line) == (slow.value, slow.start_line)


def _reference_stdin(data: bytes) -> list[Document | Failure]:
    """What standard input gave when it was read whole."""
    if _looks_like_jsonl(data):
        return list(iter_jsonl(data.splitlines(keepends=True), "<stdin>"))
    try:
        return [read_document(data, "<stdin>")]
    except InputError as exc:
        return [Failure("<stdin>", str(exc))]


STDIN_CASES = [
    b'{"a": 1}\n{"b": 2}\n',
    b'\n\n{"a": 1}\n\n{x\r{"c": 3}\r\n{"d": 4}',
    b'{"a": 1}\r{"b": 2}\r',
    b'{"a": 1}\n',
    b'{"a":\n 1}\n',
    b"[1,\n2]",
    b'{bad\n{"a": 1}\n',
    b"",
    b"   \n  ",
    b'\xef\xbb\xbf{"a": 1}\n{"b": 2}',
]


class _LineOnly(io.BytesIO):
    """Standard input that must be read line by line once it is known to be JSONL."""

    def __init__(self, data: bytes, jsonl: bool) -> None:
        super().__init__(data)
        self.jsonl = jsonl

    def read(self, size: int | None = -1) -> bytes:
        assert not self.jsonl, "JSONL on standard input must not be read whole"
        return super().read(size)


@pytest.mark.parametrize("data", STDIN_CASES)
def test_stdin_streaming_matches_whole_read(data: bytes) -> None:
    stdin = _LineOnly(data, _looks_like_jsonl(data))
    assert list(iter_documents(["-"], stdin=stdin)) == _reference_stdin(data)


def test_jsonl_file_is_read_line_by_line(tmp_path: Path) -> None:
    lines = [json.dumps({"n": n}) for n in range(5)]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(["", *lines[:2], "  ", "{oops", *lines[2:]]) + "\n")
    got = [(d.line, getattr(d, "value", None)) for d in iter_documents([str(path)])]
    assert got == [
        (2, {"n": 0}),
        (3, {"n": 1}),
        (5, None),
        (6, {"n": 2}),
        (7, {"n": 3}),
        (8, {"n": 4}),
    ]
