"""Policy warnings from a real policy file (a typo the loader warns about), end to end
through the CLI: printed once on stderr, counted (never repeated) on the console, and
shown in every file format of `validate` and of `compare` (Markdown, JUnit, SARIF,
HTML); a compare page streamed through the pipeline keeps the repeated-run tables."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.models.baseline import parse_report
from agent_reliability_harness.render._policies import policy_warnings
from helpers import SAMPLES

TRACES = str(SAMPLES / "traces")
TYPO = "unknown key (did you mean 'forbidden_tools'?)"


def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, None))
    return code, out.getvalue(), err.getvalue()


def _index(path: Path) -> dict[str, object]:
    text = path.read_text()
    found: dict[str, object] = json.loads(
        text.split('id="arh-index">', 1)[1].split("</script>", 1)[0]
    )
    return found


@pytest.fixture(scope="module")
def typo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("typo")
    policy = json.loads((SAMPLES / "policy.json").read_text())
    policy["sequence"]["forbiden_tools"] = ["x"]
    (folder / "p.json").write_text(json.dumps(policy))
    return folder


def test_validate_warns_once_on_stderr_and_counts_on_the_console(typo: Path) -> None:
    policy = str(typo / "p.json")
    outs = {fmt: str(typo / f"r.{fmt}") for fmt in ("md", "xml", "sarif", "html", "json")}
    code, out, err = _cli(["validate", "--policy", policy, TRACES, "--show", "summary",
                           "--md-out", outs["md"], "--junit-out", outs["xml"],
                           "--sarif-out", outs["sarif"], "--html-out", outs["html"],
                           "--json-out", outs["json"]])  # fmt: skip
    assert code == 1  # the sample run fails on its findings, not on the warning
    line = f"{policy}: policy sequence.forbiden_tools: {TYPO}"
    assert err.splitlines() == [f"warning: {line}"]
    assert out.splitlines() == [
        "9 traces: 2 passed, 7 failed, average score 91.09; findings: 20 error, 1 warning, "
        "0 info; 1 policy warning"
    ]
    md = Path(outs["md"]).read_text()
    assert "**Policy warnings (1):**\n\n- " in md and "forbiden\\_tools" in md
    suite = ET.parse(outs["xml"]).getroot().find("./testsuite/system-out")
    assert suite is not None and suite.text == f"policy warning: {line}"
    (invocation,) = json.loads(Path(outs["sarif"]).read_text())["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is True
    assert [n["message"]["text"] for n in invocation["toolExecutionNotifications"]] == [f"{line}."]
    warnings = [{"source": policy, "path": "sequence.forbiden_tools", "message": TYPO}]
    assert _index(Path(outs["html"]))["policy_warnings"] == warnings
    report = json.loads(Path(outs["json"]).read_text())
    assert [{k: w[k] for k in ("source", "path", "message")} for w in
            report["policy_warnings"]] == warnings  # fmt: skip


def test_compare_shows_the_candidates_warnings(typo: Path) -> None:
    policy = str(typo / "p.json")
    base = str(typo / "base.json")
    _cli(["validate", "--policy", str(SAMPLES / "policy.json"), TRACES, "--json-out", base,
          "--quiet"])  # fmt: skip
    md, page, js = (str(typo / name) for name in ("c.md", "c.html", "c.json"))
    code, out, err = _cli(["compare", "--baseline", base, "--policy", policy, TRACES,
                           "--md-out", md, "--html-out", page, "--json-out", js])  # fmt: skip
    assert code == 0
    assert err.count("warning: ") == 1
    assert "note: the candidate run has 1 policy warning (policy_warnings)" in out.splitlines()
    assert "warning:" not in out
    text = Path(md).read_text()
    assert f"**Policy warnings (1):**\n\n- {policy}: policy sequence.forbiden\\_tools" in text
    index = _index(Path(page))
    assert index["policy_warnings"] == [
        {"source": policy, "path": "sequence.forbiden_tools", "message": TYPO}
    ]
    assert "policy_warnings" not in Path(js).read_text()  # the comparison's JSON is unchanged
    # Given a candidate report, the warnings come from it.
    cand = str(typo / "cand.json")
    _cli(["validate", "--policy", policy, TRACES, "--json-out", cand, "--quiet"])
    code, out, err = _cli(["compare", "--baseline", base, "--candidate", cand])
    assert err == "" and "1 policy warning" in out


def test_streamed_compare_page_keeps_the_repeated_run_tables(tmp_path: Path) -> None:
    repeated = SAMPLES / "repeated"
    base, page = str(tmp_path / "b.json"), tmp_path / "c.html"
    policy = str(repeated / "policy.json")
    _cli(["validate", "--policy", policy, str(repeated / "baseline.jsonl"), "--json-out", base,
          "--quiet"])  # fmt: skip
    _cli(["compare", "--baseline", base, "--policy", policy, str(repeated / "candidate.jsonl"),
          "--html-out", str(page), "--quiet"])  # fmt: skip
    index = _index(page)
    titles = [s["title"] for s in index["sections"]]  # type: ignore[index, union-attr]
    assert titles == ["Repeated runs: task changes", "Repeated runs: rule changes per task"]
    assert "note" not in index  # made with the traces: the page has their timelines


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ({"a": 1}, "policy_warnings: must be an array (got object)"),
        ([1], "policy_warnings[0]: must be an object (got number)"),
        ([{"path": 7, "message": "m"}], "policy_warnings[0].path: "),
        ([{"path": "p", "message": "m", "policy_ids": "x"}], "policy_warnings[0].policy_ids: "),
    ],
)
def test_a_report_with_malformed_policy_warnings_is_refused(
    tmp_path: Path, value: object, error: str
) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"reports": [], "policy_warnings": value}))
    code, _, err = _cli(["compare", "--baseline", str(path), "--candidate", str(path)])
    assert code == 1
    assert err.startswith(f"error: {path}: {error}"), err


def test_a_report_read_back_keeps_its_warnings() -> None:
    entry = {"source": None, "path": "", "message": "m", "policy_ids": ["p"]}
    run = parse_report({"reports": [], "policy_warnings": [entry]})
    assert [(w.source, w.path, w.message) for w in policy_warnings(run.sections)] == [
        (None, "", "m")
    ]
    assert parse_report({"reports": [], "policy_warnings": []}).sections == ()
