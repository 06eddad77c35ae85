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
from importlib import metadata
from typing import Any

import msgspec

from .. import version
from .plan import PieceSpec, WorkPlan

# Bumped when what an entry holds, or how a key is made, changes.
KEY_FORMAT = 1

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
    """name and installed version of each plugin distribution the policy names (its
    `plugins`, when policies have them): a plugin upgrade can change a verdict."""
    found: list[list[str]] = []
    for plugin in getattr(policy, "plugins", None) or ():
        name = plugin if isinstance(plugin, str) else getattr(plugin, "name", repr(plugin))
        found.append([name, _version_of(str(name))])
    return found


def _version_of(name: str) -> str:
    top = name.split(":", 1)[0].split(".", 1)[0]
    candidates = [name, top, *metadata.packages_distributions().get(top, [])]
    for candidate in candidates:
        try:
            return f"{candidate}=={metadata.version(candidate)}"
        except (metadata.PackageNotFoundError, ValueError):
            continue
    return "unknown"


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
    summarised = [[s.key, s.summarise] for s in plan.needs.sections if not s.report_only]
    if summarised:  # (absent otherwise: the keys of runs without such sections stay)
        parts["sections"] = summarised
    return hashlib.sha256(canonical_json(parts)).digest()
