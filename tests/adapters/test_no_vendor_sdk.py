"""The core reads plain JSON: no module under src/ imports a vendor SDK."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "agent_reliability_harness"
VENDORS = {"openai", "anthropic", "cohere", "google", "agents", "opentelemetry", "pydantic"}


def test_no_vendor_imports() -> None:
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in VENDORS]
    assert not offenders
