"""What the browser tests share: where chromium is and how it is started, one open page
(`Page`), and pages written by the writer or by the CLI."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("ARH_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = ROOT / "build" / "artifacts" / "html"
# As root and without network: no sandbox, and no background connections to refuse.
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


def missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401, PLC0415
    except ImportError:
        return "the playwright package is missing: pip install -e '.[test-browser]'"
    if not Path(CHROMIUM).exists():
        return f"no chromium at {CHROMIUM}: apt-get install chromium (or set ARH_CHROMIUM)"
    return None


class Page:
    """One open page, with what it logged and whether it ever tried to run injected code."""

    def __init__(self, browser: Any, path: Path, shots: list[Path], prefix: str = "") -> None:
        self.page = browser.new_page()
        self.shots = shots
        self.prefix = prefix
        self.console: list[str] = []
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", self._dialog)
        self.page.goto(path.as_uri())
        self.page.wait_for_selector("body[data-ready='1']")
        assert not self.errors, self.errors

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def row(self, trace_id: str) -> Any:
        return self.page.locator(".list .row", has=self.page.get_by_text(trace_id, exact=True))

    def visible_ids(self) -> list[str]:
        return [t.strip() for t in self.page.locator(".list .row .rid").all_inner_texts()]

    def search(self, text: str) -> None:
        self.page.fill("input[type=search]", text)
        self.page.wait_for_selector(f"body[data-searched={json.dumps(text.lower())}]")

    def shot(self, name: str, full_page: bool = True) -> None:
        path = ARTIFACTS / f"{self.prefix + '-' if self.prefix else ''}{name}.png"
        self.page.evaluate("window.scrollTo(0, 0)")  # the trace list is sticky
        self.page.screenshot(path=str(path), full_page=full_page)
        self.shots.append(path)

    def close(self) -> None:
        assert not self.errors, self.errors
        self.page.close()


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="\n")
    return path


def cli(args: list[str]) -> int:
    return main(args, Streams(io.StringIO(), io.StringIO(), None))


def cli_page(tmp_path: Path, name: str, args: list[str]) -> Path:
    """A page written by `arh validate --html-out` itself (through the pipeline)."""
    path = tmp_path / name
    cli(["validate", *args, "--html-out", str(path), "--quiet"])
    return path
