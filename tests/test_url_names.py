"""Inputs named by URL keep `scheme://` intact wherever they are named (console, JSON
source_path, SARIF artifact URIs, Markdown, error lines), and a URL that cannot be read
says why (issue 17 part 7: `https:/example.com/t.json` was printed mangled)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.io import display_path
from helpers import SAMPLES

pytest.importorskip("fsspec")

POLICY = str(SAMPLES / "policy.json")


def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, None))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "url", ["https://example.com/t.json", "s3://bucket/a//b.json", "file:///tmp/x.json"]
)
def test_display_keeps_the_url(url: str) -> None:
    assert display_path(url) == url


def test_url_inputs_are_named_as_given_in_every_output(tmp_path: Path) -> None:
    store = tmp_path / "bucket dir"
    store.mkdir()
    (store / "t.json").write_bytes((SAMPLES / "traces" / "refund-ok.json").read_bytes())
    (store / "bad.json").write_text("{oops")
    url = f"file://{store}/"
    sarif, report, md = tmp_path / "r.sarif", tmp_path / "r.json", tmp_path / "r.md"
    code, out, err = _cli(["validate", "--policy", POLICY, url, "--sarif-out", str(sarif),
                           "--json-out", str(report), "--md-out", str(md)])  # fmt: skip
    assert code == 1
    name = f"file://{store}/t.json"
    assert f"  |  {name}\n" in out
    assert err == f"error: file://{store}/bad.json: invalid JSON: Expecting property name " \
                  "enclosed in double quotes (line 1, column 2)\n"  # fmt: skip
    assert json.loads(report.read_text())["reports"][0]["source_path"] == name
    assert f"`file://{store}/bad.json`" in md.read_text()
    run = json.loads(sarif.read_text())["runs"][0]
    note = run["invocations"][0]["toolExecutionNotifications"][0]
    uri = f"file://{str(store).replace(' ', '%20')}/bad.json"
    assert note["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": uri}


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("nosuchscheme://bucket/t.json", "cannot read: Protocol not known: nosuchscheme"),
        # https:// needs aiohttp; where it is installed, the refused connection is the reason.
        ("https://127.0.0.1:9/t.json", "cannot read: "),
        ("memory://nowhere/t.json", "no such file or directory"),
    ],
)
def test_an_unreadable_url_says_why_and_the_rest_is_read(url: str, why: str) -> None:
    good = str(SAMPLES / "traces" / "refund-ok.json")
    code, out, err = _cli(["validate", "--policy", POLICY, good, url])
    assert code == 1
    assert err.startswith(f"error: {url}: {why}"), err
    assert err.count("\n") == 1
    assert out.startswith("[PASS] refund-ok-0001")


def test_reports_are_read_by_url_too(tmp_path: Path) -> None:
    report = tmp_path / "base.json"
    _cli(["validate", "--policy", POLICY, str(SAMPLES / "traces"), "--json-out", str(report)])
    code, out, _ = _cli(["compare", "--baseline", f"file://{report}", "--candidate", str(report)])
    assert code == 0 and out.startswith("GATE: PASS")
    code, _, err = _cli(["compare", "--baseline", "nosuchscheme://b/r.json", "--candidate",
                         str(report)])  # fmt: skip
    assert code == 1
    assert err == "error: nosuchscheme://b/r.json: cannot read: Protocol not known: nosuchscheme\n"
