"""Reading inputs: files, directories, JSONL and standard input into JSON documents.

Decoding is strict and bounded: invalid UTF-8, NaN/Infinity, numbers out of
range, lone surrogates and runaway nesting all become InputError with a
position. Nothing here knows what a trace is.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from .errors import InputError

STDIN = "-"
STDIN_NAME = "<stdin>"
TRACE_SUFFIXES = (".json", ".jsonl")
JSONL_SUFFIXES = (".jsonl", ".ndjson")
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class Document:
    """One decoded JSON value and where it came from."""

    source_path: str
    value: Any
    line: int | None = None  # JSONL line number (1-based)
    start_line: int = 1  # line where the value starts in its file
    text: str | None = None  # the decoded text, kept only when asked for


@dataclass(frozen=True, slots=True)
class Failure:
    """An input that could not be decoded."""

    source_path: str
    message: str
    line: int | None = None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON (only finite numbers are allowed)")


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:40]} is out of range")
    return value


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_parse_float)


def _lone_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def decode_json(text: str) -> Any:
    """Decode one JSON value strictly; raises InputError naming line and column."""
    try:
        value = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except RecursionError:
        raise InputError("invalid JSON: nesting is too deep") from None
    except ValueError as exc:
        detail = str(exc)
        if "integer string conversion" in detail:
            detail = "a number has too many digits"
        raise InputError(f"invalid JSON: {detail}") from None
    if ("\\ud" in text or "\\uD" in text) and _lone_surrogate(value):
        raise InputError("invalid JSON: a string contains a lone surrogate (\\ud800-\\udfff)")
    return value


def decode_bytes(data: bytes) -> str:
    """Strict UTF-8 (an initial byte-order mark is allowed); raises InputError."""
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"not valid UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start} (line {line})"
        ) from None


def display_path(path: str | os.PathLike[str]) -> str:
    """A stable, machine-independent name for a path: relative to the working directory."""
    if str(path) == STDIN:
        return STDIN_NAME
    pure = PurePath(path)
    if pure.is_absolute():
        with contextlib.suppress(ValueError):
            pure = pure.relative_to(Path.cwd())
    return pure.as_posix()


def _first_line(text: str) -> int:
    stripped = len(text) - len(text.lstrip())
    return text.count("\n", 0, stripped) + 1


def read_document(data: bytes, name: str, keep_text: bool = False) -> Document:
    """Decode a whole file as one JSON value."""
    text = decode_bytes(data)
    return Document(
        name, decode_json(text), start_line=_first_line(text), text=text if keep_text else None
    )


def iter_jsonl(
    lines: Iterable[bytes], name: str, keep_text: bool = False
) -> Iterator[Document | Failure]:
    """One document per non-blank line; a bad line fails alone."""
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            text = decode_bytes(raw)
            yield Document(
                name,
                decode_json(text),
                line=number,
                start_line=number,
                text=text if keep_text else None,
            )
        except InputError as exc:
            yield Failure(name, str(exc), line=number)


def _looks_like_jsonl(data: bytes) -> bool:
    """Standard input: several JSON values, one per line, rather than one document."""
    first = data.lstrip()[:1]
    if first != b"{":
        return False
    lines = [line for line in data.splitlines() if line.strip()]
    if len(lines) < 2:
        return False
    try:
        json.loads(lines[0])
    except (ValueError, RecursionError):
        return False
    return True


def expand_paths(paths: Iterable[str]) -> Iterator[tuple[str, Path | None, str | None]]:
    """(display name, file path or None for stdin, problem) per input file, directories walked."""
    for raw in paths:
        if raw == STDIN:
            yield STDIN_NAME, None, None
            continue
        path = Path(raw)
        if path.is_dir():
            found = sorted(
                (p for p in path.rglob("*") if p.suffix in TRACE_SUFFIXES and p.is_file()),
                key=lambda p: p.relative_to(path).parts,
            )
            if not found:
                yield display_path(raw), None, "directory contains no *.json or *.jsonl files"
            for file in found:
                yield display_path(file), file, None
        elif path.exists():
            yield display_path(raw), path, None
        else:
            yield display_path(raw), None, "no such file or directory"


def iter_documents(
    paths: Iterable[str], stdin: Any = None, keep_text: bool = False
) -> Iterator[Document | Failure]:
    """Every JSON document of the given inputs, in order; failures in place of bad ones."""
    for name, path, problem in expand_paths(paths):
        if problem is not None:
            yield Failure(name, problem)
            continue
        try:
            if path is None:
                data = stdin.read() if stdin is not None else b""
                if _looks_like_jsonl(data):
                    yield from iter_jsonl(data.splitlines(keepends=True), name, keep_text)
                    continue
                yield read_document(data, name, keep_text)
            elif path.suffix in JSONL_SUFFIXES:
                with path.open("rb") as handle:
                    yield from iter_jsonl(handle, name, keep_text)
            else:
                data = path.read_bytes()
                try:
                    document = read_document(data, name, keep_text)
                except InputError:
                    # The OpenTelemetry Collector's file exporter writes one JSON object per
                    # line into a `.json` file: read such a file as JSON Lines.
                    if not _looks_like_jsonl(data):
                        raise
                    yield from iter_jsonl(data.splitlines(keepends=True), name, keep_text)
                    continue
                yield document
        except InputError as exc:
            yield Failure(name, str(exc))
        except OSError as exc:
            yield Failure(name, f"cannot read: {exc.strerror or exc}")
