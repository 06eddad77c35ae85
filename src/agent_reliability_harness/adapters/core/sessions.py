"""Session formats: one file is one run, written one record per line (coding-agent session
logs). The walk over a session's records, the same whether they come from the lines of a
JSONL file (`convert_lines`) or from a JSON array of them (`convert`, `arh convert`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from .base import Adapter
from .common import fail


class Session(Protocol):
    """One session being read: each record in order, then the traces it holds."""

    def feed(self, at: str, record: Any) -> None: ...

    def finish(self) -> list[dict[str, Any]]: ...


def array_records(value: list[Any]) -> Iterator[tuple[str, Any]]:
    """(location, record) of a session given as a JSON array of its lines."""
    for index, record in enumerate(value):
        yield f"[{index}]", record


def line_records(lines: Iterable[tuple[int, Any]]) -> Iterator[tuple[str, Any]]:
    """(location, record) of a session read from a JSON Lines file, one line at a time."""
    for number, record in lines:
        yield f"line {number}", record


def read(session: Session, records: Iterable[tuple[str, Any]]) -> list[dict[str, Any]]:
    for at, record in records:
        session.feed(at, record)
    return session.finish()


def session_adapter(
    name: str,
    description: str,
    *,
    start: Callable[[str], Session],
    detect: Callable[[Any], bool],
    detect_line: Callable[[Any], bool],
    single: Callable[[Any], bool] | None = None,
) -> Adapter:
    """The Adapter of a session format: `start(name_hint)` opens a session; `detect_line`
    claims a file by its first line, `detect` a decoded document (the array form); a
    document that `single` accepts is one whole-session record (`$`)."""

    def convert(value: Any, name_hint: str) -> list[Any]:
        if isinstance(value, list):
            return list(read(start(name_hint), array_records(value)))
        if single is not None and single(value):
            return list(read(start(name_hint), [("$", value)]))
        raise fail("$", f"expected the {name} session's lines as a JSON array")

    def convert_lines(lines: Iterable[tuple[int, Any]], name_hint: str) -> list[Any]:
        return list(read(start(name_hint), line_records(lines)))

    return Adapter(
        name=name,
        description=description,
        detect=detect,
        convert=convert,
        detect_line=detect_line,
        convert_lines=convert_lines,
    )


__all__ = ["Session", "array_records", "line_records", "read", "session_adapter"]
