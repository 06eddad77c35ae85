"""`--html-out` through the CLI and the pipeline: the page streamed from the workers is the
page the writer makes from (report, trace) pairs, byte for byte (the golden files), on
any executor; a trace too big to hold gets the same bounded timeline as when read
whole; `compare --policy` pages have the candidate's timelines, `compare --candidate`
pages say they have none."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from html_helpers import OPTIONS

from agent_reliability_harness.cli import compare_cmd, main, validate_cmd
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.pipeline import documents, executors, html_output, process
from agent_reliability_harness.render.html_report import (
    NO_TRACES_COMPARE,
    EmbedLimits,
    HtmlReportWriter,
    TraceFragment,
)
from helpers import make_trace, response, tool_call

pytestmark = pytest.mark.usefixtures("at_repo_root")

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "html"
CMP = "tests/compare/data"


@pytest.fixture(autouse=True)
def _test_version(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI writes the golden files' tool version."""
    monkeypatch.setattr(validate_cmd, "__version__", OPTIONS.tool_version)
    monkeypatch.setattr(compare_cmd, "__version__", OPTIONS.tool_version)


def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, None))
    return code, out.getvalue(), err.getvalue()


def _page(tmp_path: Path, policy: str, paths: list[str], *more: str) -> str:
    target = tmp_path / "page.html"
    _cli(["validate", "--policy", policy, *paths, "--html-out", str(target), "--quiet", *more])
    return target.read_text(encoding="utf-8")


def _index(text: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        text.split('id="arh-index">', 1)[1].split("</script>", maxsplit=1)[0]
    )
    return data


def _blocks(text: str) -> list[dict[str, Any]]:
    count = len(_index(text)["traces"])
    return [
        json.loads(text.split(f'id="d{i}">', 1)[1].split("</script>", maxsplit=1)[0])
        for i in range(count)
    ]


CASES = {
    "samples": ("tests/data/samples/policy.json", ["tests/data/samples/traces"]),
    "mixed": ("tests/data/samples/policy.json", ["tests/data/mixed"]),
    "xss": ("samples/policy.json", ["tests/data/html/xss.json"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_cli_page_is_the_golden_page(
    case: str, jobs: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(executors, "CHUNK_UNITS", 2)  # several chunks: workers interleave
    policy, paths = CASES[case]
    text = _page(tmp_path, policy, paths, "--jobs", jobs)
    assert text.encode("utf-8") == (GOLDEN / f"{case}.html").read_bytes()


def _long_trace(steps: int) -> dict[str, Any]:
    body = [
        tool_call(f"s{n}", "lookup_order", {"order_id": "ORD-1234", "n": n}, output={"n": n})
        for n in range(steps)
    ]
    return make_trace(*body, response("end", "done"), trace_id="long", inputs=[
        {"role": "user", "text": "refund please"}])  # fmt: skip


@pytest.mark.parametrize("max_steps", [3, 10_000])
def test_a_streamed_trace_gets_the_timeline_of_a_whole_read(
    max_steps: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "long.json"
    source.write_text(json.dumps(_long_trace(9000)))
    monkeypatch.setattr(html_output, "LIMITS", EmbedLimits(max_steps=max_steps))
    whole = _page(tmp_path, "samples/policy.json", [str(source)])
    streamed: list[str] = []
    real = process.UnitProcessor._streamed

    def spy(self: Any, path: Any, source_path: str, builder: Any) -> bool:
        done: bool = real(self, path, source_path, builder)
        streamed.append(source_path)
        return done

    monkeypatch.setattr(process.UnitProcessor, "_streamed", spy)
    monkeypatch.setattr(documents, "STREAM_MIN_BYTES", 1_000)  # 9,000 steps: three chunks
    assert _page(tmp_path, "samples/policy.json", [str(source)]) == whole
    assert streamed, "the trace was not streamed"
    (block,) = _blocks(whole)
    steps = block["trace"]["steps"]
    assert len(steps) == min(max_steps, 9001)
    assert block["trace"].get("steps_omitted", 0) == 9001 - len(steps)
    assert block["trace"]["inputs"] == [["user", "refund please"]]


def test_compare_with_traces_has_timelines(tmp_path: Path) -> None:
    baseline, target = tmp_path / "base.json", tmp_path / "c.html"
    _cli(["validate", "--policy", f"{CMP}/policy.json", f"{CMP}/baseline", "--json-out",
          str(baseline), "--quiet"])  # fmt: skip
    code, _, _ = _cli(["compare", "--baseline", str(baseline), "--policy", f"{CMP}/policy.json",
                       f"{CMP}/candidate", "--html-out", str(target), "--quiet"])  # fmt: skip
    assert code == 1
    text = target.read_text()
    index, blocks = _index(text), _blocks(text)
    assert "note" not in index
    for row, block in zip(index["traces"], blocks, strict=True):
        if row["status"] == "removed":
            assert block["trace"] is None
        else:
            assert block["trace"]["steps"], row["id"]
    jobs = tmp_path / "c2.html"
    _cli(["compare", "--baseline", str(baseline), "--policy", f"{CMP}/policy.json",
          f"{CMP}/candidate", "--html-out", str(jobs), "--quiet", "--jobs", "2"])  # fmt: skip
    assert jobs.read_text() == text


def test_one_trace_id_under_two_policies_keeps_both_timelines(tmp_path: Path) -> None:
    """Compare matches per (trace_id, policy_id) when a run is judged by several policies:
    each of the two traces named "t" keeps its own trajectory on the page."""
    traces = tmp_path / "traces"
    traces.mkdir()
    policies = []
    for workflow, tool in (("a", "alpha_tool"), ("b", "beta_tool")):
        trace = make_trace(tool_call("s1", tool, {}, output="ok"), response("s2", "done"))
        trace.update(trace_id="t", workflow=workflow)
        (traces / f"{workflow}.json").write_text(json.dumps(trace))
        policy = tmp_path / f"p{workflow}.json"
        rules = {"policy_id": f"p{workflow}", "allow_unlisted_tools": True}
        policy.write_text(json.dumps(rules | {"applies_to": {"workflow": [workflow]}}))
        policies += ["--policy", str(policy)]
    baseline, target = tmp_path / "base.json", tmp_path / "c.html"
    _cli(["validate", *policies, str(traces), "--json-out", str(baseline), "--quiet"])
    code, _, err = _cli(["compare", "--baseline", str(baseline), *policies, str(traces),
                         "--html-out", str(target), "--quiet"])  # fmt: skip
    assert (code, err) == (0, "")
    tools = {}
    for row, block in zip(_index(target.read_text())["traces"], _blocks(target.read_text()),
                          strict=True):  # fmt: skip
        tools[row["policy"]] = json.dumps(block["trace"]["steps"])
    assert "alpha_tool" in tools["pa"] and "beta_tool" not in tools["pa"]
    assert "beta_tool" in tools["pb"] and "alpha_tool" not in tools["pb"]


def test_compare_from_reports_says_it_has_no_traces(tmp_path: Path) -> None:
    baseline, candidate, target = tmp_path / "b.json", tmp_path / "c.json", tmp_path / "c.html"
    for side, out in (("baseline", baseline), ("candidate", candidate)):
        _cli(["validate", "--policy", f"{CMP}/policy.json", f"{CMP}/{side}", "--json-out",
              str(out), "--quiet"])  # fmt: skip
    _cli(["compare", "--baseline", str(baseline), "--candidate", str(candidate), "--html-out",
          str(target), "--quiet"])  # fmt: skip
    text = target.read_text()
    assert _index(text)["note"] == NO_TRACES_COMPARE
    assert all(block["trace"] is None for block in _blocks(text))


def test_the_writer_spools_what_it_is_given(tmp_path: Path) -> None:
    """Memory stays flat: past 8 MB the blocks are on disk, not in the writer."""
    writer = HtmlReportWriter(None, "p", OPTIONS)
    text = _page(tmp_path, "samples/policy.json", ["samples/traces"])
    block = _blocks(text)[0]
    fragment = json.dumps(block)
    for _ in range((9 << 20) // len(fragment) + 1):
        writer.add_fragment(TraceFragment(fragment, "{}", ()))
    assert writer.blocks.file._rolled  # type: ignore[attr-defined]
