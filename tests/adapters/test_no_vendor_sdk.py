"""The core reads plain JSON: no module under src/ imports a vendor SDK or framework, and
`arh --version` / `arh validate` load none of them. The one exception is the optional `otlp`
extra (protobuf decoding), imported lazily by adapters/tracing/otlp_proto.py when a `.pb` is read,
and the `inspect` extra (zstandard), imported by adapters/harnesses/inspect_zip.py for a zstd member."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parents[1] / "src" / "agent_reliability_harness"
VENDORS = {
    "openai",
    "anthropic",
    "cohere",
    "google",
    "agents",
    "opentelemetry",
    "pydantic",
    "pydantic_ai",
    "langchain",
    "langchain_core",
    "langgraph",
    "langsmith",
    "inspect_ai",
    "langfuse",
    "openinference",
    "mcp",
    "zstandard",
}
# Optional extras: module -> the vendor packages it may import inside a function.
LAZY = {"otlp_proto.py": {"google", "opentelemetry"}, "inspect_zip.py": {"zstandard"}}


def _imports(tree: ast.AST) -> list[tuple[str, bool]]:
    """(imported module, at module level?) of every absolute import."""
    found: list[tuple[str, bool]] = []
    top = set(map(id, getattr(tree, "body", [])))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, id(node) in top))
    return found


def test_no_vendor_imports() -> None:
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        allowed = LAZY.get(path.name, set())
        for name, module_level in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            root = name.split(".")[0]
            if root in VENDORS and (module_level or root not in allowed):
                offenders.append(f"{path.name}: {name}")
    assert not offenders


_LOADED = """
import sys
from agent_reliability_harness.cli import main
code = main(sys.argv[1:])
vendors = {vendors!r}
print(sorted({{m.split(".")[0] for m in sys.modules}} & vendors))
"""


def _loaded(*argv: str) -> str:
    script = _LOADED.format(vendors=VENDORS)
    done = subprocess.run(
        [sys.executable, "-c", script, *argv], capture_output=True, text=True, check=False
    )
    return done.stdout.strip().splitlines()[-1]


def test_version_and_validate_load_no_vendor_package(tmp_path: Path) -> None:
    assert _loaded("--version") == "[]"
    policy = tmp_path / "policy.json"
    policy.write_text('{"policy_id": "p"}', encoding="utf-8")
    fixtures = sorted(str(p) for p in (HERE / "fixtures").rglob("*.json*"))
    assert _loaded("validate", "--policy", str(policy), "--jobs", "1", *fixtures) == "[]"
    # Reading binary OTLP is what the `otlp` extra is for, and all it loads.
    binary = sorted(str(p) for p in (HERE / "fixtures").rglob("*.pb"))
    loaded = _loaded("validate", "--policy", str(policy), "--jobs", "1", *binary)
    assert loaded == "['google', 'opentelemetry']"
