"""JUnit XML: one testcase per trace (classname agent_name.workflow, name trace_id).

Each testcase names the policy that judged it (property `arh.policy_id`); a failing
trace has one <failure> listing its error findings, warnings and infos go to
<system-out>, and each unreadable input is a testcase with an <error>. The run's policy
warnings are the first suite's <system-out>. Repeated runs of a task (the `tasks`
section) form one testsuite per task (docs/repeated-runs.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..models.common import Severity
from ..models.report import Finding, InputFailure, RunReport, TraceReport
from ._escape import xml_attr, xml_text
from ._policies import policies_label, policy_warnings, several, warning_text
from .base import RenderOptions
from .tasks import grouped, suite_out, suite_properties, tasks_view

INPUT_CLASSNAME = "arh.inputs"


def _finding_line(finding: Finding) -> str:
    where = f"step {finding.step_id}" if finding.step_id is not None else "trace"
    if finding.agent is not None:  # policy v1.2: found by an agents entry
        where += f", agent {finding.agent}"
    return f"{finding.rule_id or '-'} [{finding.category}] {where}: {finding.message}"


def _failure(report: TraceReport) -> list[str]:
    errors = [f for f in report.findings if f.severity is Severity.ERROR]
    if errors:
        message = f"{len(errors)} error finding(s); score {report.score:.2f}"
        kind = errors[0].rule_id or "error"
        body = "\n".join(_finding_line(f) for f in errors)
    else:
        message = f"score {report.score:.2f} is below the passing threshold"
        kind = "score"
        body = message
    return [
        f'      <failure message="{xml_attr(message)}" type="{xml_attr(kind)}">'
        f"{xml_text(body)}</failure>"
    ]


def _system_out(report: TraceReport) -> list[str]:
    where = report.source_path or "-"
    if report.source_line is not None:
        where += f":{report.source_line}"
    lines = [f"score {report.score:.2f}, policy {report.policy_id}, source {where}"]
    lines += [
        f"{f.severity.value}: {_finding_line(f)}"
        for f in report.findings
        if f.severity is not Severity.ERROR
    ]
    return [f"      <system-out>{xml_text(chr(10).join(lines))}</system-out>"]


def _testcase(report: TraceReport, task_id: str | None = None) -> list[str]:
    classname = f"{report.agent_name}.{report.workflow}"
    if task_id is not None:  # grouped per task: dashboards list a task's runs together
        classname += f".{task_id}"
    file_attr = f' file="{xml_attr(report.source_path)}"' if report.source_path else ""
    head = (
        f'    <testcase classname="{xml_attr(classname)}" '
        f'name="{xml_attr(report.trace_id)}"{file_attr} time="0">'
    )
    policy = [
        "      <properties>",
        f'        <property name="arh.policy_id" value="{xml_attr(report.policy_id)}"/>',
        "      </properties>",
    ]
    body = [] if report.passed else _failure(report)
    return [head, *policy, *body, *_system_out(report), "    </testcase>"]


def _input_case(failure: InputFailure) -> list[str]:
    return [
        f'    <testcase classname="{INPUT_CLASSNAME}" name="{xml_attr(failure.location())}" '
        f'file="{xml_attr(failure.source_path)}" time="0">',
        f'      <error message="{xml_attr(failure.message)}" type="InputError">'
        f"{xml_text(failure.location() + ': ' + failure.message)}</error>",
        "    </testcase>",
    ]


def _counts(reports: Sequence[TraceReport], errors: int) -> str:
    tests = len(reports) + errors
    failures = sum(1 for r in reports if not r.passed)
    return f'tests="{tests}" failures="{failures}" errors="{errors}" skipped="0" time="0"'


def _label(policy_id: str) -> str:
    """How a suite names the run's policies: `policies a, b` for several, else the id."""
    return policies_label(policy_id) if several(policy_id) else policy_id


def _task_suite(
    report: RunReport, task: Mapping[str, Any], runs: list[TraceReport], version: str
) -> list[str]:
    """One task's runs as a testsuite: its counts are the task's n and n - c."""
    name = xml_attr(f"arh {_label(report.policy_id)} task {task['task_id']}")
    props = [("arh.policy_id", report.policy_id), ("arh.version", version)]
    props += suite_properties(task)
    lines = [f'  <testsuite name="{name}" {_counts(runs, 0)}>', "    <properties>"]
    lines += [f'      <property name="{xml_attr(k)}" value="{xml_attr(v)}"/>' for k, v in props]
    lines.append("    </properties>")
    for run in runs:
        lines += _testcase(run, str(task["task_id"]))
    lines += [f"    <system-out>{xml_text(suite_out(task))}</system-out>", "  </testsuite>"]
    return lines


def render_run(report: RunReport, options: RenderOptions) -> str:
    """The JUnit document; counts: tests = traces + unreadable inputs. With repeated runs
    (a `tasks` section) each task's runs form their own testsuite after the first one."""
    loose, groups = grouped([r.task_id for r in report.reports], tasks_view(report.sections))
    errors = len(report.input_errors)
    counts = _counts(report.reports, errors)
    first = [report.reports[i] for i in loose]
    suite = xml_attr(f"arh {_label(report.policy_id)}")
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuites name="arh" {counts}>',
        f'  <testsuite name="{suite}" {_counts(first, errors)}>',
        "    <properties>",
        f'      <property name="arh.policy_id" value="{xml_attr(report.policy_id)}"/>',
        f'      <property name="arh.version" value="{xml_attr(options.tool_version)}"/>',
        "    </properties>",
    ]
    for failure in report.input_errors:
        lines += _input_case(failure)
    for trace_report in first:
        lines += _testcase(trace_report)
    warnings = policy_warnings(report.sections)
    if warnings:
        text = "\n".join(f"policy warning: {warning_text(w)}" for w in warnings)
        lines.append(f"    <system-out>{xml_text(text)}</system-out>")
    lines.append("  </testsuite>")
    for task, indices in groups:
        runs = [report.reports[i] for i in indices]
        lines += _task_suite(report, task, runs, options.tool_version)
    lines.append("</testsuites>")
    return "\n".join(lines) + "\n"
