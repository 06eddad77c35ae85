"""Output is safe for its medium (issue 18 items 10-11), through the CLI, with hostile
trace ids, agent and workflow names, step ids, tool names (which reach finding
messages) and file names: the console (validate and compare, stdout and stderr) never
carries a control sequence or a line a CI runner reads as a workflow command; Markdown
(validate and compare) never carries a live mention, issue reference, bare link, bidi
control or invisible character."""

from __future__ import annotations

import io
import json
import re
import unicodedata
from pathlib import Path

import pytest

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.render._escape import md_code, md_text, term
from helpers import SAMPLES

POLICY = str(SAMPLES / "policy.json")
HOSTILE = (
    "evil\n::error file=a.py,line=1::pwned\r\n::add-mask::s3cr3t\x1b[2J\x1b]0;t\x07\x9b"
    "\u202egnp.exe\u2066x\u2069 \u200bz\ufeff @octocat @org/team user@example.com "
    "#123 GH-9 gh-10 owner/repo#4 https://evil.example/x www.evil.example\u2028end"
)
# What may never reach a terminal or a CI log.
_TERMINAL_BAD = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]"
)


def _trace(trace_id: str, tool: str = "lookup_order", **labels: str) -> dict[str, object]:
    return {
        "trace_id": trace_id,
        "agent_name": labels.get("agent", "agent"),
        "workflow": labels.get("workflow", "wf"),
        "steps": [
            {"step_id": labels.get("step", "s1"), "type": "tool_call", "tool_name": tool,
             "arguments": {"order_id": "ORD-1234"}},
            {"step_id": "s2", "type": "model_response", "text": "done"},
        ],
    }  # fmt: skip


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A directory of hostile inputs: labels everywhere, a hostile tool name (it is not in
    allowed_tools, so its name is quoted in a finding message) and a hostile file name."""
    folder = tmp_path / "in"
    folder.mkdir()
    trace = _trace(
        HOSTILE, f"tool{HOSTILE}", agent=f"a{HOSTILE}", workflow=f"w{HOSTILE}", step=HOSTILE
    )
    (folder / "evil.json").write_text(json.dumps(trace), encoding="utf-8")
    (folder / f"bad{HOSTILE.replace('/', '_')}.json").write_text("{oops", encoding="utf-8")
    return folder


def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, None))
    return code, out.getvalue(), err.getvalue()


def _assert_terminal_safe(text: str) -> None:
    assert not _TERMINAL_BAD.search(text), repr(_TERMINAL_BAD.search(text))
    for line in text.split("\n"):
        # GitHub Actions (and Azure's ##vso) read commands at the start of a line only.
        assert not line.lstrip().startswith(("::", "##vso")), line


def test_validate_console_escapes_everything(hostile: Path) -> None:
    code, out, err = _cli(["validate", "--policy", POLICY, str(hostile)])
    assert code == 1
    _assert_terminal_safe(out)
    _assert_terminal_safe(err)
    assert "evil\\x0a::error file=a.py" in out  # shown, spelled out
    assert "\\x1b[2J" in out and "\\u202egnp.exe" in out
    assert "tool 'toolevil\\x0a::error" in out  # in a finding message
    assert err.startswith("error: ") and err.count("\n") == 1 and "bad" in err


def test_compare_console_escapes_everything(hostile: Path, tmp_path: Path) -> None:
    baseline = tmp_path / "base.json"
    assert _cli(["validate", "--policy", POLICY, str(SAMPLES / "traces"), "--json-out",
                 str(baseline), "--quiet"])[0] == 1  # fmt: skip
    code, out, err = _cli(
        ["compare", "--baseline", str(baseline), "--policy", POLICY, str(hostile)]
    )
    assert code == 1
    _assert_terminal_safe(out)
    _assert_terminal_safe(err)
    assert "evil\\x0a::error" in out


# ---- Markdown ---------------------------------------------------------------------

_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
_WJ = "\u2060"


def _outside_code(text: str) -> str:
    return _CODE_SPAN.sub(" ", text)


def _assert_markdown_safe(text: str) -> None:
    invisible = [c for c in text if unicodedata.category(c) == "Cf" and c != _WJ]
    assert not invisible, invisible
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]", text)
    prose = _outside_code(text)
    for live in (r"@[A-Za-z0-9]", r"#[0-9]", r"(?i)\bGH-[0-9]", r"://", r"(?i)www\.(?!\u2060)"):
        hits = [m for m in re.finditer(live, prose) if "](" not in prose[m.start() - 2 : m.end()]]
        # Our own links are reference links: `[ARH-SCH-001]: https://...` at the end.
        hits = [m for m in hits if not _is_link_definition(prose, m.start())]
        assert not hits, (live, [prose[m.start() - 20 : m.end() + 20] for m in hits])
    assert "\\@" not in text, "a backslash does not stop GitHub from notifying"
    for line in text.splitlines():
        assert not line.startswith("::")


def _is_link_definition(text: str, at: int) -> bool:
    line = text[text.rfind("\n", 0, at) + 1 : text.find("\n", at)]
    return re.match(r"\[ARH-[A-Z]{3}-\d{3}\]: https://", line) is not None


def test_validate_markdown_neutralises_mentions_references_and_bidi(
    hostile: Path, tmp_path: Path
) -> None:
    target = tmp_path / "r.md"
    assert _cli(["validate", "--policy", POLICY, str(hostile), "--md-out", str(target)])[0] == 1
    text = target.read_text(encoding="utf-8")
    _assert_markdown_safe(text)
    assert "@\u2060octocat" in text and "\\#\u2060123" in text  # in the finding message
    assert "\\u202e" in text  # the bidi control is shown, spelled out


def test_compare_markdown_escapes_the_same_way(hostile: Path, tmp_path: Path) -> None:
    baseline, target = tmp_path / "base.json", tmp_path / "c.md"
    _cli(["validate", "--policy", POLICY, str(SAMPLES / "traces"), "--json-out", str(baseline)])
    code, _, _ = _cli(["compare", "--baseline", str(baseline), "--policy", POLICY,
                       str(hostile), "--md-out", str(target)])  # fmt: skip
    assert code == 1
    text = target.read_text(encoding="utf-8")
    _assert_markdown_safe(text)
    assert "@\u2060octocat" in text


# ---- the escaping module itself ------------------------------------------------------


def test_every_format_character_is_spelled_out() -> None:
    """The hard-coded invisible set covers Unicode's Cf category (this Python's)."""
    for code in range(0x110000):
        char = chr(code)
        if unicodedata.category(char) == "Cf":
            assert term(char) != char, hex(code)
            assert _WJ not in md_code(char) and char not in md_text(char), hex(code)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain id-1", "plain id-1"),
        ("a\nb\rc\x1bd\x9be", "a\\x0ab\\x0dc\\x1bd\\x9be"),
        ("\u202eabc\u2069", "\\u202eabc\\u2069"),
        ("tag\U000e0041", "tag\\U000e0041"),
        ("lone \udcff", "lone \\udcff"),
    ],
)
def test_term(text: str, expected: str) -> None:
    assert term(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("@octocat", "@\u2060octocat"),
        ("mail a@b.com", "mail a@\u2060b.com"),
        ("fixes #12 and o/r#3", "fixes \\#\u206012 and o/r\\#\u20603"),
        ("GH-12 gh-3 XGH-4", "GH-\u206012 gh-\u20603 XGH-4"),
        ("see https://x.io", "see https:\u2060//x.io"),
        ("www.x.io", "www.\u2060x.io"),
        ("\u202eevil", "\\u202eevil"),
        ("a\nb|c", "a b\\|c"),
        ("# heading", "\\# heading"),
    ],
)
def test_md_text(text: str, expected: str) -> None:
    assert md_text(text) == expected
