"""SARIF 2.1.0 for code scanning: every registered rule, one result per finding.

Results point at the line where the step (or trace) object starts, name trace and
step as logical locations, and carry fingerprints of (trace_id, rule_id, category, step_id).
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections import Counter
from json.encoder import encode_basestring_ascii
from typing import Any
from urllib.parse import quote

from ..io import STDIN_NAME, is_url
from ..models.common import Severity
from ..models.report import Finding, InputFailure, RunReport, TraceReport
from ..rules import Rule, all_rules
from ._policies import PolicyWarningView, policy_ids, policy_warnings, several, warning_text
from ._text import PROJECT_URL, rule_url
from .base import RenderOptions
from .json_ import dumps

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "arhFingerprint/v1"
# GitHub code scanning rejects a run with more than 25,000 results (and shows the
# 5,000 most severe). Past this many, the least severe results are left out and a
# notification in the run says how many.
MAX_RESULTS = 25_000
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_PROBLEM = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "recommendation"}


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _rule_name(title: str) -> str:
    """A PascalCase identifier from the rule title ("Tool called too many times" -> ...)."""
    return "".join(w[:1].upper() + w[1:] for w in re.findall(r"[A-Za-z0-9]+", title))


def _descriptor(rule: Rule) -> dict[str, Any]:
    severity = rule.severity_note or rule.severity.value
    remediation = _sentence(rule.remediation)
    url = rule_url(rule.rule_id)
    descriptor: dict[str, Any] = {
        "id": rule.rule_id,
        "name": _rule_name(rule.title),
        "shortDescription": {"text": _sentence(rule.title)},
        "fullDescription": {
            "text": _sentence(f"{rule.title} ({rule.category.value} rule; severity {severity})")
        },
        "help": {
            "text": remediation,
            "markdown": f"{remediation}\n\n[Rule reference]({url})" if url else remediation,
        },
        "helpUri": url,
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        "properties": {
            "category": rule.category.value,
            "tags": ["agent-reliability", rule.category.value],
            "precision": "very-high",
            "problem.severity": _PROBLEM[rule.severity],
        },
    }
    if url is None:
        del descriptor["helpUri"]
    return descriptor


def fingerprint(trace_id: str, finding: Finding, occurrence: int = 0) -> str:
    """Stable hash of the regression fingerprint; `occurrence` separates identical findings."""
    return key_fingerprint(trace_id, finding.rule_id, finding.category, finding.step_id, occurrence)


def key_fingerprint(
    trace_id: str, rule_id: str | None, category: str, step_id: str | None, occurrence: int = 0
) -> str:
    """`fingerprint` from the fields it reads: the SHA-256 of the JSON array of them
    (json.dumps with separators (",", ":"), ASCII: any str hashes, even a lone
    surrogate), written out here as json writes it, as this runs once per result."""
    key = f"[{_json(trace_id)},{_json(rule_id)},{_json(category)},{_json(step_id)}"
    if occurrence:
        key += f",{int(occurrence)}"
    return hashlib.sha256(f"{key}]".encode()).hexdigest()


def _json(text: str | None) -> str:
    return "null" if text is None else encode_basestring_ascii(text)


# Characters a URI keeps as they are (RFC 3986 reserved and unreserved, and `%`: a URL
# given on the command line is already percent-encoded where it needs to be).
_URI_SAFE = ":/?#[]@!$&'()*+,;=%~"


@functools.lru_cache(maxsize=256)
def _artifact(source_path: str | None) -> dict[str, Any] | None:
    """A relative URI under %SRCROOT%, a file: URI for an absolute path, the URL itself
    for an input read by URL (s3://...); None for stdin. Shared between the results of
    one file (read, never changed)."""
    if not source_path or source_path == STDIN_NAME:
        return None
    if is_url(source_path):
        return {"uri": quote(source_path, safe=_URI_SAFE)}
    if source_path.startswith("/"):
        return {"uri": "file://" + quote(source_path, safe="/")}
    return {"uri": quote(source_path, safe="/"), "uriBaseId": SRCROOT}


def _line(report: TraceReport, index: int | None) -> int:
    """The line of the step at `index`, else the trace's; line 1 when positions were
    not computed."""
    if index is not None and 0 <= index < len(report.step_lines):
        return report.step_lines[index]
    return report.source_line or 1


class _LogicalLocations:
    """run.logicalLocations: one entry per trace with findings, one per step, deduplicated."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self._index: dict[tuple[Any, ...], int] = {}

    def _add(self, key: tuple[Any, ...], entry: dict[str, Any]) -> int:
        if key not in self._index:
            self._index[key] = len(self.entries)
            self.entries.append(entry)
        return self._index[key]

    def reference(
        self, report: TraceReport, step_index: int | None, step_id: str | None
    ) -> dict[str, Any]:
        trace_id = report.trace_id
        trace = self._add(
            ("trace", trace_id),
            {"name": trace_id, "fullyQualifiedName": trace_id, "kind": "object"},
        )
        if step_index is None or step_id is None:
            return {"index": trace, "name": trace_id, "fullyQualifiedName": trace_id}
        qualified = f"{trace_id}/steps[{step_index}]"
        step = self._add(
            ("step", trace_id, step_index, step_id),
            {
                "name": step_id,
                "fullyQualifiedName": qualified,
                "kind": "object",
                "parentIndex": trace,
            },
        )
        return {"index": step, "name": step_id, "fullyQualifiedName": qualified}


# Rules whose related step is the call a claim was checked against (policy v1.3).
_CHECKED_AGAINST = frozenset({"ARH-GRD-004", "ARH-GRD-005"})


def _source_location(
    report: TraceReport, finding: Finding, logical: _LogicalLocations
) -> dict[str, Any]:
    """The related location of the step a flagged value came from (ARH-FLW-004)."""
    location: dict[str, Any] = {"id": 1}
    artifact = _artifact(report.source_path)
    if artifact is not None:
        location["physicalLocation"] = {
            "artifactLocation": artifact,
            "region": {"startLine": _line(report, finding.source_step_index)},
        }
    location["logicalLocations"] = [
        logical.reference(report, finding.source_step_index, finding.source_step_id)
    ]
    if finding.rule_id in _CHECKED_AGAINST:  # policy v1.3 claims: the call checked
        text = f"Checked against: the call at step {finding.source_step_id}."
    else:
        text = f"Source: the output of step {finding.source_step_id}."
    location["message"] = {"text": text}
    return location


def _result(
    report: TraceReport,
    finding: Finding,
    occurrence: int,
    rule_index: dict[str, int],
    logical: _LogicalLocations,
    *,
    digest: str | None = "",
) -> dict[str, Any]:
    """One result; `digest` None: its fingerprints left for the caller to fill in."""
    where = f"step {finding.step_id}" if finding.step_id is not None else "trace level"
    if finding.agent is not None:  # policy v1.2: found by an agents entry
        where += f", agent {finding.agent}"
    location: dict[str, Any] = {}
    artifact = _artifact(report.source_path)
    if artifact is not None:
        location["physicalLocation"] = {
            "artifactLocation": artifact,
            "region": {"startLine": _line(report, finding.step_index)},
        }
    location["logicalLocations"] = [logical.reference(report, finding.step_index, finding.step_id)]
    digest = "" if digest is None else fingerprint(report.trace_id, finding, occurrence)
    # Findings from this build always carry a rule ID; older (v0.1) reports may not.
    result: dict[str, Any] = {"ruleId": finding.rule_id or f"{finding.category}/unidentified"}
    if finding.rule_id in rule_index:
        result["ruleIndex"] = rule_index[finding.rule_id]
    result.update(
        {
            "level": _LEVEL[finding.severity],
            "message": {"text": _sentence(f"{finding.message} (trace {report.trace_id}, {where})")},
            "locations": [location],
        }
    )
    if finding.source_step_id is not None:
        result["relatedLocations"] = [_source_location(report, finding, logical)]
    result.update(
        {
            "partialFingerprints": {
                FINGERPRINT_KEY: digest,
                # GitHub matches alerts on this key alone: follow the finding, not the line text.
                "primaryLocationLineHash": f"{digest[:16]}:{occurrence + 1}",
            },
            "properties": {
                "trace_id": report.trace_id,
                "category": finding.category,
                "policy_id": report.policy_id,
            },
        }
    )
    if finding.agent is not None:
        result["properties"]["agent"] = finding.agent
    return result


def _selected(report: RunReport) -> tuple[list[tuple[TraceReport, Finding, int]], int]:
    """Every (trace, finding, occurrence) in report order, capped at MAX_RESULTS by severity."""
    seen: Counter[tuple[str, str | None, str, str | None]] = Counter()
    items: list[tuple[TraceReport, Finding, int]] = []
    for trace_report in report.reports:
        for finding in trace_report.findings:
            key = (trace_report.trace_id, finding.rule_id, finding.category, finding.step_id)
            items.append((trace_report, finding, seen[key]))
            seen[key] += 1
    if len(items) <= MAX_RESULTS:
        return items, 0
    order = sorted(range(len(items)), key=lambda i: (items[i][1].severity.rank, i))
    keep = sorted(order[:MAX_RESULTS])
    return [items[i] for i in keep], len(items) - MAX_RESULTS


def _notification(failure: InputFailure) -> dict[str, Any]:
    note: dict[str, Any] = {
        "level": "error",
        "message": {"text": _sentence(f"{failure.location()}: {failure.message}")},
    }
    artifact = _artifact(failure.source_path)
    if artifact is not None:
        physical: dict[str, Any] = {"artifactLocation": artifact}
        if failure.line is not None:
            physical["region"] = {"startLine": failure.line}
        note["locations"] = [{"physicalLocation": physical}]
    return note


def _warning_notification(warning: PolicyWarningView) -> dict[str, Any]:
    note: dict[str, Any] = {
        "level": "warning",
        "message": {"text": _sentence(warning_text(warning))},
    }
    artifact = _artifact(warning.source)
    if artifact is not None:
        note["locations"] = [{"physicalLocation": {"artifactLocation": artifact}}]
    return note


def _notifications(report: RunReport, omitted: int) -> list[dict[str, Any]]:
    """One per unreadable input (errors), one per policy warning, and the results cap."""
    notifications = [_notification(f) for f in report.input_errors]
    notifications += [_warning_notification(w) for w in policy_warnings(report.sections)]
    if omitted:
        notifications.append(
            {
                "level": "warning",
                "message": {
                    "text": f"{omitted} lower-severity results were left out: GitHub code "
                    f"scanning accepts at most {MAX_RESULTS:,} results per run."
                },
            }
        )
    return notifications


def _catalogue(reported: set[str | None], plugins: tuple[str, ...]) -> tuple[Rule, ...]:
    """Every v1/v1.1 rule and the enabled plugins' rules, then the newer built-in ones
    this log reports (in registry order): a run that reports none of them writes the
    catalogue it always wrote."""
    rules = all_rules(plugins)
    return tuple(r for r in rules if r.since == "1") + tuple(
        r for r in rules if r.since != "1" and r.rule_id in reported
    )


def sarif_log(report: RunReport, options: RenderOptions) -> dict[str, Any]:
    """The SARIF log as a JSON-ready dict."""
    selected, omitted = _selected(report)
    rules = _catalogue({finding.rule_id for _, finding, _ in selected}, report.plugins)
    rule_index = {rule.rule_id: position for position, rule in enumerate(rules)}
    logical = _LogicalLocations()
    results = [_result(r, f, n, rule_index, logical) for r, f, n in selected]
    return log_of(
        report, options, rules, omitted=omitted, logical=logical.entries or None, results=results
    )


def log_of(
    report: RunReport,
    options: RenderOptions,
    rules: tuple[Rule, ...],
    *,
    omitted: int,
    logical: Any,
    results: Any,
) -> dict[str, Any]:
    """The log around its results and logical locations (None: none), whichever way
    they were made (sarif_log, or the streamed writer's placeholders)."""
    notifications = _notifications(report, omitted)
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "arh",
                "fullName": "ARH (Agent Reliability Harness)",
                "version": options.tool_version,
                "informationUri": PROJECT_URL,
                "rules": [_descriptor(rule) for rule in rules],
            }
        },
        "originalUriBaseIds": {
            SRCROOT: {"description": {"text": "The working directory arh validate ran in."}}
        },
    }
    if notifications:
        # An input that could not be read was not analysed: the run did not succeed.
        success = not report.input_errors
        run["invocations"] = [
            {"executionSuccessful": success, "toolExecutionNotifications": notifications}
        ]
    if logical is not None:
        run["logicalLocations"] = logical
    run["results"] = results
    run["properties"] = {"policy_id": report.policy_id}
    if several(report.policy_id):
        run["properties"]["policy_ids"] = list(policy_ids(report.policy_id))
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render_run(report: RunReport, options: RenderOptions) -> str:
    # The bytes of json.dumps(indent=2, ensure_ascii=False) at a few times its speed.
    return dumps(sarif_log(report, options))
