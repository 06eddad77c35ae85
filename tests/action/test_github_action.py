"""The GitHub Action's script with a fake GITHUB_* environment, and action.yml's wiring.

The pull-request API is a local HTTP server on 127.0.0.1 that records the requests.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "github_action.py"
ACTION = ROOT / "action.yml"
ARH = f"{shlex.quote(sys.executable)} -m agent_reliability_harness"
REPO = "acme/agents"


@dataclass
class FakeGitHub:
    """Records every request; answers from `comments` (GET) or with `status`."""

    comments: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    requests: list[tuple[str, str, dict[str, str], Any]] = field(default_factory=list)
    url: str = ""


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub()

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length)) if length else None
            fake.requests.append((self.command, self.path, dict(self.headers), body))
            if fake.status != 200:
                self.send_response(fake.status)
                self.end_headers()
                self.wfile.write(b'{"message": "Resource not accessible by integration"}')
                return
            answer: Any = fake.comments if self.command == "GET" else {"id": 1}
            data = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = _answer

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield fake
    server.shutdown()
    server.server_close()


def _pull_request(fork: bool) -> dict[str, Any]:
    head = "someone/agents" if fork else REPO
    return {
        "pull_request": {
            "number": 7,
            "head": {"repo": {"full_name": head}},
            "base": {"repo": {"full_name": REPO}},
        }
    }


@dataclass
class Run:
    code: int
    stdout: str
    outputs: dict[str, str]
    summary: str


def _action(
    tmp_path: Path,
    inputs: dict[str, str],
    *,
    event_name: str = "pull_request",
    event: dict[str, Any] | None = None,
    api: str = "http://127.0.0.1:9",
    actor: str = "dev",
) -> Run:
    event_path = tmp_path / "event.json"
    event_path.write_text(json.dumps(event or {}), encoding="utf-8")
    summary, output = tmp_path / "summary.md", tmp_path / "output.txt"
    env = {
        "PATH": "/usr/bin:/bin",
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_API_URL": api,
        "GITHUB_ACTOR": actor,
        "GITHUB_TOKEN": "ghs_test_token",
        "ARH_BIN": ARH,
        "INPUT_OUTPUT_DIR": str(tmp_path / "out"),
        **{f"INPUT_{k.upper().replace('-', '_')}": v for k, v in inputs.items()},
    }
    done = subprocess.run(
        [sys.executable, str(SCRIPT)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    outputs = {}
    if output.exists():
        for line in output.read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition("=")
            outputs[key] = value
    text = summary.read_text(encoding="utf-8") if summary.exists() else ""
    return Run(done.returncode, done.stdout + done.stderr, outputs, text)


SAMPLES = {"policy": "samples/policy.json", "paths": "samples/traces"}


def test_fork_pull_request_gets_the_summary_and_no_write_calls(
    tmp_path: Path, github: FakeGitHub
) -> None:
    run = _action(
        tmp_path, {**SAMPLES, "comment": "true"}, event=_pull_request(fork=True), api=github.url
    )
    assert run.code == 1, run.stdout
    assert run.summary.startswith("## ARH report: policy `refund-support-v1`")
    assert "**Run failed:** 2 of 9 traces passed" in run.summary
    assert github.requests == []
    assert "::notice::PR comment skipped: pull request from fork someone/agents" in run.stdout
    assert "::notice::SARIF upload skipped" in run.stdout
    assert run.outputs["sarif-upload"] == "false"
    assert run.outputs["failed"] == "true" and run.outputs["exit-code"] == "1"
    assert Path(run.outputs["sarif"]).is_file() and Path(run.outputs["report"]).is_file()
    assert "::error::ARH: traces failed (arh exit 1)" in run.stdout


def test_pull_request_comment_is_created_then_updated(tmp_path: Path, github: FakeGitHub) -> None:
    inputs = {**SAMPLES, "comment": "true"}
    run = _action(tmp_path, inputs, event=_pull_request(fork=False), api=github.url)
    assert "::notice::PR comment posted" in run.stdout
    (get, post) = github.requests
    assert get[0] == "GET" and get[1].startswith(f"/repos/{REPO}/issues/7/comments?per_page=100")
    assert post[:2] == ("POST", f"/repos/{REPO}/issues/7/comments")
    assert post[2]["Authorization"] == "Bearer ghs_test_token"
    body = post[3]["body"]
    assert body.startswith("<!-- arh-report -->\n## ARH report")
    assert run.outputs["sarif-upload"] == "true"
    github.requests.clear()
    github.comments = [{"id": 41, "body": "unrelated"}, {"id": 42, "body": body}]
    run = _action(tmp_path, inputs, event=_pull_request(fork=False), api=github.url)
    assert "::notice::PR comment updated" in run.stdout
    assert [r[:2] for r in github.requests][1] == ("PATCH", f"/repos/{REPO}/issues/comments/42")


def test_refused_comment_is_a_warning_not_a_crash(tmp_path: Path, github: FakeGitHub) -> None:
    github.status = 403
    run = _action(
        tmp_path,
        {**SAMPLES, "comment": "true", "fail-on": "never"},
        event=_pull_request(fork=False),
        api=github.url,
    )
    assert "::warning::PR comment skipped: GitHub answered 403" in run.stdout
    assert run.code == 0 and run.outputs["failed"] == "false"


def test_dependabot_is_treated_as_read_only(tmp_path: Path, github: FakeGitHub) -> None:
    run = _action(
        tmp_path,
        {**SAMPLES, "comment": "true"},
        event=_pull_request(fork=False),
        api=github.url,
        actor="dependabot[bot]",
    )
    assert github.requests == [] and run.outputs["sarif-upload"] == "false"


def test_push_with_fail_on_never_reports_and_passes(tmp_path: Path) -> None:
    run = _action(tmp_path, {**SAMPLES, "fail-on": "never", "html": "true"}, event_name="push")
    assert run.code == 0 and run.outputs["exit-code"] == "1"
    assert run.outputs["failed"] == "false" and run.outputs["sarif-upload"] == "true"
    assert Path(run.outputs["html"]).read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert Path(run.outputs["junit"]).is_file()


def test_unreadable_input_fails_even_with_never(tmp_path: Path) -> None:
    run = _action(
        tmp_path,
        {"policy": "samples/policy.json", "paths": "tests/data/mixed", "fail-on": "never"},
        event_name="push",
    )
    assert run.code == 1 and run.outputs["failed"] == "true"
    assert "input(s) could not be read" in run.stdout


def _baseline(tmp_path: Path, traces: str) -> Path:
    target = tmp_path / "baseline.json"
    subprocess.run(
        [*shlex.split(ARH), "validate", "--policy", "tests/compare/data/policy.json", traces,
         "--quiet", "--json-out", str(target)],
        cwd=ROOT, check=False, capture_output=True, timeout=120,
    )  # fmt: skip
    return target


def test_baseline_gates_on_regressions_only(tmp_path: Path) -> None:
    inputs = {"policy": "tests/compare/data/policy.json", "paths": "tests/compare/data/candidate"}
    same = _baseline(tmp_path, "tests/compare/data/candidate")
    run = _action(tmp_path, {**inputs, "baseline": str(same)}, event_name="push")
    assert run.code == 0, run.stdout  # failing traces, but none is new
    assert run.summary.startswith("## ARH regression gate: PASS")
    older = _baseline(tmp_path, "tests/compare/data/baseline")
    run = _action(tmp_path, {**inputs, "baseline": str(older)}, event_name="push")
    assert run.code == 1 and run.outputs["failed"] == "true"
    assert "::error::ARH: the gate failed" in run.stdout
    assert Path(run.outputs["sarif"]).is_file()


def test_missing_policy_or_bad_mode_is_misuse(tmp_path: Path) -> None:
    run = _action(tmp_path, {"paths": "samples/traces"}, event_name="push")
    assert run.code == 2 and "::error::arh action: the policy input is required" in run.stdout
    run = _action(tmp_path, {**SAMPLES, "fail-on": "sometimes"}, event_name="push")
    assert run.code == 2 and "fail-on must be one of" in run.stdout


def test_action_yml_wires_every_input_to_the_script() -> None:
    yaml = pytest.importorskip("yaml")
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    inputs = set(action["inputs"])
    used = set(re.findall(r"inputs\.([a-z-]+)", ACTION.read_text(encoding="utf-8")))
    assert used == inputs, "every input is used, and only declared ones"
    steps = action["runs"]["steps"]
    for step in steps:
        assert "uses" in step or step.get("shell") == "bash", step["name"]
    (run_step,) = [s for s in steps if s.get("id") == "arh"]
    given = {k.removeprefix("INPUT_") for k in run_step["env"] if k.startswith("INPUT_")}
    source = SCRIPT.read_text(encoding="utf-8")
    read = set(re.findall(r'(?<![.\w])(?:get|flag)\("([A-Z_]+)"', source))
    assert given == read
    written = set(re.findall(r'"([a-z-]+)": (?:str\(|")', source.split("def main", 1)[1]))
    for name, output in action["outputs"].items():
        match = re.fullmatch(r"\$\{\{ steps\.arh\.outputs\.([a-z-]+) \}\}", output["value"])
        assert match and match.group(1) in written, name
    (upload,) = [s for s in steps if "upload-sarif" in s.get("uses", "")]
    assert "sarif-upload == 'true'" in upload["if"] and upload["continue-on-error"] is True
