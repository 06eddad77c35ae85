"""The HTML report of a large run: its size, and how fast it opens and searches in chromium.

    python benchmarks/html_report.py [--traces 10000] [--keep DIR]

Writes the benchmark corpus (about 11 KB of compact JSONL per trace), writes the report
with `arh validate --html-out` (CPU seconds and peak RSS, against the same run with
--json-out alone), then opens it from disk in Debian's chromium with
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
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import corpus

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


def _arh(args: list[str]) -> dict[str, Any]:
    """Run `arh` in a child process: its CPU seconds and peak RSS (os.wait4's rusage)."""
    command = [sys.executable, "-m", "agent_reliability_harness", *args]
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(child.pid, 0)
    return {
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
    }


def write_report(traces: Path, target: Path, policy: Path) -> dict[str, Any]:
    """The report as `arh validate --html-out` writes it (one process, --jobs 1), and the
    same run without the page, to show what the page costs in time and memory."""
    base = ["validate", "--policy", str(policy), str(traces), "--quiet", "--jobs", "1"]
    json_only = _arh([*base, "--json-out", str(target.with_suffix(".json"))])
    with_html = _arh([*base, "--json-out", str(target.with_suffix(".json")), "--html-out",
                      str(target)])  # fmt: skip
    return {
        "cli_json_only": json_only,
        "cli_json_and_html": with_html,
    }


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
    policy = work / "policy.json"
    policy.write_text(json.dumps(corpus.POLICY), encoding="utf-8")
    figures: dict[str, Any] = {"traces": args.traces}
    figures["trace_json_mb"] = round(traces.stat().st_size / 1e6, 1)
    figures.update(write_report(traces, report, policy))
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
