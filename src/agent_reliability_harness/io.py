"""The io stage's base: strict JSON decoding and names as reports show them.

Decoding is strict and bounded: invalid UTF-8, NaN/Infinity, numbers out of range,
lone surrogates and runaway nesting all become InputError naming line and column
(json_problems.py words them). Reading is reading.py (the one bounded read path),
walking inputs into units inputs/, writing reports atomic.py. Nothing here knows what
a trace is.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from .errors import InputError
from .json_problems import first_problem, utf8_position
from .nesting import within

STDIN = "-"
STDIN_NAME = "<stdin>"
TRACE_SUFFIXES = (".json", ".jsonl")
JSONL_SUFFIXES = (".jsonl", ".ndjson")
_BOM = b"\xef\xbb\xbf"


class Document(msgspec.Struct, frozen=True):
    """One decoded JSON value and where it came from."""

    source_path: str
    value: Any
    line: int | None = None  # JSONL line number (1-based)
    start_line: int = 1  # line where the value starts in its file
    text: str | None = None  # the decoded text, kept only when asked for


class Failure(msgspec.Struct, frozen=True):
    """An input that could not be decoded."""

    source_path: str
    message: str
    line: int | None = None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON, only finite numbers are allowed")


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


def check_depth(data: bytes | str) -> None:
    """Raise InputError when valid JSON text nests deeper than MAX_DEPTH (nesting.py)."""
    if not within(data):
        text = data if isinstance(data, str) else data.decode("utf-8", "replace")
        raise InputError(_refusal(text, "nesting is too deep"))


def _refusal(text: str, fallback: str) -> str:
    """`invalid JSON: <what> (line L, column C)` for the first value of an otherwise
    well-formed text that strict JSON refuses (`fallback` if none is found)."""
    found = first_problem(text)
    return f"invalid JSON: {found or fallback}"


def decode_json(text: str) -> Any:
    """Decode one JSON value strictly; raises InputError naming line and column."""
    try:
        value = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except RecursionError:
        raise InputError(_refusal(text, "nesting is too deep")) from None
    except ValueError as exc:
        detail = str(exc)
        if "integer string conversion" in detail:
            detail = "a number has too many digits"
        raise InputError(_refusal(text, detail)) from None
    if ("\\ud" in text or "\\uD" in text) and _lone_surrogate(value):
        raise InputError(_refusal(text, "a string contains a lone surrogate"))
    check_depth(text)
    return value


def decode_bytes(data: bytes) -> str:
    """Strict UTF-8 (an initial byte-order mark is allowed); raises InputError."""
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = utf8_position(data, exc.start)
        raise InputError(
            f"not valid UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start} "
            f"(line {line}, column {column})"
        ) from None


_URL_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def is_url(raw: str) -> bool:
    """Whether an argument names a URL (`scheme://...`) rather than a local path."""
    return _URL_SCHEME.match(raw) is not None


def shown_name(name: str) -> str:
    """A file name as every report shows it and trace ids derive from it: a name that is
    not valid UTF-8 (bytes the filesystem gave as surrogate escapes) has each such byte
    as the four characters `\\xNN`, so it can be written anywhere and stays distinct."""
    if name.isascii():
        return name
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        try:
            raw = name.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a surrogate no file system gave: escape it as such
            return name.encode("utf-8", "backslashreplace").decode("utf-8")
        return raw.decode("utf-8", "backslashreplace")
    return name


EMPTY_NAME = "''"


def display_path(path: str | os.PathLike[str], cwd: str | None = None) -> str:
    """A stable, machine-independent name for a path: relative to the working directory
    (`cwd`, looked up when not given), with `shown_name`'s escapes; a URL as given
    (`scheme://` intact)."""
    text = os.fspath(path)
    if text == STDIN:
        return STDIN_NAME
    if text == "":
        return EMPTY_NAME
    if is_url(text):
        return text
    if os.sep != "/":  # pathlib knows drives and backslashes
        from pathlib import Path, PurePath  # noqa: PLC0415

        pure = PurePath(text)
        if pure.is_absolute():
            with contextlib.suppress(ValueError, OSError):
                pure = pure.relative_to(cwd if cwd is not None else Path.cwd())
        return shown_name(pure.as_posix())
    return shown_name(_relative_posix(text, cwd))


def _posix_parts(text: str) -> tuple[str, list[str]]:
    """A POSIX path as pathlib's PurePosixPath parses it: the root (`//` for exactly two
    leading slashes, `/` for any other number, else none) and the parts, without empty
    and `.` ones."""
    rest = text.lstrip("/")
    leading = len(text) - len(rest)
    root = "" if leading == 0 else "//" if leading == 2 else "/"
    return root, [part for part in rest.split("/") if part and part != "."]


def _relative_posix(text: str, cwd: str | None) -> str:
    """`PurePosixPath(text)`, relative to `cwd` (default: the working directory) when it
    is inside it, `.as_posix()`: what display_path gave through pathlib, without
    importing it (pathlib imports urllib.parse and ipaddress: ~2 ms per process).
    tests/test_display_path.py holds the two to the same result."""
    root, parts = _posix_parts(text)
    if root:
        try:
            base_root, base = _posix_parts(os.getcwd() if cwd is None else cwd)
        except OSError:  # the working directory is gone: the path as it is
            base_root, base = "", []
        if base_root == root and parts[: len(base)] == base:
            root, parts = "", parts[len(base) :]
    return root + "/".join(parts) or "."


def _first_line(text: str) -> int:
    stripped = len(text) - len(text.lstrip())
    return text.count("\n", 0, stripped) + 1


def read_document(data: bytes, name: str, keep_text: bool = False) -> Document:
    """Decode a whole file as one JSON value."""
    if keep_text:
        text = decode_bytes(data)
        return Document(name, decode_json(text), start_line=_first_line(text), text=text)
    value = decode_json_bytes(data)
    return Document(name, value, start_line=start_line(data))


def start_line(data: bytes) -> int:
    """The line where the JSON value of a valid document starts (1-based)."""
    # A valid document starts with JSON whitespace only, so the byte count is the line.
    start = len(_BOM) if data.startswith(_BOM) else 0
    end = _LEADING_SPACE.match(data, start).end()  # type: ignore[union-attr]
    return data.count(b"\n", start, end) + 1


# The fast decoder (msgspec) agrees with the strict path: it rejects NaN/Infinity,
# out-of-range numbers, lone surrogates and bad UTF-8 (the strict path then gives the
# exact message), keeps big integers exact and keeps the last of duplicate keys like
# json does; both refuse nesting beyond MAX_DEPTH (check_depth).
_LEADING_SPACE = re.compile(rb"[ \t\n\r]*")
_FAST: dict[str, Any] = {}


def _fast_decoder() -> Any:
    """The msgspec decoder, imported on first use (not at `arh --version`); False if absent."""
    decoder = _FAST.get("json")
    if decoder is None:
        try:
            import msgspec.json  # noqa: PLC0415 - heavy import, only when decoding
        except ImportError:  # pragma: no cover - msgspec is a dependency
            decoder = False
        else:
            decoder = msgspec.json.Decoder()
        _FAST["json"] = decoder
    return decoder


def decode_json_bytes(data: bytes) -> Any:
    """`decode_json(decode_bytes(data))`, the same value or error, faster when possible."""
    decoder = _fast_decoder()
    if decoder:
        try:
            value = decoder.decode(data)
        except Exception:  # any refusal: the strict path names the exact problem
            pass
        else:
            if within(data):
                return value
    return decode_json(decode_bytes(data))


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
