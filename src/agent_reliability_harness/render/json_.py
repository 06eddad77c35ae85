"""The one JSON writer: run reports (whole, or streamed as element fragments) and compare
reports, laid out as json.dumps(indent=2, ensure_ascii=False) does, with the key order
the models give (models/report.py). Indent 2, trailing newline."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from json.encoder import encode_basestring
from typing import Any

import msgspec

from ..models.report import (
    INPUT_ERRORS,
    REPORTS,
    InputFailure,
    RunReport,
    Section,
    Summary,
    TraceReport,
    run_fields,
)
from .base import RenderOptions

# The C encoder (used only without indent) writes every token as json.dumps does; msgspec
# then lays the tokens out with indent 2 exactly as json.dumps(indent=2) places them.
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_ELEMENT = "    "  # an element of a top-level array sits two levels deep


def element(value: Any, depth: int = 0) -> str:
    """`value` as json.dumps(indent=2, ensure_ascii=False) lays it out `depth` levels deep
    (its first line not indented). Raw line breaks occur only between tokens, as strings
    hold theirs escaped, so nesting is a replace."""
    compact = _COMPACT.encode(value)
    try:
        text = msgspec.json.format(compact, indent=2)
    except msgspec.DecodeError:  # NaN or Infinity (allowed by json, not by msgspec)
        text = json.dumps(value, indent=2, ensure_ascii=False)
    return text if depth == 0 else text.replace("\n", "\n" + "  " * depth)


def dumps(value: Any) -> str:
    """Deterministic JSON text for any report-like dict."""
    return element(value) + "\n"


def report_element(report: TraceReport) -> str:
    """One trace report as an element of the "reports" array (indented, no comma)."""
    return _ELEMENT + element(report.to_dict(), 2)


def failure_element(failure: InputFailure) -> str:
    """One input failure as an element of the "input_errors" array."""
    return _ELEMENT + element(failure.to_dict(), 2)


def joined(elements: Iterable[str]) -> Iterator[str]:
    """Array elements as array text: each element, with ",\\n" between them."""
    first = True
    for item in elements:
        if not first:
            yield ",\n"
        yield item
        first = False


def array_text(elements: Iterable[str], first: bool = True) -> str:
    """`joined` as one string, for array text built a batch at a time: a batch that
    does not come first starts with the separator."""
    text = "".join(joined(elements))
    return text if first or not text else ",\n" + text


def run_pieces(
    policy_id: str,
    summary: Summary,
    sections: Iterable[Section],
    reports: Iterable[str],
    input_errors: Iterable[str],
) -> Iterator[str]:
    """The whole JSON run report as text pieces. `reports` and `input_errors` are array
    text: pieces that concatenate to the elements joined by ",\\n" (see `joined`), so a
    streamed run passes what it spooled and a whole run its elements."""
    arrays = {REPORTS: reports, INPUT_ERRORS: input_errors}
    separator = "{\n  "
    for key, value in run_fields(policy_id, summary, sections).items():
        yield separator + encode_basestring(key) + ": "
        separator = ",\n  "
        if key in arrays:
            yield from _array(arrays[key])
        else:
            yield element(value, 1)
    yield "\n}\n"


def _array(text: Iterable[str]) -> Iterator[str]:
    pieces = (piece for piece in text if piece)
    first = next(pieces, None)
    if first is None:
        yield "[]"
        return
    yield "[\n"
    yield first
    yield from pieces
    yield "\n  ]"


def render_run(report: RunReport, options: RenderOptions) -> str:
    return "".join(
        run_pieces(
            report.policy_id,
            report.summary,
            report.sections,
            joined(report_element(r) for r in report.reports),
            joined(failure_element(f) for f in report.input_errors),
        )
    )
