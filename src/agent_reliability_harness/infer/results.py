"""A tool's output contract (policy v1.2 `allowed_tools.<tool>.output`, ARH-SCH-014) from
the outputs its successful calls recorded in the good runs: the JSON type they all have
and, for objects, the keys every one of them holds with the type of each key's values
when they agree. Outputs are read as the rule reads them (a JSON object or array text is
decoded); a call with no output (absent or null) or with status error is not counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MIN_OUTPUTS = 2  # outputs a contract needs


def json_kind(value: Any) -> str:
    """The JSON Schema type name of a value (`number` for a float)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _kind(kinds: set[str]) -> str | None:
    if kinds == {"integer", "number"}:
        return "number"
    if len(kinds) == 1 and (kind := next(iter(kinds))) != "null":
        return kind
    return None


@dataclass(slots=True)
class OutputStats:
    """The outputs of one tool's successful calls: their kinds and, over the objects,
    the keys every one holds (with the kinds of their values)."""

    outputs: int = 0
    kinds: set[str] = field(default_factory=set)
    keys: dict[str, set[str]] | None = None  # None before the first object

    def add(self, value: Any) -> None:
        self.outputs += 1
        kind = json_kind(value)
        self.kinds.add(kind)
        if kind == "object":
            mine = {str(k): {json_kind(v)} for k, v in value.items()}
            self._meet(mine)

    def _meet(self, keys: dict[str, set[str]]) -> None:
        if self.keys is None:
            self.keys = keys
            return
        self.keys = {k: kinds | keys[k] for k, kinds in self.keys.items() if k in keys}

    def merge(self, other: OutputStats) -> None:
        self.outputs += other.outputs
        self.kinds |= other.kinds
        if other.keys is not None:
            self._meet({k: set(v) for k, v in other.keys.items()})

    def spec(self) -> tuple[dict[str, Any], str] | None:
        """The contract and what it says, or None when the outputs do not agree."""
        kind = _kind(self.kinds)
        if self.outputs < MIN_OUTPUTS or kind is None:
            return None
        spec: dict[str, Any] = {"type": kind}
        said = f"output {kind}: all {self.outputs} outputs of successful calls"
        if kind == "object" and self.keys:
            names = sorted(self.keys)
            spec["required"] = names
            properties = {}
            for name in names:
                key_kind = _kind(self.keys[name])
                if key_kind is not None:
                    properties[name] = {"type": key_kind}
            if properties:
                spec["properties"] = properties
            said += f"; keys {', '.join(names)} in every one, types where they agree"
        return spec, said
