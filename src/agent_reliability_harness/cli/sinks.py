"""Where a validate run's results go: streaming sinks and whole-run renderers side by side.

Streaming sinks hold no per-trace state; formats that need the whole run use CollectSink."""

from __future__ import annotations

import shutil
import tempfile
from typing import IO, Protocol

from ..models.report import InputFailure, RunReport, Summary, TraceReport
from ..render import Renderer, RenderOptions
from ..render import json_stream as js
from ..render.console import summary_text
from ..stream import Batch
from .common import Streams, write_text
from .progress import Progress

# File renderers with a streaming equivalent here; the rest are rendered whole.
STREAMING = frozenset({"json"})


class Sink(Protocol):
    """Takes each Batch as it arrives, then the run's summary. Streaming sinks (console,
    JSON report, stderr errors) write as they go, so memory is flat in the number of
    traces; any renderer not in STREAMING (Markdown, JUnit, SARIF...) goes through
    CollectSink, which keeps the TraceReports and renders them at the end."""

    def add(self, batch: Batch) -> None: ...

    def finish(self, summary: Summary, failures: int) -> bool:
        """Complete the output; False when it could not be written."""
        ...


class ConsoleSink:
    """Human text on stdout, one block per trace as it arrives, then the summary line."""

    def __init__(self, io: Streams, progress: Progress) -> None:
        self.io = io
        self.progress = progress

    def add(self, batch: Batch) -> None:
        if batch.console_text:
            self.progress.clear()
            self.io.out.write(batch.console_text)

    def finish(self, summary: Summary, failures: int) -> bool:
        self.progress.clear()
        self.io.out.write(summary_text(summary, failures))
        return True


class ErrorSink:
    """`error: <where>: <what>` on stderr for each unreadable input, in input order."""

    def __init__(self, io: Streams, progress: Progress) -> None:
        self.io = io
        self.progress = progress

    def add(self, batch: Batch) -> None:
        if batch.failures:
            self.progress.clear()
        for failure in batch.failures:
            self.io.error(f"{failure.location()}: {failure.message}")

    def finish(self, summary: Summary, failures: int) -> bool:
        return True


class _Spool:
    """Array elements joined by ",\\n", kept in a temporary file rather than in memory."""

    def __init__(self) -> None:
        # Closed by copy_to (or when the run dies and the object goes away).
        self.file: IO[str] = tempfile.TemporaryFile(  # noqa: SIM115
            "w+", encoding="utf-8", newline="\n"
        )
        self.empty = True

    def append(self, fragment: str) -> None:
        self.file.write(fragment if self.empty else ",\n" + fragment)
        self.empty = False

    def copy_to(self, target: IO[str]) -> None:
        self.file.seek(0)
        shutil.copyfileobj(self.file, target, 1 << 20)
        self.file.close()


class JsonReportSink:
    """`--json-out`: byte-identical to the JSON renderer, without holding the reports.

    The summary comes first in the report but is known last, so the elements are
    spooled to temporary files and the report is assembled when the run ends.
    """

    def __init__(self, target: str, policy_id: str, io: Streams) -> None:
        self.target = target
        self.policy_id = policy_id
        self.io = io
        self.reports = _Spool()
        self.failures = _Spool()

    def add(self, batch: Batch) -> None:
        for failure in batch.failures:
            self.failures.append(js.failure_fragment(failure))
        if batch.json_text:
            self.reports.append(batch.json_text)

    def _write(self, out: IO[str], summary: Summary) -> None:
        out.write(js.head(self.policy_id, summary))
        arrays = ((self.reports, "reports", False), (self.failures, "input_errors", True))
        for spool, key, last in arrays:
            out.write(js.array_open(key, spool.empty))
            if not spool.empty:
                spool.copy_to(out)
            out.write(js.array_close(spool.empty, last))

    def finish(self, summary: Summary, failures: int) -> bool:
        if self.target == "-":
            self._write(self.io.out, summary)
            return True
        try:
            with open(self.target, "w", encoding="utf-8", newline="\n") as handle:
                self._write(handle, summary)
        except OSError as exc:
            self.io.error(f"{self.target}: cannot write: {exc.strerror or exc}")
            return False
        return True


class CollectSink:
    """Whole-run renderers: keeps every TraceReport, renders each format at the end."""

    def __init__(
        self,
        policy_id: str,
        targets: list[tuple[Renderer, str]],
        options: RenderOptions,
        io: Streams,
    ) -> None:
        self.policy_id = policy_id
        self.targets = targets
        self.options = options
        self.io = io
        self.reports: list[TraceReport] = []
        self.failures: list[InputFailure] = []

    def add(self, batch: Batch) -> None:
        self.failures.extend(batch.failures)
        self.reports.extend(batch.reports)

    def finish(self, summary: Summary, failures: int) -> bool:
        run = RunReport(self.policy_id, tuple(self.reports), tuple(self.failures), summary)
        written = True
        for renderer, target in self.targets:
            written &= write_text(target, renderer.render(run, self.options), self.io)
        return written
