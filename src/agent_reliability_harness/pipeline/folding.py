"""One error for a JSONL file none of whose lines is a format ARH reads: the lines that
fail the same way as the file's first failing line are folded into its error (counted,
with the last one's line), instead of one identical error per line."""

from __future__ import annotations

from typing import Any

from ..models.report import InputFailure

FOLDED = "unrecognised input format"


def fold_key(failure: InputFailure) -> tuple[str, str] | None:
    """What a line's failure must equal to be folded into an earlier one (None: never)."""
    if failure.line is None or not failure.message.startswith(FOLDED):
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


class PartialFolder:
    """Folds the failures of partials in input order. A partial whose failure is still
    being folded (or that came after it) is held back until the fold closes, so the
    failure reaches the sinks once, with its count."""

    def __init__(self) -> None:
        self.fold: Fold | None = None
        self.where: tuple[list[InputFailure], int] | None = None  # the fold's list, index
        self.held: list[Any] = []

    def add(self, partial: Any) -> list[Any]:
        """Fold `partial`'s failures in place; the partials that may go to the sinks now."""
        kept: list[InputFailure] = []
        for failure in partial.failures:
            if self.fold is not None and self.fold.takes(failure):
                continue
            self._close()
            kept.append(failure)
            key = fold_key(failure)
            if key is not None:
                self.fold = Fold(failure, key)
                self.where = (kept, len(kept) - 1)
        partial.failures = kept
        self.held.append(partial)
        return self._release() if self.fold is None else []

    def finish(self) -> list[Any]:
        """The partials still held back (the last fold closed)."""
        self._close()
        return self._release()

    def _close(self) -> None:
        if self.fold is not None and self.where is not None:
            failures, index = self.where
            failures[index] = self.fold.closed()
        self.fold = self.where = None

    def _release(self) -> list[Any]:
        released, self.held = self.held, []
        return released
