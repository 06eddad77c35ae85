"""Data flows one way: load -> adapt -> parse -> evaluate -> report/compare -> render -> cli.

Each module may import only from its own stage or the stages to its left.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "agent_reliability_harness"

# Lower number = earlier stage. A module may import modules of the same or a lower rank.
RANKS = {
    "errors": 0,
    "patterns": 0,
    "globs": 0,
    "nesting": 0,
    "version": 0,
    "io": 1,
    "reading": 1,  # the one bounded read path
    "atomic": 1,  # the io stage's output side (atomic report writes)
    "json_problems": 0,  # where strict JSON refuses a text (io's error positions)
    "inputs": 1,  # the io stage's input side (walking, units, URLs)
    "positions": 1,
    # Pure algorithms over plain Python values (issues 15 and 16): rules, compare and
    # reports build on them; they import nothing of the package but patterns.
    "trajectory": 1,
    "dataflow": 1,
    "stats": 1,
    "models": 2,
    "adapters": 3,
    "rules": 4,
    "scoring": 5,
    "engine": 6,
    "agent_runs": 6,  # policy v1.2 `agents`: the engine's per-agent runs
    "compare": 7,
    "render": 8,
    "pipeline": 9,
    "api": 9,
    "infer": 9,  # arh infer: learns through the pipeline, like the API
    "cli": 10,
    # Test-suite helpers (assert_trace, the pytest plugin): users of the API, never used by it.
    "testing": 10,
    "pytest_plugin": 10,
    "__init__": 11,
    "__main__": 11,
}


def _stage(module: str) -> str:
    return module.split(".", maxsplit=1)[0]


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    relative = path.relative_to(PACKAGE).with_suffix("").parts
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = list(relative[: len(relative) - node.level])
            target = [*base, *(node.module.split(".") if node.module else [])]
            if target:
                found.append(".".join(target))
            else:
                found.extend(alias.name for alias in node.names)
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.startswith("agent_reliability_harness")
        ):
            found.append(node.module.split(".", 1)[1] if "." in node.module else "__init__")
    return found


def test_imports_flow_one_way() -> None:
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        own = _stage(".".join(path.relative_to(PACKAGE).with_suffix("").parts))
        if own not in RANKS:
            problems.append(f"{path.name}: stage {own!r} has no rank")
            continue
        for target in _imports(path):
            stage = _stage(target)
            if stage == "__init__" and own != "__init__":
                # `from .. import __version__` is the one allowed look at the package root.
                continue
            if RANKS.get(stage, 99) > RANKS[own]:
                problems.append(f"{path.relative_to(PACKAGE)} imports {target}")
    assert not problems, problems


def test_core_imports_no_vendor_sdk() -> None:
    vendors = ("openai", "anthropic", "cohere", "google", "opentelemetry", "agents", "orjson")
    # The optional `otlp` extra, imported lazily (tests/adapters/test_no_vendor_sdk.py).
    lazy = {PACKAGE / "adapters" / "tracing" / "otlp_proto.py"}
    for path in PACKAGE.rglob("*.py"):
        if path in lazy:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in vendors[:-1], f"{path}: {name}"


def test_core_never_imports_the_test_helpers() -> None:
    """pytest is not a dependency: only the plugin may import it, and only the plugin
    may import `testing` (the rest of ARH runs without either)."""
    for path in sorted(PACKAGE.rglob("*.py")):
        own = ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
        if own in ("testing", "pytest_plugin"):
            continue
        targets = {_stage(t) for t in _imports(path)}
        assert not targets & {"testing", "pytest_plugin"}, path
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                assert all(a.name.split(".")[0] != "pytest" for a in node.names), path
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                assert node.module.split(".")[0] != "pytest", path


ADAPTER_FAMILIES = ("coding", "providers", "tracing", "frameworks", "harnesses")


def test_adapter_families_import_the_machinery_and_their_own_family_only() -> None:
    """adapters/: a format module imports `core` and its own family; `core` imports no
    family at module level (the span-export joining imports tracing's shapes when called)."""
    adapters_dir = PACKAGE / "adapters"
    problems = []
    for path in sorted(adapters_dir.rglob("*.py")):
        parts = path.relative_to(adapters_dir).parts
        own = parts[0] if len(parts) > 1 else "__init__"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nodes = tree.body if own in ("core", "__init__") else list(ast.walk(tree))
        relative = path.relative_to(PACKAGE).with_suffix("").parts
        for node in nodes:
            if not (isinstance(node, ast.ImportFrom) and node.level):
                continue
            target = [*relative[: len(relative) - node.level], *(node.module or "").split(".")]
            family = target[1] if len(target) > 1 and target[0] == "adapters" else None
            if family in ADAPTER_FAMILIES and family != own:
                problems.append(f"{path.relative_to(PACKAGE)} imports {'.'.join(target)}")
    assert not problems, problems
