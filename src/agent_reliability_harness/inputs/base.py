"""The kinds of input unit: what one worker decodes at a time (a JSONL line, a whole
document, a range of JSONL lines, a session file). Read by inputs/units.py and
inputs/stdin.py; nothing here reads anything."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..io import Failure
from .walk import Location


@dataclass(frozen=True, slots=True)
class RawUnit:
    """One input not decoded yet: a JSONL line (`line` set) or a whole document.

    A whole file is carried by path (`data` None) so that whoever decodes it reads
    it: a worker process, not the process that walks the inputs.
    """

    source_path: str
    data: bytes | None
    line: int | None = None
    path: Location | None = None
    hint: str = ""  # what trace ids derived from the file name start from

    @property
    def size(self) -> int:
        """Bytes of input this unit holds (0 for a file carried by path)."""
        return 0 if self.data is None else len(self.data)


@dataclass(frozen=True, slots=True)
class LineRange:
    """The JSONL lines in bytes [start, end) of a file (`end` -1: to its end), the first
    being line `line`. Cut at line starts by the process that walks the inputs and read
    by whoever processes it, so the JSONL bytes need not pass through the parent."""

    source_path: str
    path: Location
    start: int
    end: int
    line: int
    hint: str = ""

    @property
    def size(self) -> int:
        return max(self.end - self.start, 0)


@dataclass(frozen=True, slots=True)
class SessionFile:
    """A JSONL file that one adapter reads whole (`Adapter.convert_lines`: one file is one
    session), streamed line by line by whoever processes it. From standard input the
    lines come along (`lines`), as standard input cannot be read twice."""

    source_path: str
    path: Location | None
    hint: str = ""
    lines: tuple[tuple[int, bytes], ...] = ()

    @property
    def size(self) -> int:
        return sum(len(raw) for _, raw in self.lines)


Unit = RawUnit | LineRange | SessionFile | Failure
# Whether two consecutive non-blank JSONL lines must stay in one unit (span exports).
Joined = Callable[[bytes, bytes], bool]
# Whether the first non-blank line of a JSONL file makes it a session file.
Claims = Callable[[bytes], bool]
# The binary-input hook: file suffix -> the reader that turns such a file's bytes into its
# decoded documents (an Inspect `.eval` zip, OTLP protobuf), raising InputError for bytes
# it cannot read. The registry is the adapters' (`adapters.FILE_READERS`); inputs knows
# no format.
FileReaders = Mapping[str, Callable[[bytes], list[Any]]]
