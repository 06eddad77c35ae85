"""Build the fixtures of the CLI-tool and benchmark formats, and their expected outputs.

    python tests/adapters/make_cli_fixtures.py   # rewrites their fixtures/ and expected/

These tools have no Python library that writes their files, so the fixtures are written
here to the published shapes (cli_*.py). fixtures/<format>/<name>.{json,jsonl,traj} is
the file; expected/<format>/<name>.json is `arh convert` of it (review its diff).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "src"))

import cli_agents  # noqa: E402
import cli_atif  # noqa: E402
import cli_claude  # noqa: E402
import cli_claude_agents  # noqa: E402
import cli_claude_stream  # noqa: E402
import cli_cline  # noqa: E402
import cli_codex  # noqa: E402
import cli_codex_exec  # noqa: E402
import cli_cursor  # noqa: E402
import cli_gemini  # noqa: E402
import cli_gemini_stream  # noqa: E402
import cli_goose  # noqa: E402
import cli_mlflow  # noqa: E402
import cli_opencode  # noqa: E402
import cli_openhands  # noqa: E402
import cli_qwen  # noqa: E402
import cli_runs  # noqa: E402
import cli_sources  # noqa: E402
import cli_sources_runs  # noqa: E402
import cli_swe  # noqa: E402
import cli_swe_mini  # noqa: E402

from agent_reliability_harness.adapters import BY_NAME, convert_session, to_canonical  # noqa: E402
from agent_reliability_harness.errors import AdapterError  # noqa: E402

FORMATS = (
    "cursor-agent",
    "cline",
    "tau-bench",
    "swe-agent",
    "claude-code",
    "codex-cli",
    "gemini-cli",
    "codex-exec",
    "gemini-stream",
    "atif",
    "openhands",
    "browser-use",
    "letta",
    "goose",
    "opencode",
    "qwen-code",
    "agentops",
    "google-adk",
    "moatless",
    "autocoderover",
    "mlflow",
)
SOURCES: dict[str, Any] = {
    **cli_runs.FIXTURES,
    **cli_swe.FIXTURES,
    **cli_swe_mini.FIXTURES,
    **cli_claude.FIXTURES,
    **cli_claude_agents.FIXTURES,
    **cli_codex.FIXTURES,
    **cli_gemini.FIXTURES,
    **cli_openhands.FIXTURES,
    **cli_agents.FIXTURES,
    **cli_codex_exec.FIXTURES,
    **cli_gemini_stream.FIXTURES,
    **cli_atif.FIXTURES,
    **cli_cursor.FIXTURES,
    **cli_claude_stream.FIXTURES,
    **cli_cline.FIXTURES,
    **cli_goose.FIXTURES,
    **cli_opencode.FIXTURES,
    **cli_qwen.FIXTURES,
    **cli_sources.FIXTURES,
    **cli_sources_runs.FIXTURES,
    **cli_mlflow.FIXTURES,
}
SUFFIXES = (".json", ".jsonl", ".traj")


def dumps(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def fixture_text(relative: str, value: Any) -> str:
    if relative.endswith(".jsonl"):
        return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in value)
    return dumps(value)


def read_fixture(path: Path) -> Any:
    """A fixture as a reader gets it: a JSONL file as its (line number, value) pairs."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [(n, json.loads(line)) for n, line in enumerate(text.splitlines(), 1) if line]
    return json.loads(text)


def convert(fmt: str, name: str, suffix: str, value: Any) -> list[Any]:
    """What ARH makes of a fixture under `--format fmt`: a JSONL session through
    `convert_lines`, line by line, then the refusal rule as for a document."""
    if suffix == ".jsonl":
        return convert_session(BY_NAME[fmt], iter(value), name)
    return to_canonical(value, fmt, name)


def expected_text(fmt: str, name: str, suffix: str, value: Any) -> str:
    """The golden of a fixture: its conversion, or `{"error": ...}` when the format must
    refuse it (a run the adapter cannot map is an input error, never an empty trace)."""
    try:
        converted = convert(fmt, name, suffix, value)
    except AdapterError as exc:
        return dumps({"error": str(exc)})
    return dumps(converted[0] if len(converted) == 1 else converted)


def convert_fixture(path: Path) -> list[Any]:
    name = path.name.removesuffix(path.suffix)
    return convert(path.parent.name, name, path.suffix, read_fixture(path))


def golden_of(path: Path) -> str:
    """What the golden of a fixture file must hold today."""
    name = path.name.removesuffix(path.suffix)
    return expected_text(path.parent.name, name, path.suffix, read_fixture(path))


def expected_path(relative: str) -> str:
    fmt, name = relative.split("/", 1)
    stem = name.removesuffix(Path(name).suffix)
    return f"expected/{fmt}/{stem}.json"


def build_all() -> dict[str, str]:
    """Every fixture and expected file of these formats: relative path -> text."""
    files: dict[str, str] = {}
    for relative, value in SOURCES.items():
        text = fixture_text(relative, value)
        files[f"fixtures/{relative}"] = text
        fmt, name = relative.split("/", 1)
        suffix = Path(name).suffix
        if suffix == ".jsonl":
            read: Any = [(n, json.loads(line)) for n, line in enumerate(text.splitlines(), 1)]
        else:
            read = json.loads(text)  # exactly what a reader of the file gets
        files[expected_path(relative)] = expected_text(fmt, name.removesuffix(suffix), suffix, read)
    return files


def on_disk() -> dict[str, str]:
    found: dict[str, str] = {}
    for folder in ("fixtures", "expected"):
        for fmt in FORMATS:
            for path in sorted((HERE / folder / fmt).glob("*")):
                if path.is_file() and path.suffix in SUFFIXES:
                    found[str(path.relative_to(HERE))] = path.read_text(encoding="utf-8")
    return found


def main() -> int:
    files = build_all()
    for relative in on_disk():
        if relative not in files:
            (HERE / relative).unlink()
    for relative, text in files.items():
        path = HERE / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    print(f"wrote {len(files)} files under {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
