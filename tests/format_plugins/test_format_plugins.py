"""Format plugins (`arh.formats`, docs/plugins.md "Your own formats"): the example
package is detected and read like a built-in format, also with `--format NAME`, and is
listed by `arh formats`; a broken plugin is one error line naming it, never a traceback;
two formats claiming a document on their own evidence are ambiguous."""

from __future__ import annotations

import json
from pathlib import Path

from format_helpers import EXAMPLE, FIXTURE, arh, fake_plugin, run_python

POLICY = {"policy_id": "p", "allow_unlisted_tools": True}


def _policy(tmp_path: Path) -> Path:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(POLICY), encoding="utf-8")
    return path


def test_the_example_is_detected_and_read_end_to_end(example_site: Path, tmp_path: Path) -> None:
    done = arh(["convert", str(FIXTURE)], [example_site], tmp_path)
    assert done.returncode == 0, done.stderr
    (trace,) = json.loads(done.stdout) if done.stdout.startswith("[") else [json.loads(done.stdout)]
    assert trace["source"] == "acme-run"
    calls = [s for s in trace["steps"] if s["type"] == "tool_call"]
    assert [(c["tool_name"], c["status"]) for c in calls] == [
        ("lookup_order", "ok"),
        ("issue_refund", "error"),
    ]
    for fmt in ("auto", "acme-run"):
        done = arh(
            ["validate", "--policy", str(_policy(tmp_path)), "--format", fmt, "--json-out",
             "r.json", "--fail-under", "0", str(FIXTURE)], [example_site], tmp_path,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        report = json.loads((tmp_path / "r.json").read_text())
        assert report["summary"]["total_traces"] == 1, report["summary"]
        assert report["input_errors"] == []


def test_arh_formats_lists_the_plugin_with_its_family_and_evidence(
    example_site: Path, tmp_path: Path
) -> None:
    done = arh(["formats"], [example_site], tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("acme-run "))
    assert "frameworks (plugin)" in lines[at]
    assert lines[at + 1].split() == ["claims", "on:", "acme_run,", "events"]
    assert lines[0].startswith("arh ") and any(x.startswith("claude-code ") for x in lines)


def test_a_built_in_format_is_read_as_before_with_a_plugin_installed(
    example_site: Path, tmp_path: Path
) -> None:
    chat = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant",
            "content": None, "tool_calls": [{"id": "c", "type": "function", "function":
            {"name": "f", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "c",
            "content": "ok"}]}  # fmt: skip
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(chat), encoding="utf-8")
    done = arh(["convert", str(path)], [example_site], tmp_path)
    assert done.returncode == 0, done.stderr
    assert '"source": "openai-chat"' in done.stdout


BROKEN = "raise ImportError('no module named acme_sdk')\n"
FAULTY = """
from agent_reliability_harness.adapters import Adapter, Evidence

def detect(value):
    return isinstance(value, dict) and "acme_run" in value

def convert(value, name_hint):
    raise ZeroDivisionError("division by zero")

FORMAT = Adapter("faulty", "a format whose convert raises", detect, convert,
                 evidence=Evidence(marks=("acme_run",)))
"""


def test_a_plugin_that_cannot_be_imported_is_one_error_line(tmp_path: Path) -> None:
    site = fake_plugin(tmp_path / "site", "broken", "broken_format", BROKEN)
    done = arh(["convert", str(FIXTURE)], [site], tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"error: {FIXTURE}: format plugin 'broken' (broken_format:FORMAT) could not be "
        "imported: ImportError: no module named acme_sdk"
    ]
    listed = arh(["formats"], [site], tmp_path)
    assert listed.returncode == 1 and "Traceback" not in listed.stderr
    assert "format plugin 'broken'" in listed.stderr and "claude-code" in listed.stdout


def test_a_plugin_that_raises_is_one_error_line_naming_it(tmp_path: Path) -> None:
    site = fake_plugin(tmp_path / "site", "faulty", "faulty_format", FAULTY)
    done = arh(["convert", str(FIXTURE)], [site], tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"error: {FIXTURE}: format plugin 'faulty': convert raised ZeroDivisionError: "
        "division by zero"
    ]


def test_two_formats_claiming_on_their_own_evidence_are_ambiguous(
    example_site: Path, tmp_path: Path
) -> None:
    site = fake_plugin(tmp_path / "site", "faulty", "faulty_format", FAULTY)
    done = arh(["convert", str(FIXTURE)], [example_site, site], tmp_path)
    assert done.returncode == 1
    assert "ambiguous input format: acme-run, faulty each claim it" in done.stderr
    named = arh(["convert", "--format", "acme-run", str(FIXTURE)], [example_site, site], tmp_path)
    assert named.returncode == 0, named.stderr


def test_the_examples_own_tests_pass(example_site: Path, tmp_path: Path) -> None:
    done = run_python(
        ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(EXAMPLE / "pyproject.toml"),
         "--rootdir", str(EXAMPLE), str(EXAMPLE / "tests")],
        [example_site], tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "2 passed" in done.stdout


def test_a_worker_process_reads_the_plugin_format(example_site: Path, tmp_path: Path) -> None:
    done = arh(
        ["validate", "--policy", str(_policy(tmp_path)), "--jobs", "2", "--quiet",
         str(FIXTURE), str(FIXTURE)], [example_site], tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
