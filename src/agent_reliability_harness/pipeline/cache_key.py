"""The run's part of every cache key: what, besides a unit's own bytes and names, reaches
its result. The policies' canonical form (their compiled structs as sorted JSON, so a
whitespace-only edit of a policy file keeps the cache and any new policy key is covered),
the ARH version, the versions of the plugin distributions a policy names, the options of
the run (score threshold, --format, labels, --task-id-from, the input limit, line
positions), the per-trace texts kept in entries (those made from the trace itself,
such as the HTML report's: which, and made with which options) and the per-trace
summaries kept for sections that read the trace (which sections, made by what)."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
from pathlib import Path
from typing import Any

import msgspec

from .. import version
from ..rules.plugins import installed_plugins
from .plan import PieceSpec, WorkPlan

# Bumped when what an entry holds, or how a key is made, changes.
KEY_FORMAT = 2

_PLAIN = (str, int, float, bool, type(None))


def _canonical(obj: Any) -> Any:
    """A value msgspec cannot encode itself, as plain data: sets sorted, objects as their
    type and attributes (private ones only when they hold plain values: compiled
    patterns are made from the public source they sit next to)."""
    if isinstance(obj, set | frozenset):
        return sorted(obj, key=repr)
    if callable(obj) and hasattr(obj, "__qualname__"):
        return f"{obj.__module__}.{obj.__qualname__}"
    out: dict[str, Any] = {"type": f"{type(obj).__module__}.{type(obj).__qualname__}"}
    names = [n for cls in type(obj).__mro__ for n in getattr(cls, "__slots__", ())]
    names.extend(getattr(obj, "__dict__", {}))
    for name in names:
        if name.startswith("__") or not hasattr(obj, name):
            continue
        value = getattr(obj, name)
        if not name.startswith("_") or _plain(value):
            out[name] = value
    return out


def _plain(value: Any) -> bool:
    if isinstance(value, tuple | list):
        return all(isinstance(item, _PLAIN) for item in value)
    return isinstance(value, _PLAIN)


_ENCODER = msgspec.json.Encoder(enc_hook=_canonical, order="sorted")


def canonical_json(value: Any) -> bytes:
    """`value` as deterministic JSON (the same bytes in every process)."""
    return _ENCODER.encode(value)


def _piece_id(spec: PieceSpec) -> Any:
    encode = spec.encode
    if isinstance(encode, functools.partial):
        return [spec.name, encode.func, list(encode.args), encode.keywords]
    return [spec.name, encode]


def piece_key(spec: PieceSpec) -> str:
    """A per-trace piece's name in entries: what makes its text (name, function, options)."""
    return hashlib.sha256(canonical_json(_piece_id(spec))).hexdigest()[:16]


def plugin_versions(policy: Any) -> list[list[str]]:
    """Per plugin the policy names (its `plugins`, when policies have them): its name, the
    installed version of the distribution that declares its entry point, and a digest of
    its code: a plugin upgrade, or its code edited in place, can change a verdict."""
    found: list[list[str]] = []
    for plugin in getattr(policy, "plugins", None) or ():
        name = plugin if isinstance(plugin, str) else getattr(plugin, "name", repr(plugin))
        found.append([str(name), *_plugin_identity(str(name))])
    return found


@functools.lru_cache(maxsize=64)
def _plugin_identity(name: str) -> tuple[str, str]:
    """`distribution==version` of the plugin `name`'s entry point and a digest of the
    code of its top-level package ("unknown" for what cannot be found)."""
    points = [ep for ep in installed_plugins() if ep.name == name]
    if not points:
        return "unknown", "unknown"
    point = points[0]
    dist = point.dist
    version = "unknown"
    if dist is not None:
        version = f"{dist.metadata['Name']}=={dist.version}"
    return version, _code_digest(point.module.split(".", 1)[0])


def _code_digest(top: str) -> str:
    """sha256 over the source files of the module or package `top` (their paths below
    it and their bytes, in path order)."""
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return "unknown"
    if spec is None:
        return "unknown"
    files: list[tuple[str, Path]] = []
    for where in spec.submodule_search_locations or ():
        root = Path(where)
        files += [(str(f.relative_to(root)), f) for f in root.rglob("*.py") if f.is_file()]
    if not files and spec.origin and os.path.isfile(spec.origin):
        files = [(os.path.basename(spec.origin), Path(spec.origin))]
    digest = hashlib.sha256()
    for relative, path in sorted(files):
        digest.update(msgspec.msgpack.encode(relative))
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"unreadable")
    return digest.hexdigest()


def fingerprint(plan: WorkPlan) -> bytes:
    """The digest of everything about the run that reaches a unit's result."""
    parts = {
        "format": KEY_FORMAT,
        "arh": version.__version__,
        "policies": list(plan.policies),
        "plugins": [plugin_versions(policy) for policy in plan.policies],
        "fail_under": plan.fail_under,
        "fmt": plan.fmt,
        "identity": plan.identity,
        "task_ids": plan.task_ids,
        "max_input_bytes": plan.max_input_bytes,
        "positions": plan.needs.positions,
        "pieces": [_piece_id(spec) for spec in plan.needs.pieces if not spec.report_only],
    }
    summarised = [[s.key, s.summarise] for s in plan.needs.sections if s.summarise is not None]
    if summarised:  # (absent otherwise: the keys of runs without such sections stay)
        parts["sections"] = summarised
    return hashlib.sha256(canonical_json(parts)).digest()
