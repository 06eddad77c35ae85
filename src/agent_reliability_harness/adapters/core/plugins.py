"""Format plugins (docs/plugins.md, "Your own formats: format plugins"): packages that
declare a format under the entry point group `arh.formats`, read like a built-in one.

An entry point's name is the format's name (what `--format` takes); its value is an
`Adapter` (`package.module:FORMAT`) with its `family` and its `evidence`. Plugins are
imported the first time a document is not a canonical trace (or `--format` names one);
their functions are called through stand-ins that turn anything they raise into one
AdapterError naming the plugin. A plugin that cannot be used is that error for every
document detection needs it for: a format ARH cannot ask could have claimed it.
"""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points
from typing import Any

import msgspec

from ...errors import AdapterError, ArhError
from .base import Adapter
from .registry import ADAPTERS, BY_NAME

ENTRY_POINT_GROUP = "arh.formats"
_FUNCTIONS = ("detect", "convert", "detect_line", "convert_lines", "read_file", "markers")


class Plugins(msgspec.Struct, frozen=True):
    """The installed format plugins: the usable ones (guarded), and why the others are not."""

    formats: tuple[Adapter, ...]
    problems: tuple[str, ...]
    real: dict[str, Adapter]  # name -> the plugin's own Adapter (its real functions)
    every: tuple[Adapter, ...] = ()  # the built-in formats, then these


_LOADED: list[Plugins] = []


def installed() -> tuple[EntryPoint, ...]:
    """Every installed `arh.formats` entry point, by name (none is imported)."""
    return tuple(sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name))


def plugins() -> Plugins:
    """The installed format plugins, imported and checked once per process."""
    if not _LOADED:
        _LOADED.append(_load(installed()))
    return _LOADED[0]


def formats() -> tuple[Adapter, ...]:
    """Every format in detection order: the built-in ones, then the plugins' (by name).
    AdapterError when an installed plugin cannot be used."""
    found = plugins()
    if found.problems:
        raise AdapterError(found.problems[0])
    return found.every


def by_name(name: str) -> Adapter | None:
    """The format called `name`, built-in or plugin (None: no such format)."""
    return BY_NAME.get(name) or next((a for a in formats() if a.name == name), None)


def names() -> tuple[str, ...]:
    """The names of the installed plugin formats (their entry points; none is imported)."""
    return tuple(dict.fromkeys(ep.name for ep in installed()))


def _load(points: tuple[EntryPoint, ...]) -> Plugins:
    usable: list[Adapter] = []
    problems: list[str] = []
    real: dict[str, Adapter] = {}
    for point in points:
        try:
            adapter = _checked(point)
        except ArhError as exc:
            problems.append(str(exc))
            continue
        if adapter.name in real:
            problems.append(f"format plugin '{point.name}' is declared by several packages")
            continue
        real[adapter.name] = adapter
        usable.append(_guarded(adapter))
    return Plugins(tuple(usable), tuple(problems), real, (*ADAPTERS, *usable))


def _checked(point: EntryPoint) -> Adapter:
    """The plugin's Adapter, or AdapterError saying why it cannot be used."""
    where = f"format plugin '{point.name}' ({point.value})"
    try:
        found = point.load()
    except Exception as exc:  # any failure of the plugin's own code
        raise AdapterError(f"{where} could not be imported: {type(exc).__name__}: {exc}") from None
    found = getattr(found, "FORMAT", found)  # a module that declares FORMAT
    if not isinstance(found, Adapter):
        raise AdapterError(f"{where} is not an Adapter (got {type(found).__name__})")
    if found.name != point.name:
        raise AdapterError(f"{where} declares the format '{found.name}', not '{point.name}'")
    if found.name in BY_NAME or found.name == "auto":
        raise AdapterError(f"{where}: '{found.name}' is a built-in format's name")
    if not found.evidence.marks:
        raise AdapterError(
            f"{where} declares no evidence: Evidence(marks=...) names the fields only "
            "its documents have"
        )
    if found.read_file is not None:
        raise AdapterError(f"{where} declares read_file: plugin formats read JSON documents")
    if (found.detect_line is None) != (found.convert_lines is None):
        raise AdapterError(f"{where} must declare both detect_line and convert_lines, or neither")
    return found


def _guarded(adapter: Adapter) -> Adapter:
    """The plugin's Adapter with its functions behind stand-ins, its claim its own."""
    stand_ins: dict[str, Any] = {
        attr: _Call(adapter.name, attr) for attr in _FUNCTIONS if getattr(adapter, attr) is not None
    }
    evidence = msgspec.structs.replace(adapter.evidence, own=True)
    return msgspec.structs.replace(
        adapter, evidence=evidence, family=adapter.family or "plugin", **stand_ins
    )


class _Call:
    """One function of a plugin format: what it raises becomes an AdapterError naming the
    plugin (ARH's own InputErrors pass as they are). Pickled by name, so a worker process
    finds the plugin itself."""

    __slots__ = ("attr", "name")

    def __init__(self, name: str, attr: str) -> None:
        self.name = name
        self.attr = attr

    def __call__(self, *args: Any) -> Any:
        target = getattr(plugins().real[self.name], self.attr)
        try:
            return target(*args)
        except ArhError:
            raise
        except Exception as exc:  # a fault of the plugin's code
            raise AdapterError(
                f"format plugin '{self.name}': {self.attr} raised {type(exc).__name__}: {exc}"
            ) from None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Call):
            return NotImplemented
        return (self.name, self.attr) == (other.name, other.attr)

    def __hash__(self) -> int:
        return hash((self.name, self.attr))

    def __reduce__(self) -> tuple[type[_Call], tuple[str, str]]:
        return (_Call, (self.name, self.attr))
