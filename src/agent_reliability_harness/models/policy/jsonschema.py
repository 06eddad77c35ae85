"""A tool's JSON Schema (its parameters) as policy argument specs.

What the argument vocabulary can say is translated (types, enum/const, pattern, bounds,
lengths, nested items/properties/required, local `$ref`s); every other keyword is listed,
never dropped: `Translation.untranslated` holds one line per keyword the policy does not
check (`required_arguments.when: format 'date-time'`). Pure annotations (title, description,
default, examples, ...) constrain nothing and are left out without a line.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from ...patterns import FullMatcher

# Keywords that describe and never constrain (and `$defs`, which only `$ref` reads).
ANNOTATIONS = frozenset(
    {
        "title", "description", "default", "examples", "$comment", "deprecated", "readOnly",
        "writeOnly", "$schema", "$id", "$anchor", "$defs", "definitions", "contentMediaType",
    }
)  # fmt: skip
_JSON_TYPES = ("string", "integer", "number", "boolean", "array", "object")
_HANDLED = frozenset(
    {
        "type", "enum", "const", "pattern", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems", "items",
        "properties", "required", "additionalProperties", "$ref", "nullable",
    }
)  # fmt: skip
MAX_DEPTH = 30  # nested items/properties (the policy allows 32)
# The `$ref`s being expanded above a schema (the document itself is "#"): one of them met
# again is recursive, so a recursive schema is expanded once along each path.
Refs = tuple[str, ...]
_ROOT: Refs = ("#",)
# Schemas translated per tool at most: `$ref`s shared without recursion (D0 refers to D1
# twice, D1 to D2 twice, ...) expand to 2**depth schemas.
MAX_SCHEMAS = 10_000


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 60 else f"{text[:57]}..."


@dataclass(slots=True)
class Translation:
    """The specs written and the lines saying what they leave unchecked."""

    root: Any
    untranslated: list[str] = field(default_factory=list)
    schemas: int = 0  # translated so far (MAX_SCHEMAS)

    def note(self, path: str, what: str) -> None:
        self.untranslated.append(f"{path}: {what}")

    def resolve(self, schema: Any, path: str, seen: Refs) -> tuple[Any, Refs]:
        """`schema` with a local `$ref` (`#/...`) replaced by its target (sibling keywords
        kept), and `seen` (the references being expanded above it) with those it followed;
        a remote, missing or recursive (in `seen`) reference is listed and reads as `{}`."""
        if not isinstance(schema, dict) or "$ref" not in schema:
            return schema, seen
        ref = schema["$ref"]
        target = self._target(ref) if isinstance(ref, str) and ref not in seen else None
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        if not isinstance(target, dict):
            self.note(path, f"$ref {_show(ref)} not resolved (remote, missing or recursive)")
            return siblings, seen
        resolved, seen = self.resolve(target, path, (*seen, ref))
        return {**resolved, **siblings}, seen

    def _target(self, ref: str) -> Any:
        if not ref.startswith("#"):
            return None
        node = self.root
        for raw in ref[1:].split("/")[1:] if ref != "#" else []:
            part = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return None
        return node


def _type(schema: dict[str, Any], path: str, out: Translation) -> str | None:
    raw = schema.get("type")
    if isinstance(raw, list) and len(raw) == 1:
        raw = raw[0]
    if raw is None:
        return None
    if raw in _JSON_TYPES:
        return str(raw)
    out.note(path, f"type {_show(raw)} not checked (a union, null or unknown type)")
    return None


def _pattern(schema: dict[str, Any], path: str, out: Translation) -> str | None:
    raw = schema.get("pattern")
    if raw is None:
        return None
    if not isinstance(raw, str):
        out.note(path, f"pattern {_show(raw)} not checked (not a string)")
        return None
    # JSON Schema searches; a policy pattern matches the whole string.
    if raw.startswith("^") and raw.endswith("$") and not raw.endswith("\\$") and "|" not in raw:
        whole = raw[1:-1]
    else:
        whole = f"(?s:.*)(?:{raw})(?s:.*)"
    try:
        FullMatcher(whole)
    except ValueError:
        out.note(path, f"pattern {_show(raw)} not checked (not RE2 syntax)")
        return None
    return whole


def _number(value: Any) -> bool:
    """A finite number a policy bound can hold (an integer beyond a float's range is not)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _satisfiable(spec: dict[str, Any], path: str, out: Translation) -> None:
    """Bounds no value meets (`minimum: 0` with `exclusiveMaximum: 0` on an integer) are
    listed and left out: the policy refuses min > max, which would drop the whole tool."""
    for low, high, words in (("min", "max", "bounds"), ("min_length", "max_length", "lengths")):
        if low in spec and high in spec and spec[low] > spec[high]:
            shown = f"{spec[low]}..{spec[high]}"
            out.note(path, f"{words} {shown} not checked (no value meets them)")
            del spec[low], spec[high]


def _bounds(
    schema: dict[str, Any], kind: str | None, path: str, out: Translation, spec: dict[str, Any]
) -> None:
    for key, target in (("minimum", "min"), ("maximum", "max")):
        if key in schema:
            if _number(schema[key]):
                spec[target] = schema[key]
            else:
                out.note(path, f"{key} {_show(schema[key])} not checked (not a finite number)")
    for key, target, step in (("exclusiveMinimum", "min", 1), ("exclusiveMaximum", "max", -1)):
        value = schema.get(key)
        if value is None or value is False:
            continue
        if value is True:  # draft 4: the bound itself is excluded
            value = schema.get("minimum" if step == 1 else "maximum")
        if kind == "integer" and _number(value) and isinstance(value, int | float):
            edge = math.floor(value) + 1 if step == 1 else math.ceil(value) - 1
            current = spec.get(target)
            keep = current is not None and (current > edge if step == 1 else current < edge)
            spec[target] = current if keep else edge
        else:
            out.note(path, f"{key} {_show(schema[key])} not checked (an exclusive bound)")


def _lengths(
    schema: dict[str, Any], kind: str | None, path: str, out: Translation, spec: dict[str, Any]
) -> None:
    for key, target, of in (
        ("minLength", "min_length", "string"),
        ("maxLength", "max_length", "string"),
        ("minItems", "min_length", "array"),
        ("maxItems", "max_length", "array"),
    ):
        if key not in schema:
            continue
        value = schema[key]
        if kind == of and isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            spec[target] = value
        else:
            out.note(path, f"{key} {_show(value)} not checked (needs type {of!r})")


def _enum(schema: dict[str, Any], path: str, out: Translation, spec: dict[str, Any]) -> None:
    if "const" in schema:
        spec["enum"] = [schema["const"]]
        if "enum" in schema:
            out.note(path, f"enum {_show(schema['enum'])} not checked (const wins)")
    elif isinstance(schema.get("enum"), list):
        spec["enum"] = list(schema["enum"])
    elif "enum" in schema:
        out.note(path, f"enum {_show(schema['enum'])} not checked (not a list)")


def arg_spec(
    schema: Any, path: str, out: Translation, depth: int = 0, refs: Refs = _ROOT
) -> dict[str, Any]:
    """One argument's spec from its JSON Schema (`{}` when nothing is checked)."""
    schema, refs = out.resolve(schema, path, refs)
    if schema is True or schema == {}:
        return {}
    if not isinstance(schema, dict):
        out.note(path, f"schema {_show(schema)} not checked (allows nothing, or not a schema)")
        return {}
    if depth >= MAX_DEPTH:
        out.note(path, f"nested deeper than {MAX_DEPTH} levels; not checked below")
        return {}
    out.schemas += 1
    if out.schemas > MAX_SCHEMAS:
        if out.schemas == MAX_SCHEMAS + 1:
            out.note(path, f"more than {MAX_SCHEMAS} schemas; this one and the rest not checked")
        return {}
    spec: dict[str, Any] = {}
    kind = _type(schema, path, out)
    if kind is not None and schema.get("nullable") is True:
        # OpenAPI's `nullable`: null is allowed too, which a policy type cannot say.
        out.note(path, f"type {_show(kind)} not checked (nullable: null is allowed too)")
    elif kind is not None:
        spec["type"] = kind
    _enum(schema, path, out, spec)
    pattern = _pattern(schema, path, out)
    if pattern is not None:
        spec["pattern"] = pattern
    _bounds(schema, kind, path, out, spec)
    _lengths(schema, kind, path, out, spec)
    _satisfiable(spec, path, out)
    _nested(schema, path, out, spec, depth, refs=refs)
    for key, value in schema.items():
        if key not in _HANDLED and key not in ANNOTATIONS and not key.startswith("x-"):
            out.note(path, f"{key} {_show(value)} not checked")
    return spec


def _nested(
    schema: dict[str, Any],
    path: str,
    out: Translation,
    spec: dict[str, Any],
    depth: int,
    *,
    refs: Refs,
) -> None:
    items = schema.get("items")
    if isinstance(items, dict | bool):
        nested = arg_spec(items, f"{path}.items", out, depth + 1, refs)
        if nested:
            spec["items"] = nested
    elif items is not None:
        out.note(path, f"items {_show(items)} not checked (a tuple of schemas)")
    properties = schema.get("properties")
    if isinstance(properties, dict):
        spec["properties"] = {
            name: arg_spec(sub, f"{path}.properties.{name}", out, depth + 1, refs)
            for name, sub in properties.items()
        }
    elif properties is not None:
        out.note(path, f"properties {_show(properties)} not checked (not an object)")
    required = schema.get("required")
    if isinstance(required, list) and all(isinstance(n, str) for n in required):
        if required:
            spec["required"] = list(dict.fromkeys(required))
    elif required is not None:
        out.note(path, f"required {_show(required)} not checked (not a list of names)")
    extra = schema.get("additionalProperties")
    if extra is not None and extra is not True and extra != {}:
        out.note(path, f"additionalProperties {_show(extra)} not checked (other keys pass)")


@dataclass(slots=True)
class Arguments:
    """A tool's top-level arguments: required and optional specs."""

    required: dict[str, dict[str, Any]] = field(default_factory=dict)
    optional: dict[str, dict[str, Any]] = field(default_factory=dict)
    untranslated: list[str] = field(default_factory=list)


def arguments(parameters: Any) -> Arguments:
    """The argument specs of a tool whose parameters are `parameters` (a JSON Schema of an
    object; None or `{}` for none)."""
    out = Translation(parameters)
    result = Arguments(untranslated=out.untranslated)
    schema, refs = out.resolve(parameters, "arguments", _ROOT)
    if schema is None or schema == {}:
        return result
    if not isinstance(schema, dict):
        out.note("arguments", f"schema {_show(schema)} not checked (not an object schema)")
        return result
    if schema.get("type", "object") not in ("object", ["object"]):
        out.note("arguments", f"type {_show(schema['type'])} not checked (not 'object')")
    properties = schema.get("properties") or {}
    required = schema.get("required") or []
    if not isinstance(properties, dict):
        out.note("arguments", f"properties {_show(properties)} not checked (not an object)")
        properties = {}
    if not isinstance(required, list) or not all(isinstance(n, str) for n in required):
        out.note("arguments", f"required {_show(required)} not checked (not a list of names)")
        required = []
    for name in sorted(set(properties) | set(required)):
        group, key = (
            (result.required, "required_arguments")
            if name in required
            else (result.optional, "optional_arguments")
        )
        group[name] = arg_spec(properties.get(name, {}), f"{key}.{name}", out, refs=refs)
    extra = schema.get("additionalProperties")
    if extra is not None and extra is not False:
        out.note(
            "arguments", f"additionalProperties {_show(extra)}: other arguments warn (ARH-SCH-005)"
        )
    for key, value in schema.items():
        top = key in ("type", "properties", "required", "additionalProperties", "$ref")
        if not top and key not in ANNOTATIONS and not key.startswith("x-"):
            out.note("arguments", f"{key} {_show(value)} not checked")
    return result
