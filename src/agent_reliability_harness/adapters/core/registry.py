"""The adapter registry: the built-in formats of core/table.py (name, module, capabilities
and evidence) as Adapters whose module is imported only when one of its functions is
called (a run over canonical traces imports none of the transcript adapters). Plugin
formats join it in core/plugins.py."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from . import canonical
from .base import Adapter, Evidence
from .table import ENVELOPE_ORDER, TRANSCRIPTS, Declared

# The adapters package, under which each row's module is named (`family.module`).
_ADAPTERS = __name__.rsplit(".", 2)[0]


def declared_adapter(module: str) -> Adapter:
    """The Adapter a format's module declares (importing it)."""
    adapter: Adapter = import_module(f"{_ADAPTERS}.{module}").ADAPTER
    return adapter


class _Late:
    """One function of a format's Adapter, called through this stand-in: the module is
    imported at the first call, then every call goes straight to the real function.
    Pickled by name (module, function), so a stand-in ships to worker processes."""

    __slots__ = ("attr", "module", "target")

    def __init__(self, module: str, attr: str) -> None:
        self.module = module
        self.attr = attr
        self.target: Any = None

    def __call__(self, *args: Any) -> Any:
        if self.target is None:
            self.target = getattr(declared_adapter(self.module), self.attr)
        return self.target(*args)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Late):
            return NotImplemented
        return (self.module, self.attr) == (other.module, other.attr)

    def __hash__(self) -> int:
        return hash((self.module, self.attr))

    def __reduce__(self) -> tuple[type[_Late], tuple[str, str]]:
        return (_Late, (self.module, self.attr))

    def __repr__(self) -> str:
        return f"<{self.attr} of adapters.{self.module}, imported when first called>"


def deferred(row: Declared) -> Adapter:
    """The registry's Adapter of a format: its declared data, its functions stand-ins."""
    module = row.module
    own = row.name in ENVELOPE_ORDER
    evidence = Evidence(row.shape, row.keys, row.marks, row.against, own)
    return Adapter(
        name=row.name,
        description=row.description,
        detect=_Late(module, "detect"),
        convert=_Late(module, "convert"),
        detect_line=_Late(module, "detect_line") if row.session else None,
        convert_lines=_Late(module, "convert_lines") if row.session else None,
        suffixes=row.suffixes,
        read_file=_Late(module, "read_file") if row.reads_files else None,
        markers=_Late(module, "markers") if row.marked else None,
        family=row.family,
        evidence=evidence,
    )


# Every format in detection order: canonical traces first (the common case, read by a
# module imported up front), then the transcript formats above (imported when called).
ADAPTERS: tuple[Adapter, ...] = (canonical.ADAPTER, *(deferred(row) for row in TRANSCRIPTS))
BY_NAME: dict[str, Adapter] = {a.name: a for a in ADAPTERS}

ENVELOPES: tuple[Adapter, ...] = tuple(BY_NAME[name] for name in ENVELOPE_ORDER)


__all__ = [
    "ADAPTERS",
    "BY_NAME",
    "ENVELOPES",
    "ENVELOPE_ORDER",
    "TRANSCRIPTS",
    "Declared",
    "declared_adapter",
    "deferred",
]
