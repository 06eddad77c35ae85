"""Build the adapter fixtures with the official SDKs, offline, and their expected outputs.

    python tests/adapters/make_fixtures.py      # rewrites tests/adapters/fixtures and expected

fixtures/<format>/<scenario>.json is what the SDK dumps; expected/<format>/<scenario>.json
is `arh convert` of it (review its diff: it is the adapter's contract).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "src"))

import sdk_extras  # noqa: E402
import sdk_losses  # noqa: E402
import sdk_messages  # noqa: E402
import sdk_spans  # noqa: E402
from scenarios import SCENARIOS, Scenario  # noqa: E402

from agent_reliability_harness.adapters import to_canonical  # noqa: E402

FIXTURES = HERE / "fixtures"
EXPECTED = HERE / "expected"

RAW_ARGS = {"openai-chat", "openai-responses", "cohere-chat", "openai-agents", "otel-genai"}
ORPHANS = {
    "openai-chat",
    "openai-responses",
    "anthropic-messages",
    "cohere-chat",
    "google-genai",
    "otel-genai",
}

RENDERERS: dict[str, Callable[[Scenario], Any]] = {
    "openai-chat": sdk_messages.openai_chat,
    "openai-responses": sdk_messages.openai_responses,
    "anthropic-messages": sdk_messages.anthropic_messages,
    "cohere-chat": sdk_messages.cohere_chat,
    "google-genai": sdk_messages.google_genai,
    "openai-agents": sdk_spans.openai_agents,
    "otel-genai": sdk_spans.otel_genai,
}


def supports(fmt: str, scenario: Scenario) -> bool:
    """Arguments that are not JSON need a format whose arguments are text (not Anthropic's
    or Gemini's objects); a result with no call needs a format that records results apart
    from calls (not the Agents SDK's function spans)."""
    if scenario.needs_raw_args and fmt not in RAW_ARGS:
        return False
    return not (scenario.orphan is not None and fmt not in ORPHANS)


def dumps(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def build_all() -> dict[str, str]:
    """Every fixture and expected file: relative path -> text."""
    files: dict[str, str] = {}
    for fmt, render in RENDERERS.items():
        cases = [(s.name, render(s)) for s in SCENARIOS if supports(fmt, s)]
        cases += sdk_extras.EXTRAS[fmt]()
        cases += sdk_losses.LOSSES.get(fmt, list)()
        for name, built in cases:
            value = json.loads(json.dumps(built))  # exactly what a reader of the file gets
            files[f"fixtures/{fmt}/{name}.json"] = dumps(value)
            converted = to_canonical(value, fmt, name)
            files[f"expected/{fmt}/{name}.json"] = dumps(
                converted[0] if len(converted) == 1 else converted
            )
    return files


def main() -> int:
    files = build_all()
    for folder in (FIXTURES, EXPECTED):
        for fmt in RENDERERS:  # the CLI-tool formats' files belong to make_cli_fixtures.py
            for old in (folder / fmt).glob("*.json"):
                if str(old.relative_to(HERE)) not in files:
                    old.unlink()
    for relative, text in files.items():
        path = HERE / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    print(f"wrote {len(files)} files under {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
