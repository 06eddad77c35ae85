"""The policy v1.3 keys: `claims` (section 1) and `completion.no_false_success`,
`success_pattern`, `failure_pattern` (section 2), checked and compiled at load."""

from __future__ import annotations

from typing import Any

from ...patterns import Searcher
from ..common import type_name
from .claims_model import SCOPES, Claim, ClaimValues, FalseSuccess
from .notes import Notes, dotted
from .v12 import parse_path
from .values import dedupe, err, flag, one_of, section, show

__all__ = ["parse_claims", "parse_false_success"]


def _regex(item: dict[str, Any], key: str, where: str, required: bool = False) -> Searcher | None:
    """An RE2 pattern, case-sensitive as written (`(?i)` turns case off)."""
    value = item.get(key)
    if value is None:
        if required:
            raise err(f"{where}.{key}", "is required (a regular expression)")
        return None
    if not isinstance(value, str) or not value:
        raise err(f"{where}.{key}", f"must be a non-empty regular expression (got {show(value)})")
    try:
        return Searcher(value, case_sensitive=True)
    except ValueError as exc:
        raise err(f"{where}.{key}", f"{value!r} {exc}") from None


def _tool_names(value: Any, where: str) -> tuple[str, ...]:
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names:
        raise err(where, f"must be a tool name or a non-empty list of them (got {show(value)})")
    for i, name in enumerate(names):
        if not isinstance(name, str) or not name:
            raise err(f"{where}[{i}]", f"must be a non-empty tool name (got {show(name)})")
    return dedupe(tuple(names))


def parse_claims(data: dict[str, Any], notes: Notes) -> tuple[Claim, ...]:
    """`claims`: a list of objects; names are unique."""
    raw = data.get("claims")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise err("claims", f"must be a list of objects (got {type_name(raw)})")
    claims: list[Claim] = []
    seen: dict[str, int] = {}
    for i, item in enumerate(raw):
        claim = _claim(item, f"claims[{i}]", notes)
        if claim.name in seen:
            first = seen[claim.name]
            raise err(f"claims[{i}].name", f"{show(claim.name)} is already claims[{first}]")
        seen[claim.name] = i
        claims.append(claim)
    return tuple(claims)


def _claim(item: Any, where: str, notes: Notes) -> Claim:
    if not isinstance(item, dict):
        raise err(where, f"must be an object (got {type_name(item)})")
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        raise err(f"{where}.name", f"is required (a non-empty string; got {show(name)})")
    when = _regex(item, "when", where, required=True)
    assert when is not None
    if item.get("requires") is None:
        raise err(f"{where}.requires", "is required (a tool name or a list of them)")
    requires = _tool_names(item["requires"], f"{where}.requires")
    same = []
    for group, path in section(item, "same", f"{where}.same").items():
        if group not in when.group_names:
            raise err(f"{where}.same.{group}", f"'when' has no group named {show(group)}")
        same.append((group, parse_path(path, f"{where}.same.{group}")))
    values = _values(item.get("values"), f"{where}.values")
    scope = one_of(item, "scope", f"{where}.scope", SCOPES) or SCOPES[0]
    ignore_case = flag(item, "ignore_case", f"{where}.ignore_case")
    if ignore_case and not same and not values:
        notes.warn(dotted(where, "ignore_case"), "has no effect without 'same' or 'values'")
    return Claim(
        name=name,
        when=when,
        requires=requires,
        unless=_regex(item, "unless", where),
        same=tuple(same),
        values=values,
        scope=scope,
        ignore_case=ignore_case,
        paths=tuple(path for _, path in same) + tuple(v.path for v in values),
    )


def _values(raw: Any, where: str) -> tuple[ClaimValues, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise err(where, f"must be a list of objects (got {type_name(raw)})")
    out = []
    for i, item in enumerate(raw):
        at = f"{where}[{i}]"
        if not isinstance(item, dict):
            raise err(at, f"must be an object (got {type_name(item)})")
        pattern = _regex(item, "pattern", at, required=True)
        assert pattern is not None
        if item.get("in") is None:
            raise err(f"{at}.in", "is required (a dotted path into the call)")
        out.append(ClaimValues(pattern=pattern, path=parse_path(item["in"], f"{at}.in")))
    return tuple(out)


def parse_false_success(raw: dict[str, Any], notes: Notes) -> FalseSuccess | None:
    """`completion.no_false_success` (a list of tool names, or true) and its patterns."""
    value = raw.get("no_false_success")
    where = "completion.no_false_success"
    success = _regex(raw, "success_pattern", "completion")
    failure = _regex(raw, "failure_pattern", "completion")
    if value is None or value is False:
        for key, pattern in (("success_pattern", success), ("failure_pattern", failure)):
            if pattern is not None:
                notes.warn(f"completion.{key}", "has no effect without 'no_false_success'")
        return None
    if value is True:
        return FalseSuccess(every_side_effect=True, success=success, failure=failure)
    if not isinstance(value, list):
        raise err(where, f"must be true or a list of tool names (got {type_name(value)})")
    tools = _tool_names(value, where) if value else ()
    if not tools:
        notes.warn(where, "is empty, so no call is checked")
    return FalseSuccess(tools=tools, success=success, failure=failure)
