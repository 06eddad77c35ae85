"""YAML policies: YAML 1.2 core-schema values built from PyYAML's event stream.

Only PyYAML's parser is used (its loaders resolve YAML 1.1: `yes`, `on`, `1:20`,
`2001-12-14` would not mean what a JSON reader sees). Values are built here with
the 1.2 core schema, so every YAML policy has a JSON twin that means the same:
no tags, no merge keys, no duplicate keys, string keys only, no .inf/.nan, plain
aliases only (bounded, so aliases cannot blow a small file up into a huge policy).
PyYAML is imported on first use, from the optional `yaml` extra.
"""

from __future__ import annotations

import math
import re
from typing import Any

from ...errors import InputError
from ...version import DISTRIBUTION

MISSING_EXTRA = f"reading YAML policies needs the 'yaml' extra: pip install '{DISTRIBUTION}[yaml]'"
# Values that aliases may expand a document to (each alias counts its target's size).
MAX_EXPANDED_VALUES = 1_000_000

# YAML 1.2.2, section 10.3.2 (core schema), for plain scalars.
_NULL = re.compile(r"(?:null|Null|NULL|~)?")
_TRUE = re.compile(r"true|True|TRUE")
_FALSE = re.compile(r"false|False|FALSE")
_INT10 = re.compile(r"[-+]?[0-9]+")
_INT8 = re.compile(r"0o[0-7]+")
_INT16 = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_SPECIAL_FLOAT = re.compile(r"[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)")


def _at(mark: Any) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}"


def _fail(what: str, mark: Any = None) -> InputError:
    return InputError(f"invalid YAML: {what}" + (f" ({_at(mark)})" if mark is not None else ""))


def plain_scalar(text: str, mark: Any = None) -> Any:
    """The core-schema value of a plain (unquoted) scalar."""
    if _NULL.fullmatch(text):
        return None
    if _TRUE.fullmatch(text):
        return True
    if _FALSE.fullmatch(text):
        return False
    try:
        if _INT10.fullmatch(text):
            return int(text, 10)
        if _INT8.fullmatch(text):
            return int(text[2:], 8)
        if _INT16.fullmatch(text):
            return int(text[2:], 16)
    except ValueError:  # beyond the interpreter's integer-string limit
        raise _fail("a number has too many digits", mark) from None
    if _SPECIAL_FLOAT.fullmatch(text):
        raise _fail(f"{text} is not allowed (a policy holds JSON values: finite numbers)", mark)
    if _FLOAT.fullmatch(text):
        value = float(text)
        if not math.isfinite(value):
            raise _fail(f"number {text[:40]} is out of range", mark)
        return value
    return text


class _Builder:
    """Values from events; an explicit stack, so nesting costs no recursion."""

    def __init__(self, yaml: Any) -> None:
        self.yaml = yaml
        self.anchors: dict[str, tuple[Any, int]] = {}  # anchor -> (value, size)
        self.open_anchors: set[str] = set()
        # Per open collection: [value, pending key or marker, anchor, size, start mark].
        self.stack: list[list[Any]] = []
        self.expanded = 0
        self.result: Any = None
        self.documents = 0

    def feed(self, event: Any) -> None:
        yaml = self.yaml
        if isinstance(event, yaml.DocumentStartEvent):
            self._document(event)
        elif isinstance(event, yaml.ScalarEvent):
            self._scalar(event)
        elif isinstance(event, yaml.AliasEvent):
            self._alias(event)
        elif isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
            self._no_tag(event)
            empty: Any = [] if isinstance(event, yaml.SequenceStartEvent) else {}
            if event.anchor is not None:
                self.open_anchors.add(event.anchor)
            self.stack.append([empty, _NO_KEY, event.anchor, 1, event.start_mark])
        elif isinstance(event, yaml.SequenceEndEvent | yaml.MappingEndEvent):
            value, _, anchor, size, _ = self.stack.pop()
            if anchor is not None:
                self.open_anchors.discard(anchor)
            self._add(value, size, event, anchor)

    def _scalar(self, event: Any) -> None:
        self._no_tag(event)
        mark = event.start_mark
        plain = event.style is None  # quoted and block scalars are strings
        value = plain_scalar(event.value, mark) if plain else event.value
        if isinstance(value, str) and not _encodable(value):
            raise _fail("a string contains a lone surrogate (\\ud800-\\udfff)", mark)
        if plain and value == "<<" and self._expects_key():
            raise _fail("merge keys ('<<') are YAML 1.1 and not supported; use extends", mark)
        self._add(value, 1, event, event.anchor)

    def _document(self, event: Any) -> None:
        self.documents += 1
        if self.documents > 1:
            raise _fail(
                "a policy file holds one YAML document, this one holds more", event.start_mark
            )
        if event.version not in (None, (1, 2)):
            version = ".".join(map(str, event.version))
            raise _fail(f"%YAML {version} is not supported (ARH reads YAML 1.2)", event.start_mark)

    def _no_tag(self, event: Any) -> None:
        if event.tag is not None:
            raise _fail(f"tags are not supported (found {event.tag})", event.start_mark)

    def _expects_key(self) -> bool:
        return (
            bool(self.stack)
            and isinstance(self.stack[-1][0], dict)
            and self.stack[-1][1] is _NO_KEY
        )

    def _alias(self, event: Any) -> None:
        if event.anchor in self.open_anchors:
            raise _fail(f"alias *{event.anchor} is inside the node it names", event.start_mark)
        found = self.anchors.get(event.anchor)
        if found is None:
            raise _fail(f"alias *{event.anchor} names no anchor before it", event.start_mark)
        self._add(found[0], found[1], event)

    def _add(self, value: Any, size: int, event: Any, anchor: str | None = None) -> None:
        self.expanded += size
        if self.expanded > MAX_EXPANDED_VALUES:
            raise _fail(
                f"aliases expand the document beyond {MAX_EXPANDED_VALUES} values", event.start_mark
            )
        if anchor is not None:
            self.anchors[anchor] = (value, size)
        if not self.stack:
            self.result = value
            return
        top = self.stack[-1]
        top[3] += size
        container = top[0]
        if isinstance(container, list):
            container.append(value)
        elif top[1] is _NO_KEY:
            if not isinstance(value, str):
                raise _fail("mapping keys must be strings (quote the key)", event.start_mark)
            if value in container:
                raise _fail(f"duplicate key '{value}'", event.start_mark)
            top[1] = value
        else:
            container[top[1]] = value
            top[1] = _NO_KEY


_NO_KEY = object()


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def decode_yaml(text: str) -> Any:
    """The one document of a YAML text as JSON values; InputError naming line and column."""
    try:
        import yaml  # noqa: PLC0415 - optional extra, imported only for YAML policies
    except ImportError:
        raise InputError(MISSING_EXTRA) from None
    builder = _Builder(yaml)
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            builder.feed(event)
    except yaml.MarkedYAMLError as exc:
        problem = exc.problem or exc.context or "not valid YAML"
        raise _fail(str(problem), exc.problem_mark) from None
    except yaml.YAMLError as exc:
        raise _fail(str(exc)) from None
    return builder.result
