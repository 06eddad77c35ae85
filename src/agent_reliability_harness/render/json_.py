"""The JSON report: the contract's shape, fixed key order, indent 2, trailing newline."""

from __future__ import annotations

import json
from typing import Any

from ..models.report import RunReport
from .base import Renderer, RenderOptions


def dumps(value: Any) -> str:
    """Deterministic JSON text for any report-like dict."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def render_run(report: RunReport, options: RenderOptions) -> str:
    return dumps(report.to_dict())


RENDERER = Renderer("json", ".json", "run", "JSON report (also the baseline format)", render_run)
