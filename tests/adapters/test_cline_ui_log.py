"""Cline's UI message log (`ui_messages.json`) is refused with a pointer to the task's API
history (it holds what the UI showed, not the tool results the model read), under
`--format auto` and `--format cline`; no other format takes it."""

from __future__ import annotations

import io
import json
from pathlib import Path

import cli_cline
import pytest

from agent_reliability_harness.adapters.core import detect as _detect
from agent_reliability_harness.adapters.core.registry import ADAPTERS
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams


@pytest.mark.parametrize("fmt", ["auto", "cline"])
def test_the_ui_log_is_refused_naming_the_history(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "ui_messages.json"
    path.write_text(json.dumps(cli_cline.ui_messages()), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = main(["convert", "--format", fmt, str(path)], Streams(out, err, io.BytesIO()))
    assert code == 1 and out.getvalue() == ""
    assert "Cline's UI message log" in err.getvalue()
    assert "api_conversation_history.json" in err.getvalue()


def test_only_cline_claims_the_ui_log() -> None:
    scan = _detect.Scan(cli_cline.ui_messages())
    assert [a.name for a in ADAPTERS[1:] if scan.claims(a)] == ["cline"]
