"""One error for a JSONL file none of whose lines is a format ARH reads, or none of whose
lines is the format `--format` names: the lines that fail the same way as the file's
first failing line are folded into its error (counted, with the last one's line),
instead of one identical error per line."""

from __future__ import annotations

import re
from typing import Any

from ..models.report import InputFailure

FOLDED = "unrecognised input format"
# A line refused by an explicit --format: "not a(n) <format> transcript: <why>".
REFUSED = re.compile(r"not an? [a-z0-9-]+ transcript: ")


def fold_key(failure: InputFailure) -> tuple[str, str] | None:
    """What a line's failure must equal to be folded into an earlier one (None: never)."""
    if failure.line is None:
        return None
    if not failure.message.startswith(FOLDED) and not REFUSED.match(failure.message):
        return None
    return failure.source_path, failure.message


class Fold:
    """The failure being folded: the first line's, how many more and the last line."""

    __slots__ = ("count", "failure", "key", "last")

    def __init__(self, failure: InputFailure, key: tuple[str, str]) -> None:
        self.failure = failure
        self.key = key
        self.count = 0
        self.last = failure.line

    def takes(self, failure: InputFailure) -> bool:
        """Fold `failure` in when it is the same failure of a later line of the file."""
        later = failure.line is not None and self.last is not None and failure.line > self.last
        if not later or fold_key(failure) != self.key:  # not later: the file given again
            return False
        self.count += 1
        self.last = failure.line
        return True

    def closed(self) -> InputFailure:
        """The first line's failure, saying how many lines after it failed the same way."""
        if not self.count:
            return self.failure
        lines = "line" if self.count == 1 else "lines"
        message = (
            f"{self.failure.message} (and {self.count} more {lines} of the file alike,"
            f" the last at line {self.last})"
        )
        return InputFailure(self.failure.source_path, message, line=self.failure.line)


class Folder:
    """Folds a stream of failures in input order: `push` each, then `close`."""

    def __init__(self) -> None:
        self.fold: Fold | None = None

    def push(self, failure: InputFailure) -> list[InputFailure]:
        """The failures that come out once `failure` is seen (none while it is folded)."""
        if self.fold is not None and self.fold.takes(failure):
            return []
        out = [] if self.fold is None else [self.fold.closed()]
        key = fold_key(failure)
        self.fold = None if key is None else Fold(failure, key)
        if self.fold is None:
            out.append(failure)
        return out

    def close(self) -> list[InputFailure]:
        """The failure still being folded, closed (none when there is none)."""
        fold, self.fold = self.fold, None
        return [] if fold is None else [fold.closed()]


class PartialFolder:
    """Folds the failures of partials in input order. The failure being folded leaves its
    partial and goes, with its count, into the partial where the fold closes (before the
    failure that closed it), or at the end into the last one, which is held back until the
    next arrives. The failures come out in the same order whatever the partials' bounds
    (so whichever executor made them), and at most one partial waits."""

    def __init__(self) -> None:
        self.folder = Folder()
        self.held: Any = None

    def add(self, partial: Any) -> list[Any]:
        """Fold `partial`'s failures in place; the partials that may go to the sinks now."""
        partial.failures = [kept for f in partial.failures for kept in self.folder.push(f)]
        released = [] if self.held is None else [self.held]
        self.held = partial
        return released

    def finish(self) -> list[Any]:
        """The last partial, with the fold still open closed into it."""
        if self.held is None:
            return []
        self.held.failures.extend(self.folder.close())
        released, self.held = [self.held], None
        return released
