"""The HTML report as a stream: one self-contained page, written a trace at a time.

Each trace becomes one inert JSON block as it arrives (its body is rendered by the
page only when opened); the compact index rows wait in a spool until `finish`,
which writes the index, the summary and the page's script. Nothing is fetched.
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from html import escape
from importlib.resources import files
from typing import IO, Any, TextIO

from ...compare.model import Gate, RunSide, TraceComparison
from ...models.report import InputFailure, Summary, TraceReport
from ...rules import all_rules
from .._text import rule_url
from ..base import RenderOptions
from .encode import SEVERITIES, STEP_FIELDS, EmbedLimits, script_json
from .fragments import TraceFragment, TraceInput, compare_fragment, run_fragment
from .sections import HtmlTable

FORMAT = "arh-html/1"


# The page's script, in parts small enough to read; they share one strict scope.
_SCRIPT_PARTS = ("1-base.js", "2-list.js", "3-trace.js", "4-page.js")


@cache
def _asset(*path: str) -> str:
    return files(__package__).joinpath("assets", *path).read_text(encoding="utf-8")


@cache
def _script() -> str:
    body = "".join(_asset("js", part) for part in _SCRIPT_PARTS)
    return "(() => {\n  'use strict';\n" + body + "})();\n"


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def _policy_header(css: str, js: str) -> str:
    """Nothing but the page's own script and style may run or load: even markup that
    got into the page could not execute or reach the network."""
    return (
        "default-src 'none'; "
        f"script-src 'sha256-{_sha256(js)}'; "
        f"style-src 'sha256-{_sha256(css)}'; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


class _Spool:
    """JSON texts joined by a separator, in memory for small runs and on disk past 8 MB."""

    def __init__(self, separator: str) -> None:
        self.separator = separator
        self.empty = True
        self.file: IO[str] = tempfile.SpooledTemporaryFile(  # noqa: SIM115 - closed in copy_to
            max_size=8 << 20, mode="w+", encoding="utf-8", newline="\n"
        )

    def append(self, text: str) -> None:
        self.file.write(text if self.empty else self.separator + text)
        self.empty = False

    def copy_to(self, out: TextIO) -> None:
        self.file.seek(0)
        shutil.copyfileobj(self.file, out, 1 << 20)
        self.file.close()


class _Document:
    """The page skeleton, the per-trace blocks and the spooled index rows."""

    def __init__(self, out: TextIO, kind: str, title: str, options: RenderOptions) -> None:
        self.out = out
        self.kind = kind
        self.options = options
        self.count = 0
        self.rules: set[str] = set()
        self.rows = _Spool(",\n")
        self.failures = _Spool(",")
        css, js = _asset("report.css"), _script()
        self.js = js
        out.write(
            "<!DOCTYPE html>\n"
            '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{_policy_header(css, js)}">\n'
            f'<meta name="generator" content="arh {escape(options.tool_version)}">\n'
            f"<title>{escape(title)}</title>\n<style>{css}</style>\n</head>\n<body>\n"
            '<noscript><p class="noscript">This report is drawn by the JavaScript it '
            "contains; allow scripts for this file to see it.</p></noscript>\n"
            '<div id="app"></div>\n'
        )

    def add_fragment(self, fragment: TraceFragment) -> None:
        """A trace rendered elsewhere (run_fragment / compare_fragment), in input order."""
        self.rules.update(fragment.rules)
        self.out.write(
            f'<script type="application/json" id="d{self.count}">{fragment.block}</script>\n'
        )
        self.rows.append(fragment.row)
        self.count += 1

    def add_failure(self, failure: InputFailure) -> None:
        """An input that could not be read; listed in the page's summary."""
        self.failures.append(script_json(failure.to_dict()))

    def _end(self, head: Mapping[str, Any], sections: Sequence[HtmlTable]) -> None:
        rules = {
            rule.rule_id: {"title": rule.title, "url": rule_url(rule.rule_id)}
            for rule in all_rules()
            if rule.rule_id in self.rules
        }
        index = {
            "format": FORMAT,
            "kind": self.kind,
            "tool_version": self.options.tool_version,
            "step_fields": list(STEP_FIELDS),
            "severities": list(SEVERITIES),
            **head,
            "rules": dict(sorted(rules.items())),
            "sections": [table.to_value() for table in sections],
        }
        out = self.out
        out.write(f'<script type="application/json" id="arh-index">{script_json(index)[:-1]}')
        out.write(',"input_errors":[')
        self.failures.copy_to(out)
        out.write('],"traces":[\n')
        self.rows.copy_to(out)
        out.write("\n]}</script>\n" if not self.rows.empty else "]}</script>\n")
        out.write(f"<script>{self.js}</script>\n</body>\n</html>\n")


class HtmlReportWriter(_Document):
    """`--html-out` for a validate run, fed as results arrive:

        writer = HtmlReportWriter(out, policy_id, options)
        for report, trace in pairs:
            writer.add(report, trace)          # trace: Trace, canonical dict or None
        writer.finish(summary, input_errors)

    Holds no trace body: each is written to `out` at once (`add_fragment` takes one
    rendered by `run_fragment` elsewhere, e.g. in a worker). The bytes depend only on
    the arguments (same inputs, same file).
    """

    def __init__(
        self,
        out: TextIO,
        policy_id: str,
        options: RenderOptions | None = None,
        limits: EmbedLimits | None = None,
    ) -> None:
        super().__init__(out, "run", f"ARH report: policy {policy_id}", options or RenderOptions())
        self.policy_id = policy_id
        self.limits = limits or EmbedLimits()

    def add(self, report: TraceReport, trace: TraceInput = None) -> None:
        """One trace's verdict and (when given) the trace it was made from."""
        self.add_fragment(run_fragment(report, trace, self.limits))

    def finish(
        self,
        summary: Summary,
        input_errors: Iterable[InputFailure] = (),
        sections: Sequence[HtmlTable] = (),
    ) -> None:
        """Write the index, summary and script; the page is complete after this."""
        for failure in input_errors:
            self.add_failure(failure)
        self._end({"policy_id": self.policy_id, "summary": summary.to_dict()}, sections)


class HtmlCompareWriter(_Document):
    """`--html-out` for `arh compare`: per trace its new, fixed and unchanged findings,
    pinned on the candidate's steps when the candidate trace is given."""

    def __init__(
        self, out: TextIO, options: RenderOptions | None = None, limits: EmbedLimits | None = None
    ) -> None:
        super().__init__(out, "compare", "ARH comparison", options or RenderOptions())
        self.limits = limits or EmbedLimits()

    def add(self, item: TraceComparison, trace: TraceInput = None) -> None:
        """One compared trace, with the candidate's trace when there is one."""
        self.add_fragment(compare_fragment(item, trace, self.limits))

    def finish(
        self,
        gate: Gate,
        baseline: RunSide,
        candidate: RunSide,
        summary: Mapping[str, Any],
        sections: Sequence[HtmlTable] = (),
    ) -> None:
        head = {
            "policy_id": candidate.policy_id,
            "gate": gate.to_dict(),
            "baseline": baseline.to_dict(),
            "candidate": candidate.to_dict(),
            "summary": dict(summary),
        }
        self._end(head, sections)
