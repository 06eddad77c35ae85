"""The console: `--show all|failures|summary` (and its default on a terminal and in CI),
FORCE_COLOR and NO_COLOR (no-color.org: only a non-empty value counts), the count of
transcript items not mapped (ARH-SCH-013) and the run's policy warnings."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from agent_reliability_harness import pipeline
from agent_reliability_harness.api import load_policy
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.models.report import Section
from agent_reliability_harness.render import RenderOptions
from helpers import SAMPLES, make_trace, response, tool_call

POLICY = str(SAMPLES / "policy.json")
TRACES = str(SAMPLES / "traces")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _cli(args: list[str], out: io.StringIO | None = None) -> tuple[int, str, str]:
    out = out if out is not None else io.StringIO()
    err = io.StringIO()
    code = main(args, Streams(out, err, None))
    return code, out.getvalue(), err.getvalue()


def _heads(text: str) -> list[str]:
    return [line.split()[0] for line in text.splitlines() if line.startswith("[")]


def test_show_all_failures_and_summary() -> None:
    _, every, _ = _cli(["validate", "--policy", POLICY, TRACES, "--show", "all"])
    _, failures, _ = _cli(["validate", "--policy", POLICY, TRACES, "--show", "failures"])
    _, summary, _ = _cli(["validate", "--policy", POLICY, TRACES, "--show", "summary"])
    assert _heads(every).count("[PASS]") == 2 and _heads(every).count("[FAIL]") == 7
    assert _heads(failures) == ["[FAIL]"] * 7
    # The failing traces' blocks are the very blocks `all` prints.
    blocks = [b for b in every.split("\n\n") if b.startswith("[FAIL]")]
    assert failures == "\n\n".join(blocks) + "\n\n" + every.splitlines()[-1] + "\n"
    assert summary == every.splitlines()[-1] + "\n"
    assert summary.startswith("9 traces: 2 passed, 7 failed")


def test_default_is_all_but_failures_in_a_ci_log(monkeypatch: pytest.MonkeyPatch) -> None:
    _, plain, _ = _cli(["validate", "--policy", POLICY, TRACES])
    assert "[PASS]" in plain
    monkeypatch.setenv("CI", "true")
    _, in_ci, _ = _cli(["validate", "--policy", POLICY, TRACES])
    assert "[PASS]" not in in_ci and "[FAIL]" in in_ci
    _, on_terminal, _ = _cli(["validate", "--policy", POLICY, TRACES], Terminal())
    assert "[PASS]" in on_terminal  # a person watching a terminal sees every trace
    _, asked, _ = _cli(["validate", "--policy", POLICY, TRACES, "--show", "all"])
    assert asked == plain
    for off in ("false", "0", ""):
        monkeypatch.setenv("CI", off)
        assert _cli(["validate", "--policy", POLICY, TRACES])[1] == plain


def test_compare_show(tmp_path: Path) -> None:
    baseline = tmp_path / "b.json"
    _cli(["validate", "--policy", POLICY, str(SAMPLES / "traces" / "refund-ok.json"),
          "--json-out", str(baseline)])  # fmt: skip
    base = ["compare", "--baseline", str(baseline), "--policy", POLICY, TRACES]
    _, every, _ = _cli([*base, "--show", "all"])
    _, failures, _ = _cli([*base, "--show", "failures"])
    _, summary, _ = _cli([*base, "--show", "summary"])
    assert "[ADDED] retry-ok-0002" in every and "[ADDED] retry-ok-0002" not in failures
    assert "[ADDED] schema-fail-0003" in failures
    assert "[ADDED]" not in summary and summary.startswith("GATE: FAIL")
    assert summary.splitlines()[-1] == every.splitlines()[-1]  # the unchanged count


@pytest.mark.parametrize(
    ("env", "terminal", "color"),
    [
        ({}, False, False),
        ({}, True, True),
        ({"NO_COLOR": "1"}, True, False),
        ({"NO_COLOR": ""}, True, True),  # no-color.org: an empty value does not count
        ({"FORCE_COLOR": "1"}, False, True),
        ({"FORCE_COLOR": "0"}, False, True),  # any non-empty value forces it
        ({"FORCE_COLOR": ""}, False, False),
        ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False, True),
        ({"TERM": "dumb"}, True, False),
    ],
)
def test_colour(
    env: dict[str, str], terminal: bool, color: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TERM", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    out = Terminal() if terminal else io.StringIO()
    _, text, _ = _cli(["validate", "--policy", POLICY, TRACES], out)
    assert ("\033[31m[FAIL]\033[0m" in text) is color
    code, compared, _ = _cli(
        ["compare", "--baseline", str(SAMPLES / "reports" / "missing.json"), "--candidate", "x"],
        Terminal() if terminal else io.StringIO(),
    )
    assert code == 1 and compared == ""  # an error: nothing painted on stdout


def _notes_trace(trace_id: str, notes: int) -> dict[str, object]:
    return make_trace(
        tool_call("s1", "lookup_order", {"order_id": "ORD-1234"}),
        response("s2", "done"),
        trace_id=trace_id,
        metadata={"adapter": {"notes": [{"issue": f"unknown part {n}"} for n in range(notes)]}},
    )


def test_summary_counts_transcript_items_not_mapped(tmp_path: Path) -> None:
    lines = [_notes_trace("a", 2), _notes_trace("b", 0), _notes_trace("c", 1003)]
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in lines))
    _, out, _ = _cli(["validate", "--policy", POLICY, str(path), "--show", "summary"])
    # 1,003 notes on one trace: 1,000 findings and one "and 3 more" (the findings cap).
    assert out.endswith("; 1005 transcript items not mapped (ARH-SCH-013)\n"), out
    path.write_text(json.dumps(_notes_trace("one", 1)) + "\n")
    _, out, _ = _cli(["validate", "--policy", POLICY, str(path), "--show", "summary"])
    assert out.endswith("; 1 transcript item not mapped (ARH-SCH-013)\n")
    _, out, _ = _cli(["validate", "--policy", POLICY, TRACES, "--show", "summary"])
    assert "not mapped" not in out


WARNINGS = Section(
    "policy_warnings",
    [
        {"source": "p.json", "path": "sequence.forbiden_tools",
         "message": "unknown key (did you mean 'forbidden_tools'?)"},
        {"source": None, "path": "", "message": "evil\n::error::x"},
    ],
)  # fmt: skip


def test_policy_warnings_before_the_summary() -> None:
    out = io.StringIO()
    sink = pipeline.ConsoleSink(out, RenderOptions(show="summary"))
    pipeline.run([TRACES], [load_policy(POLICY)], [sink], sections=[WARNINGS])
    assert out.getvalue().splitlines() == [
        "warning: p.json: policy sequence.forbiden_tools: unknown key (did you mean "
        "'forbidden_tools'?)",
        "warning: policy: evil\\x0a::error::x",
        "9 traces: 2 passed, 7 failed, average score 91.09; findings: 20 error, 1 warning, "
        "0 info; 2 policy warnings",
    ]
