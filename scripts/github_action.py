#!/usr/bin/env python3
"""The logic of the ARH GitHub Action (action.yml): run arh, write the job summary,
comment on the pull request, decide the SARIF upload and the exit code.

Standard library only, and it calls the `arh` command rather than importing ARH, so
it works with whichever ARH version the action installed. Inputs come from INPUT_*
variables (action.yml maps them); results go to $GITHUB_OUTPUT and $GITHUB_STEP_SUMMARY.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MARKER = "<!-- arh-report -->"
COMMENT_LIMIT = 65_536  # characters GitHub accepts in one comment
FAIL_MODES = ("regressions", "failures", "never")
EXIT_USAGE = 2


@dataclass(frozen=True)
class Inputs:
    policy: str
    paths: list[str]
    baseline: str
    fail_on: str
    fail_under: str
    format: str
    args: list[str]
    out_dir: Path
    sarif: bool
    summary: bool
    comment: bool
    html: bool
    arh: list[str]

    @classmethod
    def from_env(cls, env: dict[str, str]) -> Inputs:
        def get(name: str, default: str = "") -> str:
            return env.get(f"INPUT_{name}", default).strip() or default

        def flag(name: str, default: str) -> bool:
            return get(name, default).lower() in ("true", "1", "yes", "on")

        return cls(
            policy=get("POLICY"),
            paths=shlex.split(get("PATHS", ".")),
            baseline=get("BASELINE"),
            fail_on=get("FAIL_ON", "regressions"),
            fail_under=get("FAIL_UNDER"),
            format=get("FORMAT"),
            args=shlex.split(get("ARGS")),
            out_dir=Path(get("OUTPUT_DIR", "arh-report")),
            sarif=flag("SARIF", "true"),
            summary=flag("SUMMARY", "true"),
            comment=flag("COMMENT", "false"),
            html=flag("HTML", "false"),
            arh=shlex.split(env.get("ARH_BIN", "arh")),
        )

    def problem(self) -> str | None:
        if not self.policy:
            return "the policy input is required"
        if self.fail_on not in FAIL_MODES:
            return f"fail-on must be one of {', '.join(FAIL_MODES)} (got {self.fail_on!r})"
        if not self.paths:
            return "the paths input names no trace files or directories"
        return None


@dataclass(frozen=True)
class Context:
    """What the event allows: a pull request number, and whether the token can write."""

    repository: str
    api_url: str
    token: str
    pr_number: int | None
    read_only: bool
    why_read_only: str

    @classmethod
    def from_env(cls, env: dict[str, str]) -> Context:
        event: dict[str, Any] = {}
        path = env.get("GITHUB_EVENT_PATH")
        if path and Path(path).is_file():
            event = json.loads(Path(path).read_text(encoding="utf-8"))
        name = env.get("GITHUB_EVENT_NAME", "")
        pr = event.get("pull_request") if isinstance(event.get("pull_request"), dict) else None
        why = ""
        if pr is not None and name == "pull_request":
            head = ((pr.get("head") or {}).get("repo") or {}).get("full_name")
            base = ((pr.get("base") or {}).get("repo") or {}).get("full_name")
            if head != base:  # a fork (or a deleted one): GitHub gives a read-only token
                why = f"pull request from fork {head or '(deleted)'}"
        if env.get("GITHUB_ACTOR") == "dependabot[bot]" and name.startswith("pull_request"):
            why = "pull request by Dependabot"
        return cls(
            repository=env.get("GITHUB_REPOSITORY", ""),
            api_url=env.get("GITHUB_API_URL", "https://api.github.com").rstrip("/"),
            token=env.get("GITHUB_TOKEN", ""),
            pr_number=pr.get("number") if pr is not None else None,
            read_only=bool(why),
            why_read_only=why,
        )


def command(message_kind: str, text: str) -> None:
    """A workflow command (::notice:: / ::warning:: / ::error::) on the log."""
    escaped = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    print(f"::{message_kind}::{escaped}", flush=True)


def run_arh(arguments: list[str]) -> int:
    print("+ " + shlex.join(arguments), flush=True)
    try:
        return subprocess.run(arguments, check=False).returncode
    except OSError as exc:
        command("error", f"cannot run {arguments[0]}: {exc.strerror or exc}")
        return EXIT_USAGE


def validate_args(inputs: Inputs, files: dict[str, Path]) -> list[str]:
    arguments = [*inputs.arh, "validate", "--policy", inputs.policy]
    if inputs.fail_under:
        arguments += ["--fail-under", inputs.fail_under]
    if inputs.format:
        arguments += ["--format", inputs.format]
    for name, flag in (("json", "--json-out"), ("junit", "--junit-out"), ("md", "--md-out")):
        arguments += [flag, str(files[name])]
    if inputs.sarif:
        arguments += ["--sarif-out", str(files["sarif"])]
    if inputs.html and not inputs.baseline:
        arguments += ["--html-out", str(files["html"])]
    return [*arguments, *inputs.args, *inputs.paths]


def compare_args(inputs: Inputs, files: dict[str, Path]) -> list[str]:
    arguments = [*inputs.arh, "compare", "--baseline", inputs.baseline]
    arguments += ["--candidate", str(files["json"]), "--fail-on", inputs.fail_on]
    arguments += ["--md-out", str(files["compare_md"]), "--json-out", str(files["compare"])]
    if inputs.html:
        arguments += ["--html-out", str(files["html"])]
    return arguments


def run_checks(inputs: Inputs, files: dict[str, Path]) -> tuple[int, Path]:
    """(exit code that decides the job, the Markdown to show)."""
    inputs.out_dir.mkdir(parents=True, exist_ok=True)
    code = run_arh(validate_args(inputs, files))
    if not inputs.baseline:
        return code, files["md"]
    if code == EXIT_USAGE or not files["json"].is_file():
        return EXIT_USAGE if code == EXIT_USAGE else 1, files["md"]
    # The gate is compare's: a failing trace the baseline already had is not a regression.
    return run_arh(compare_args(inputs, files)), files["compare_md"]


def write_summary(markdown: str, env: dict[str, str]) -> None:
    target = env.get("GITHUB_STEP_SUMMARY")
    if not target:
        return
    with open(target, "a", encoding="utf-8") as handle:
        handle.write(markdown.rstrip("\n") + "\n\n")


def _request(context: Context, method: str, path: str, body: dict[str, Any] | None) -> Any:
    request = urllib.request.Request(
        f"{context.api_url}{path}",
        data=None if body is None else json.dumps(body).encode("utf-8"),
        method=method,
        headers={
            "Authorization": f"Bearer {context.token}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
            "Content-Type": "application/json",
            "User-Agent": "arh-github-action",
        },
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"null")


def _existing_comment(context: Context) -> int | None:
    base = f"/repos/{context.repository}/issues/{context.pr_number}/comments?per_page=100"
    for page in range(1, 11):
        comments = _request(context, "GET", f"{base}&page={page}", None)
        for comment in comments or ():
            if str(comment.get("body", "")).startswith(MARKER):
                return int(comment["id"])
        if len(comments or ()) < 100:
            break
    return None


def post_comment(markdown: str, context: Context) -> str:
    """Create or update the one ARH comment of the pull request; says what it did."""
    if context.pr_number is None:
        return "skipped: not a pull request event"
    if context.read_only:
        return f"skipped: {context.why_read_only} (read-only token; the job summary has the report)"
    if not context.token or not context.repository:
        return "skipped: no token (give the token input or GITHUB_TOKEN)"
    body = f"{MARKER}\n{markdown}"[:COMMENT_LIMIT]
    try:
        found = _existing_comment(context)
        if found is None:
            path = f"/repos/{context.repository}/issues/{context.pr_number}/comments"
            _request(context, "POST", path, {"body": body})
            return "posted"
        path = f"/repos/{context.repository}/issues/comments/{found}"
        _request(context, "PATCH", path, {"body": body})
        return "updated"
    except urllib.error.HTTPError as exc:
        return f"skipped: GitHub answered {exc.code} (does the token have pull-requests: write?)"
    except (urllib.error.URLError, OSError, ValueError) as exc:
        return f"skipped: {exc}"


def write_outputs(values: dict[str, str], env: dict[str, str]) -> None:
    target = env.get("GITHUB_OUTPUT")
    lines = "".join(f"{key}={value}\n" for key, value in values.items())
    if target:
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(lines)
    else:
        sys.stdout.write(lines)


def main(env: dict[str, str]) -> int:
    inputs = Inputs.from_env(env)
    problem = inputs.problem()
    if problem:
        command("error", f"arh action: {problem}")
        write_outputs({"exit-code": str(EXIT_USAGE), "failed": "true"}, env)
        return EXIT_USAGE
    context = Context.from_env(env)
    d = inputs.out_dir
    files = {
        "json": d / "arh.json", "md": d / "arh.md", "junit": d / "arh.xml",
        "sarif": d / "arh.sarif", "html": d / "arh.html",
        "compare": d / "compare.json", "compare_md": d / "compare.md",
    }  # fmt: skip
    code, markdown_path = run_checks(inputs, files)
    markdown = markdown_path.read_text(encoding="utf-8") if markdown_path.is_file() else ""
    if inputs.summary and markdown:
        write_summary(markdown, env)
    if inputs.comment and markdown:
        outcome = post_comment(markdown, context)
        kind = "warning" if outcome.startswith("skipped: GitHub") else "notice"
        command(kind, f"PR comment {outcome}")
    upload = inputs.sarif and files["sarif"].is_file() and not context.read_only
    if inputs.sarif and context.read_only:
        command("notice", f"SARIF upload skipped: {context.why_read_only} (read-only token)")
    # `never` reports only; an input that could not be read still fails the job.
    unreadable = _unreadable(files["json"])
    failed = code == EXIT_USAGE or (code != 0 and (inputs.fail_on != "never" or unreadable > 0))
    write_outputs(
        {
            "exit-code": str(code),
            "failed": str(failed).lower(),
            "report": str(files["json"]) if files["json"].is_file() else "",
            "markdown": str(markdown_path) if markdown else "",
            "sarif": str(files["sarif"]) if files["sarif"].is_file() else "",
            "sarif-upload": str(upload).lower(),
            "junit": str(files["junit"]) if files["junit"].is_file() else "",
            "html": str(files["html"]) if files["html"].is_file() else "",
        },
        env,
    )
    if failed:
        what = "the gate failed" if inputs.baseline else "traces failed"
        if unreadable:
            what = f"{unreadable} input(s) could not be read"
        command("error", f"ARH: {what} (arh exit {code})")
    return 1 if failed else 0


def _unreadable(report: Path) -> int:
    """Inputs the run could not read, from its JSON report (0 when there is none)."""
    try:
        value = json.loads(report.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0
    errors = value.get("input_errors") if isinstance(value, dict) else None
    return len(errors) if isinstance(errors, list) else 0


if __name__ == "__main__":
    sys.exit(main(dict(os.environ)))
