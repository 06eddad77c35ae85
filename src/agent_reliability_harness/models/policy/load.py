"""Policy files to compiled policies: JSON or YAML, `extends` chains, directories, strict.

Each file is decoded and checked for unknown keys on its own (so a warning names the
file that holds the key); the chain is then merged and compiled once. Errors name
the file given and, for a base, the chain that led to it (`a.json -> b.json`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any

import msgspec

from ... import io, reading
from ...errors import InputError, PolicyError
from ...profiles import PREFIX, UnknownProfile, is_profile, profile_document
from ..common import type_name
from .compose import MAX_DEPTH, merge_chain, too_deep
from .keys import warn_unknown_keys
from .model import Policy
from .notes import Notes, PolicyWarning, dotted, strict_error
from .parse import compile_policy
from .values import err

YAML_SUFFIXES = (".yaml", ".yml")
POLICY_SUFFIXES = (".json", *YAML_SUFFIXES)


class LoadedPolicy(msgspec.Struct, frozen=True):
    """A compiled policy, the warnings about it (its bases' included, in chain order) and
    the display path of its file (None for a policy given as an object)."""

    policy: Policy
    warnings: tuple[PolicyWarning, ...] = ()
    source: str | None = None


def check_policy(data: Any, strict: bool = False, source: str | None = None) -> LoadedPolicy:
    """Compile a decoded policy object with its warnings (unknown keys included)."""
    notes = Notes(source)
    if too_deep(data):
        raise err("", f"nests deeper than {MAX_DEPTH} levels")
    warn_unknown_keys(data, notes)
    policy = compile_policy(data, notes)
    warnings = tuple(dict.fromkeys(notes.found))
    if strict and warnings:
        raise strict_error(warnings, source)
    return LoadedPolicy(policy, warnings, source)


def load_policy(path: str | os.PathLike[str], strict: bool = False) -> LoadedPolicy:
    """Read, merge (`extends`) and compile one policy file; PolicyError
    `invalid policy <file>: <detail>` when it cannot be used (with `strict`, when it
    has warnings)."""
    name = io.display_path(path)
    try:
        document, warnings = _resolve(os.fspath(path), ())
        notes = Notes(name)
        policy = compile_policy(document, notes)
    except (InputError, PolicyError) as exc:
        raise PolicyError(f"invalid policy {name}: {exc}") from None
    found = tuple(dict.fromkeys([*warnings, *notes.found]))
    if strict and found:
        raise PolicyError(f"invalid policy {name}: {strict_error(found, name)}")
    return LoadedPolicy(policy, found, name)


def load_policies(
    paths: Iterable[str | os.PathLike[str]], strict: bool = False
) -> list[LoadedPolicy]:
    """Every policy of the given files and directories, in order (a directory's *.json,
    *.yaml and *.yml files sorted by name, sub-directories not walked). Two policies
    with one policy_id are an error: reports and baselines tell policies apart by it."""
    loaded: list[LoadedPolicy] = []
    for raw in paths:
        if is_profile(os.fspath(raw)):
            loaded.append(load_policy(raw, strict))
            continue
        try:
            files = reading.list_files(raw, POLICY_SUFFIXES)
        except InputError as exc:
            raise PolicyError(f"invalid policy {io.display_path(raw)}: {exc}") from None
        if files is not None and not files:
            raise PolicyError(
                f"invalid policy {io.display_path(raw)}: directory contains no "
                "*.json, *.yaml or *.yml files"
            )
        loaded.extend(load_policy(f, strict) for f in (files if files is not None else [raw]))
    seen: dict[str, str | None] = {}
    for item in loaded:
        first = seen.setdefault(item.policy.policy_id, item.source)
        if first != item.source:
            raise PolicyError(
                f"invalid policy {item.source}: policy_id '{item.policy.policy_id}' is "
                f"already used by {first}"
            )
    return loaded


def _resolve(path: str, chain: tuple[tuple[str, str], ...]) -> tuple[Any, list[PolicyWarning]]:
    """The document of `path` with its bases merged in, and the warnings of every file
    of the chain. `chain` holds (real path, display name) of the files extending it."""
    profile = is_profile(path)
    real = path if profile else os.path.realpath(path)
    name = path if profile else io.display_path(os.path.normpath(path))
    names = [n for _, n in chain] + [name]
    if any(real == r for r, _ in chain):
        raise PolicyError(f"extends forms a cycle: {' -> '.join(names)}")
    notes = Notes(name)
    try:
        document = _profile(path) if profile else _decode(path, notes)
    except (InputError, PolicyError) as exc:
        if not chain:
            raise
        raise PolicyError(f"extends {' -> '.join(names)}: {exc}") from None
    warn_unknown_keys(document, notes)
    extends = _extends(document.pop("extends", None))
    if not extends:
        return document, notes.found
    bases, warnings = [], []
    here = os.path.dirname(path)
    for relative in extends:
        target = relative if is_profile(relative) else os.path.join(here, relative)
        base, found = _resolve(target, (*chain, (real, name)))
        bases.append(base)
        warnings.extend(found)
    return merge_chain(bases, document), [*notes.found, *warnings]


def _profile(reference: str) -> dict[str, Any]:
    """A built-in profile's document (`arh:NAME`)."""
    try:
        return profile_document(reference[len(PREFIX) :])
    except UnknownProfile as exc:
        raise PolicyError(str(exc)) from None


def _extends(value: Any) -> list[str]:
    if value is None:
        return []
    paths = [value] if isinstance(value, str) else value
    if not isinstance(paths, list) or not all(isinstance(p, str) and p for p in paths):
        raise err(
            "extends", f"must be a file path or a list of file paths (got {type_name(value)})"
        )
    if any("\0" in p for p in paths):
        raise err("extends", "a file path cannot hold a NUL byte")
    return paths


def _decode(path: str, notes: Notes) -> dict[str, Any]:
    """One policy file as an object (JSON, or YAML by its suffix)."""
    text = io.decode_bytes(reading.read_input(path))
    yaml = os.path.splitext(path)[1] in YAML_SUFFIXES
    if yaml:
        from .yaml_ import decode_yaml  # noqa: PLC0415 - only for a YAML policy

        value = decode_yaml(text)
    else:
        value = io.decode_json(text)
    if not isinstance(value, dict):
        kind = "a YAML mapping" if yaml else "a JSON object"
        raise PolicyError(f"policy must be {kind} (got {type_name(value)})")
    if not yaml:
        _warn_duplicates(text, notes)
    if too_deep(value):
        raise err("", f"nests deeper than {MAX_DEPTH} levels")
    return value


class _Object(dict[str, Any]):
    """A decoded JSON object that remembers which of its keys it saw twice."""

    repeated: tuple[str, ...] = ()


def _with_repeats(items: list[tuple[str, Any]]) -> _Object:
    found = _Object()
    repeated = []
    for key, value in items:
        if key in found and key not in repeated:
            repeated.append(key)
        found[key] = value
    found.repeated = tuple(repeated)
    return found


def _warn_duplicates(text: str, notes: Notes) -> None:
    """JSON keeps the last of duplicate keys, as v1 did; in a policy a repeated key
    silently drops a value, so it is a warning (YAML refuses it outright)."""
    pending: list[tuple[Any, str]] = [(json.loads(text, object_pairs_hook=_with_repeats), "")]
    while pending:
        value, path = pending.pop()
        if isinstance(value, _Object):
            for key in value.repeated:
                notes.warn(dotted(path, key), "duplicate key (the last value is used)")
            pending.extend((child, dotted(path, key)) for key, child in reversed(value.items()))
        elif isinstance(value, list):
            pending.extend((child, f"{path}[{i}]") for i, child in reversed(list(enumerate(value))))
