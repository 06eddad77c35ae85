"""Build the fixtures of the framework/SDK formats with the frameworks' own classes and
serialisers, offline, and their expected canonical outputs.

    python tests/adapters/make_sdk_fixtures.py   # rewrites these formats' fixtures and expected

fixtures/<format>/<name>.<suffix> is what the framework writes (JSON, or binary: `.eval`
zip archives, OTLP protobuf); expected/<format>/<name>.json is `arh convert` of it. Binary
twins of make_fixtures.py formats (otel-genai `.pb`) are checked against that generator's
goldens instead of having their own.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "src"))

import make_fixtures  # noqa: E402
import sdk_agents  # noqa: E402
import sdk_copilot  # noqa: E402
import sdk_inspect  # noqa: E402
import sdk_langchain  # noqa: E402
import sdk_langfuse  # noqa: E402
import sdk_mcp  # noqa: E402
import sdk_openinference  # noqa: E402
import sdk_pydantic_ai  # noqa: E402
import sdk_smolagents  # noqa: E402
from scenarios import SCENARIOS, Scenario  # noqa: E402

from agent_reliability_harness.adapters import BY_NAME, FILE_READERS, to_canonical  # noqa: E402

FIXTURES = HERE / "fixtures"
EXPECTED = HERE / "expected"


def _autogen_extras() -> list[tuple[str, Any]]:
    import sdk_autogen  # noqa: PLC0415 - autogen-agentchat is outside the extra

    return sdk_autogen.extras()


# Per format: the scenario renderer (None: the format has no vendor-neutral rendering),
# the scenarios it can express, and its extra cases as (file name, JSON value or bytes).
SCENARIO_RENDERERS: dict[str, Callable[[Scenario], Any]] = {
    "openinference": sdk_openinference.openinference,
    "pydantic-ai": sdk_pydantic_ai.pydantic_ai,
    "langchain": sdk_langchain.langchain,
    "mcp": sdk_mcp.mcp,
    "langfuse": sdk_langfuse.langfuse,
}
EXTRAS: dict[str, Callable[[], list[tuple[str, Any]]]] = {
    "openinference": lambda: sdk_openinference.extras() + sdk_agents.openinference(),
    "otel-genai": sdk_openinference.otel_genai_binary,
    "pydantic-ai": sdk_pydantic_ai.extras,
    "langchain": lambda: sdk_langchain.graph_extras() + sdk_agents.langgraph(),
    "mcp": sdk_mcp.extras,
    "langfuse": lambda: sdk_langfuse.extras() + sdk_agents.langfuse(),
    "inspect": sdk_inspect.extras,
    "smolagents": sdk_smolagents.extras,
    "autogen": _autogen_extras,
    "copilot-cli": sdk_copilot.extras,
}
# The pinned SDKs each format's fixtures are built with (the staleness test skips without).
SDKS: dict[str, tuple[str, ...]] = {
    "openinference": ("opentelemetry.sdk", "openinference.semconv"),
    "otel-genai": ("opentelemetry.sdk", "opentelemetry.proto"),
    "pydantic-ai": ("pydantic_ai",),
    "langchain": ("langchain_core", "langgraph", "langsmith"),
    "mcp": ("mcp",),
    "langfuse": ("langfuse",),
    "inspect": ("inspect_ai", "zstandard"),
    "smolagents": ("smolagents",),
    "autogen": ("autogen_agentchat",),
    "copilot-cli": ("copilot",),
}
# SDKs that the test-adapters extra cannot hold: autogen-core pins protobuf 5.29 while the
# extra's OpenTelemetry stack needs protobuf >= 6.33 (googleapis-common-protos). Rebuild
# their fixtures after `pip install --no-deps autogen-agentchat==0.7.5 autogen-core==0.7.5`
# (their classes import without the pinned protobuf); CI checks only their goldens.
OUTSIDE_EXTRA = frozenset({"autogen"})


FORMATS = tuple(SDKS)
TEXT_ARGS = {"openinference", "langchain"}  # arguments are JSON text: a scenario with bad JSON fits


def supports(fmt: str, scenario: Scenario) -> bool:
    return not scenario.needs_raw_args or fmt in TEXT_ARGS


def read_fixture(path: PurePath, data: bytes) -> list[Any]:
    """The documents of a fixture file, read as `arh` reads it (a JSON Lines session: its
    lines)."""
    reader = FILE_READERS.get(path.suffix)
    if reader is not None:
        return reader(data)
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in data.splitlines() if line.strip()]
    return [json.loads(data)]


def convert_file(fmt: str, name: str, data: bytes) -> list[Any]:
    """The canonical traces of a fixture file in format `fmt` (a session JSONL file is one
    session: the adapter's convert_lines takes all its lines)."""
    stem = PurePath(name).stem
    documents = read_fixture(PurePath(name), data)
    adapter = BY_NAME[fmt]
    if PurePath(name).suffix == ".jsonl" and adapter.convert_lines is not None:
        return adapter.convert_lines(enumerate(documents, start=1), stem)
    return [t for doc in documents for t in to_canonical(doc, fmt, stem)]


def expected_text(fmt: str, name: str, data: bytes) -> str:
    traces = convert_file(fmt, name, data)
    return make_fixtures.dumps(traces[0] if len(traces) == 1 else traces)


def cases(fmt: str) -> list[tuple[str, bytes]]:
    """(file name, bytes) of every fixture of a format."""
    built: list[tuple[str, Any]] = []
    render = SCENARIO_RENDERERS.get(fmt)
    if render is not None:
        built += [(f"{s.name}.json", render(s)) for s in SCENARIOS if supports(fmt, s)]
    built += EXTRAS.get(fmt, list)()
    out: list[tuple[str, bytes]] = []
    for name, value in built:
        if isinstance(value, bytes):
            out.append((name, value))
        else:
            decoded = json.loads(json.dumps(value))  # exactly what a reader of the file gets
            out.append((name, make_fixtures.dumps(decoded).encode()))
    return out


def build_format(fmt: str) -> dict[str, bytes]:
    """Fixture and expected files of one format: relative path -> bytes."""
    files: dict[str, bytes] = {}
    for name, data in cases(fmt):
        files[f"fixtures/{fmt}/{name}"] = data
        if fmt not in make_fixtures.RENDERERS:
            stem = PurePath(name).stem
            files[f"expected/{fmt}/{stem}.json"] = expected_text(fmt, name, data).encode()
    return files


def owned(fmt: str) -> list[Path]:
    """Files on disk that this generator writes for a format (for staleness and cleanup)."""
    if fmt in make_fixtures.RENDERERS:  # only the binary twins are ours
        return sorted(p for p in (FIXTURES / fmt).glob("*") if p.suffix != ".json")
    return sorted(
        p for folder in (FIXTURES, EXPECTED) for p in (folder / fmt).glob("*") if p.is_file()
    )


def main() -> int:
    written = 0
    for fmt in FORMATS:
        files = build_format(fmt)
        for old in owned(fmt):
            if str(old.relative_to(HERE)) not in files:
                old.unlink()
        for relative, data in files.items():
            path = HERE / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            written += 1
    print(f"wrote {written} files under {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
