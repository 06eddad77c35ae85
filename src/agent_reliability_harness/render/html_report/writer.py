"""The HTML report as a stream: one self-contained page, written a trace at a time.

Each trace becomes one inert JSON block as it arrives (its body is rendered by the
page only when opened); blocks and compact index rows wait in spools until the end,
when the page is laid out: head, blocks, the index and summary, the page's script.
Nothing is fetched.
"""

from __future__ import annotations

import base64
import hashlib
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import cache
from html import escape
from importlib.resources import files
from typing import IO, Any, TextIO

from ...compare.model import Gate, RunSide, TraceComparison
from ...models.report import InputFailure, Summary, TraceReport
from ...rules import PLUGIN_RULES, all_rules
from .._policies import policies_label, policy_ids, several
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
    """Texts joined by a separator, in memory for small runs and on disk past 8 MB."""

    def __init__(self, separator: str) -> None:
        self.separator = separator
        self.empty = True
        self.file: IO[str] = tempfile.SpooledTemporaryFile(  # noqa: SIM115 - closed in chunks
            max_size=8 << 20, mode="w+", encoding="utf-8", newline="\n"
        )

    def append(self, text: str) -> None:
        self.file.write(text if self.empty else self.separator + text)
        self.empty = False

    def chunks(self) -> Iterator[str]:
        """What was appended, a megabyte at a time; then the spool is gone."""
        self.file.seek(0)
        try:
            while piece := self.file.read(1 << 20):
                yield piece
        finally:
            self.file.close()


class _Document:
    """The per-trace blocks and index rows, spooled as they come; `_page` lays out the
    page around them once the run is over (so the page's head may name what only the
    end of the run knows, such as every policy that judged a trace)."""

    def __init__(self, out: TextIO | None, kind: str, options: RenderOptions) -> None:
        self.out = out
        self.kind = kind
        self.options = options
        self.count = 0
        self.rules: set[str] = set()
        self.blocks = _Spool("")
        self.rows = _Spool(",\n")
        self.failures = _Spool(",")

    def add_fragment(self, fragment: TraceFragment) -> None:
        """A trace rendered elsewhere (run_fragment / compare_fragment), in input order."""
        self.rules.update(fragment.rules)
        self.blocks.append(
            f'<script type="application/json" id="d{self.count}">{fragment.block}</script>\n'
        )
        self.rows.append(fragment.row)
        self.count += 1

    def add_failure(self, failure: InputFailure) -> None:
        """An input that could not be read; listed in the page's summary."""
        self.failures.append(script_json(failure.to_dict()))

    def _page(
        self, title: str, head: Mapping[str, Any], sections: Sequence[HtmlTable]
    ) -> Iterator[str]:
        css, js = _asset("report.css"), _script()
        yield (
            "<!DOCTYPE html>\n"
            '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{_policy_header(css, js)}">\n'
            f'<meta name="generator" content="arh {escape(self.options.tool_version)}">\n'
            f"<title>{escape(title)}</title>\n<style>{css}</style>\n</head>\n<body>\n"
            '<noscript><p class="noscript">This report is drawn by the JavaScript it '
            "contains; allow scripts for this file to see it.</p></noscript>\n"
            '<div id="app"></div>\n'
        )
        yield from self.blocks.chunks()
        rules = {
            rule.rule_id: {"title": rule.title, "url": rule_url(rule.rule_id)}
            for rule in (*all_rules(), *PLUGIN_RULES.values())
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
        yield f'<script type="application/json" id="arh-index">{script_json(index)[:-1]}'
        yield ',"input_errors":['
        yield from self.failures.chunks()
        yield '],"traces":[\n'
        rows = not self.rows.empty
        yield from self.rows.chunks()
        yield "\n]}</script>\n" if rows else "]}</script>\n"
        yield f"<script>{js}</script>\n</body>\n</html>\n"

    def _write(self, pieces: Iterable[str]) -> None:
        if self.out is None:
            raise ValueError("this writer has no output: iterate its page() instead")
        for piece in pieces:
            self.out.write(piece)


def _extras(
    policy_id: str, warnings: Sequence[Mapping[str, Any]], note: str | None
) -> dict[str, Any]:
    """Index keys only some pages have (a page without them keeps its bytes): the list
    of policies of a run judged by several, the run's policy warnings, a note on what
    the page lacks."""
    out: dict[str, Any] = {}
    if several(policy_id):
        out["policies"] = list(policy_ids(policy_id))
    if warnings:
        out["policy_warnings"] = [dict(w) for w in warnings]
    if note is not None:
        out["note"] = note
    return out


class HtmlReportWriter(_Document):
    """`--html-out` for a validate run, fed as results arrive:

        writer = HtmlReportWriter(out, policy_id, options)
        for report, trace in pairs:
            writer.add(report, trace)          # trace: Trace, canonical dict or None
        writer.finish(summary, input_errors)

    Holds no trace body in memory: each is spooled (to a temporary file past 8 MB) and
    the page is written to `out` by `finish` (or taken piece by piece from `page`, with
    `out` None). `add_fragment` takes one rendered by `run_fragment` elsewhere, e.g. in
    a worker. The bytes depend only on the arguments (same inputs, same file).
    """

    def __init__(
        self,
        out: TextIO | None,
        policy_id: str,
        options: RenderOptions | None = None,
        limits: EmbedLimits | None = None,
    ) -> None:
        super().__init__(out, "run", options or RenderOptions())
        self.policy_id = policy_id
        self.limits = limits or EmbedLimits()

    def add(self, report: TraceReport, trace: TraceInput = None) -> None:
        """One trace's verdict and (when given) the trace it was made from."""
        self.add_fragment(run_fragment(report, trace, self.limits))

    def page(
        self,
        summary: Summary,
        input_errors: Iterable[InputFailure] = (),
        sections: Sequence[HtmlTable] = (),
        *,
        policy_id: str | None = None,
        warnings: Sequence[Mapping[str, Any]] = (),
        note: str | None = None,
    ) -> Iterator[str]:
        """The page, in pieces (after the last trace): `policy_id` replaces the one given
        at the start, `warnings` are the run's policy warnings ({"source", "path",
        "message"}), `note` says what the page lacks."""
        for failure in input_errors:
            self.add_failure(failure)
        policy = self.policy_id if policy_id is None else policy_id
        head = {"policy_id": policy, "summary": summary.to_dict()}
        head.update(_extras(policy, warnings, note))
        return self._page(f"ARH report: {policies_label(policy)}", head, sections)

    def finish(
        self,
        summary: Summary,
        input_errors: Iterable[InputFailure] = (),
        sections: Sequence[HtmlTable] = (),
        *,
        warnings: Sequence[Mapping[str, Any]] = (),
        note: str | None = None,
    ) -> None:
        """Write the page to `out`; it is complete after this."""
        self._write(self.page(summary, input_errors, sections, warnings=warnings, note=note))


class HtmlCompareWriter(_Document):
    """`--html-out` for `arh compare`: per trace its new, fixed and unchanged findings,
    pinned on the candidate's steps when the candidate trace is given."""

    def __init__(
        self,
        out: TextIO | None,
        options: RenderOptions | None = None,
        limits: EmbedLimits | None = None,
    ) -> None:
        super().__init__(out, "compare", options or RenderOptions())
        self.limits = limits or EmbedLimits()

    def add(self, item: TraceComparison, trace: TraceInput = None, body: str | None = None) -> None:
        """One compared trace, with the candidate's trace (or its embedded body) when
        there is one."""
        self.add_fragment(compare_fragment(item, trace, self.limits, body))

    def page(
        self,
        gate: Gate,
        baseline: RunSide,
        candidate: RunSide,
        summary: Mapping[str, Any],
        sections: Sequence[HtmlTable] = (),
        *,
        warnings: Sequence[Mapping[str, Any]] = (),
        note: str | None = None,
    ) -> Iterator[str]:
        """The page, in pieces (after the last trace); `warnings`: the candidate run's
        policy warnings."""
        head = {
            "policy_id": candidate.policy_id,
            "gate": gate.to_dict(),
            "baseline": baseline.to_dict(),
            "candidate": candidate.to_dict(),
            "summary": dict(summary),
        }
        head.update(_extras(candidate.policy_id, warnings, note))
        return self._page("ARH comparison", head, sections)

    def finish(
        self,
        gate: Gate,
        baseline: RunSide,
        candidate: RunSide,
        summary: Mapping[str, Any],
        sections: Sequence[HtmlTable] = (),
        *,
        warnings: Sequence[Mapping[str, Any]] = (),
        note: str | None = None,
    ) -> None:
        """Write the page to `out`; it is complete after this."""
        pieces = self.page(
            gate, baseline, candidate, summary, sections, warnings=warnings, note=note
        )
        self._write(pieces)
