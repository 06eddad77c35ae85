"""Why a trace was refused: the field-by-field reading that words the exact error.

Used only after the decoder (models/trace.py) refused an input; it accepts exactly
what the decoder accepts, so whatever it finds first is the reason.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..errors import TraceError
from .common import (
    check_schema_version,
    finite_non_negative,
    non_negative_int,
    show,
    string_problem,
    type_name,
)
from .trace import _FLOAT_INT_MAX, INPUT_ROLES, outcome_problem

_STEP_TYPES = ("tool_call", "model_response")
_STATUSES = ("ok", "error")


def explain(data: Any, refusal: msgspec.ValidationError) -> TraceError:
    """The error for a trace the decoder refused (`refusal` says how, if nothing here does)."""
    try:
        _check_trace(data)
    except TraceError as exc:
        return exc
    return TraceError(f"invalid trace: {refusal}")


def explain_step(data: Any, index: int, refusal: msgspec.ValidationError) -> TraceError:
    """The error for one step the decoder refused."""
    try:
        _check_step(data, index)
    except TraceError as exc:
        return exc
    return TraceError(f"step steps[{index}]: {refusal}")


def _fail(where: str, message: str) -> TraceError:
    return TraceError(f"{where}{message}")


def _check_trace(data: Any) -> None:
    if not isinstance(data, dict):
        raise TraceError(f"a trace must be a JSON object (got {type_name(data)})")
    try:
        check_schema_version(data.get("schema_version"), "trace")
    except ValueError as exc:
        raise TraceError(str(exc)) from None
    trace_id = _required_str(data, "trace_id")
    try:
        _required_str(data, "agent_name")
        _required_str(data, "workflow")
        raw_steps = data.get("steps")
        if raw_steps is None:
            raise TraceError("field 'steps' is required")
        if not isinstance(raw_steps, list):
            raise TraceError(f"field 'steps' must be an array (got {type_name(raw_steps)})")
        _optional_str(data, "source", "")
        _optional_dict(data, "metadata", "")
        _check_inputs(data.get("inputs"))
        _check_task_id(data.get("task_id"))
        _check_outcome(data.get("outcome"))
        for index, step in enumerate(raw_steps):
            _check_step(step, index)
    except TraceError as exc:
        raise TraceError(f"trace '{trace_id}': {exc}") from None


def _step_where(step_id: object, index: int) -> str:
    if isinstance(step_id, str):
        return f"step '{step_id}' (steps[{index}]): "
    return f"step steps[{index}]: "


def _check_step(data: Any, index: int) -> None:
    if not isinstance(data, dict):
        raise _fail(f"step steps[{index}]: ", f"must be an object (got {type_name(data)})")
    step_id = data.get("step_id")
    where = _step_where(step_id, index)
    problem = string_problem(step_id, required=True)
    if problem is not None:
        raise _fail(where, f"field 'step_id' {problem}")
    raw_type = data.get("type")
    if raw_type is None:
        raise _fail(where, "field 'type' is required")
    if raw_type not in _STEP_TYPES or not isinstance(raw_type, str):
        raise _fail(
            where, f"field 'type' must be 'tool_call' or 'model_response' (got {show(raw_type)})"
        )
    _optional_str(data, "error", where)
    raw_status = data.get("status")
    if raw_status is not None and (not isinstance(raw_status, str) or raw_status not in _STATUSES):
        raise _fail(where, f"field 'status' must be 'ok' or 'error' (got {show(raw_status)})")
    citations = data.get("citations")
    if citations is not None and not isinstance(citations, list):
        raise _fail(where, f"field 'citations' must be an array (got {type_name(citations)})")
    grounding = data.get("requires_grounding")
    if grounding is not None and not isinstance(grounding, bool):
        raise _fail(
            where, f"field 'requires_grounding' must be a boolean (got {type_name(grounding)})"
        )
    _optional_dict(data, "metadata", where)
    _optional_str(data, "tool_name", where)
    _optional_dict(data, "arguments", where)
    _optional_str(data, "text", where)
    for key in ("latency_ms", "cost_usd"):
        _check_amount(data, key, where)
    for key in ("input_tokens", "output_tokens"):
        value = data.get(key)
        if value is not None:
            try:
                non_negative_int(value)
            except ValueError as exc:
                raise _fail(where, f"field '{key}' {exc}") from None


def _check_amount(data: dict[str, Any], key: str, where: str) -> None:
    value = data.get(key)
    if value is None:
        return
    try:
        finite_non_negative(value)
        if isinstance(value, int) and value > _FLOAT_INT_MAX:
            raise ValueError("must be a finite number >= 0")
    except ValueError as exc:
        raise _fail(where, f"field '{key}' {exc}") from None


def _required_str(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    problem = string_problem(value, required=True)
    if problem is not None:
        raise TraceError(f"field '{key}' {problem}")
    assert isinstance(value, str)
    return value


def _optional_str(data: dict[str, Any], key: str, where: str) -> None:
    problem = string_problem(data.get(key))
    if problem is not None:
        raise _fail(where, f"field '{key}' {problem}")


def _optional_dict(data: dict[str, Any], key: str, where: str) -> None:
    value = data.get(key)
    if value is not None and not isinstance(value, dict):
        raise _fail(where, f"field '{key}' must be an object or null (got {type_name(value)})")


def _check_inputs(raw: Any) -> None:
    if raw is None:
        return
    if not isinstance(raw, list):
        raise TraceError(f"field 'inputs' must be an array (got {type_name(raw)})")
    for index, item in enumerate(raw):
        where = f"inputs[{index}]"
        if not isinstance(item, dict):
            raise TraceError(f"{where} must be an object (got {type_name(item)})")
        role, text = item.get("role"), item.get("text")
        if not isinstance(role, str) or role not in INPUT_ROLES:
            raise TraceError(
                f"{where}.role must be 'user', 'system' or 'developer' (got {show(role)})"
            )
        if not isinstance(text, str):
            raise TraceError(f"{where}.text must be a string (got {type_name(text)})")


def _check_task_id(raw: Any) -> None:
    if raw is None or isinstance(raw, str):
        return
    if isinstance(raw, int) and not isinstance(raw, bool):
        return
    if isinstance(raw, float) and raw.is_integer():
        return
    raise TraceError(f"field 'task_id' must be a string (got {type_name(raw)})")


def _check_outcome(raw: Any) -> None:
    if raw is None:
        return
    if not isinstance(raw, dict):
        raise TraceError(f"field 'outcome' must be an object (got {type_name(raw)})")
    problem = outcome_problem(raw)
    if problem is not None:
        raise TraceError(problem)
