"""The HTML report of a large run: its size, and how fast it opens and searches in chromium.

    python benchmarks/html_report.py [--traces 10000] [--keep DIR]

Writes the benchmark corpus (about 11 KB of compact JSONL per trace), streams the
report through HtmlReportWriter, then opens it from disk in Debian's chromium with
Playwright (when both are installed) and times: the first trace rows on screen,
a search that matches a trace id, a search that only the trace contents match, and
opening a trace. Browser figures are wall-clock seconds of one run: read them as
orders of magnitude, never as a test.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import corpus

from agent_reliability_harness.api import LoadedTrace, iter_traces, policy_from_dict
from agent_reliability_harness.engine import Evaluator
from agent_reliability_harness.models.report import SummaryBuilder
from agent_reliability_harness.render import RenderOptions
from agent_reliability_harness.render.html_report import HtmlReportWriter

CHROMIUM = os.environ.get("ARH_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def write_report(traces: Path, target: Path) -> dict[str, Any]:
    policy = policy_from_dict(corpus.POLICY)
    evaluator = Evaluator(policy)
    summary = SummaryBuilder()
    started = time.process_time()
    with open(target, "w", encoding="utf-8", newline="\n") as out:
        writer = HtmlReportWriter(out, policy.policy_id, RenderOptions("bench"))
        for item in iter_traces([str(traces)]):
            if isinstance(item, LoadedTrace):
                report = evaluator.evaluate(item.trace, item.source_path)
                summary.add(report)
                writer.add(report, item.trace)
            else:
                writer.add_failure(item)
        writer.finish(summary.build())
    return {"cpu_seconds_evaluate_and_write": round(time.process_time() - started, 2)}


def _search(page: Any, text: str) -> float:
    started = time.perf_counter()
    page.fill("input[type=search]", text)
    page.wait_for_selector(f"body[data-searched={json.dumps(text.lower())}]", timeout=120_000)
    return round(time.perf_counter() - started, 2)


def browse(report: Path, last_id: str, content_term: str) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright  # noqa: PLC0415

    figures: dict[str, Any] = {}
    with sync_playwright() as driver:
        profile = tempfile.mkdtemp(prefix="arh-chromium-")
        context = driver.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=ARGS
        )
        page = context.new_page()
        started = time.perf_counter()
        page.goto(report.as_uri(), wait_until="commit", timeout=120_000)
        page.wait_for_selector("#row-0", timeout=120_000)
        figures["first_rows_seconds"] = round(time.perf_counter() - started, 2)
        figures["search_trace_id_seconds"] = _search(page, last_id)
        figures["search_id_hits"] = page.locator(".list .row").count()
        figures["search_contents_seconds"] = _search(page, content_term)
        figures["search_contents_hits"] = page.locator(".list .row").count()
        started = time.perf_counter()
        page.locator(".list .row").first.click()
        page.wait_for_selector("#trace-title")
        figures["open_trace_seconds"] = round(time.perf_counter() - started, 2)
        heap = page.evaluate("performance.memory ? performance.memory.usedJSHeapSize : null")
        figures["js_heap_mb"] = None if heap is None else round(heap / 1e6, 1)
        context.close()
        shutil.rmtree(profile, ignore_errors=True)
    return figures


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=10_000)
    parser.add_argument("--keep", type=Path, default=None, help="keep the files in DIR")
    args = parser.parse_args(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="arh-html-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    traces, report = work / "corpus.jsonl", work / "report.html"
    corpus.write_jsonl(str(traces), 5, args.traces)
    figures: dict[str, Any] = {"traces": args.traces}
    figures["trace_json_mb"] = round(traces.stat().st_size / 1e6, 1)
    figures.update(write_report(traces, report))
    figures["report_mb"] = round(report.stat().st_size / 1e6, 1)
    last = json.loads(traces.read_text(encoding="utf-8").rsplit("\n", 2)[-2])
    # A customer id occurs in its own trace only: found by the contents search alone.
    customer = last["steps"][0]["arguments"]["customer_id"]
    try:
        import playwright  # noqa: F401, PLC0415
    except ImportError:
        figures["browser"] = "skipped: playwright is not installed"
    else:
        if Path(CHROMIUM).exists():
            figures.update(browse(report, last["trace_id"], customer))
        else:
            figures["browser"] = f"skipped: no chromium at {CHROMIUM}"
    print(json.dumps(figures, indent=2))
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
