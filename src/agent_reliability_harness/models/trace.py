"""Canonical trace model (TRACE-SPEC.md, schema version 1) and its parser.

Parsing is pure and complete: a trace that parses is safe for every rule, and
a trace that does not raises TraceError naming the step and field.
"""

from __future__ import annotations

import math
import sys
from typing import Annotated, Any

import msgspec
from msgspec import Meta
from msgspec.structs import force_setattr

from ..errors import TraceError
from ..io import padded_call
from .common import (
    MAX_INT,
    Status,
    StepType,
    check_schema_version,
    finite_non_negative,
    non_negative_int,
    type_name,
)

_FLOAT_MAX = sys.float_info.max
_STEP_TYPES = {"tool_call": StepType.TOOL_CALL, "model_response": StepType.MODEL_RESPONSE}
_STATUSES = {"ok": Status.OK, "error": Status.ERROR}


# Recorded amounts: the values the general parser keeps unchanged. Integers beyond
# 2**53 and non-finite floats are left to it (it decides them with its own messages).
_Amount = Annotated[int, Meta(ge=0, le=2**53)] | Annotated[float, Meta(ge=0, le=_FLOAT_MAX)]
_Tokens = Annotated[int, Meta(ge=0, le=MAX_INT)]


class Step(msgspec.Struct, frozen=True, gc=False, forbid_unknown_fields=True):
    """One step of a trace: a tool call or a model response.

    A msgspec Struct, so that canonical JSON decodes straight into it (see
    `decode_trace_json`); `status` left out is derived from `error` as TRACE-SPEC.md says.
    """

    step_id: str
    type: StepType
    tool_name: str | None = None
    arguments: dict[str, Any] | None = None
    text: str | None = None
    citations: tuple[Any, ...] = ()
    latency_ms: _Amount | None = None
    cost_usd: _Amount | None = None
    requires_grounding: bool = False
    output: Any = None
    # None only until __post_init__ runs: absent means "error" when `error` is non-empty.
    status: Status = None  # type: ignore[assignment]
    error: str | None = None
    input_tokens: _Tokens | None = None
    output_tokens: _Tokens | None = None
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status is None:
            force_setattr(self, "status", Status.ERROR if self.error else Status.OK)

    @property
    def is_tool_call(self) -> bool:
        return self.type is StepType.TOOL_CALL

    @property
    def is_model_response(self) -> bool:
        return self.type is StepType.MODEL_RESPONSE

    @classmethod
    def from_dict(cls, data: Any, index: int = 0) -> Step:
        """Parse one step; `index` is its position, used in error messages."""
        return _parse_step(data, index)


INPUT_ROLES = ("user", "system", "developer")


class Input(msgspec.Struct, frozen=True, gc=False, forbid_unknown_fields=True):
    """What the agent was given (trace v1.1): a user, system or developer message."""

    role: str
    text: str


class Trace(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A recorded agent run: identity labels plus execution-ordered steps."""

    trace_id: str
    agent_name: str
    workflow: str
    steps: tuple[Step, ...]
    schema_version: str = "1"
    source: str | None = None
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)
    # Trace v1.1 (all optional): trusted inputs, the task this run attempts, the grade.
    inputs: tuple[Input, ...] = ()
    task_id: str | None = None
    # An external grader's verdict, carried through untouched: `success` (bool) and
    # `reward` (number) when present, and whatever else the grader recorded.
    outcome: dict[str, Any] | None = None

    @classmethod
    def from_dict(cls, data: Any) -> Trace:
        """Parse a canonical trace object; raises TraceError with a precise location."""
        return parse_trace(data)


_TRACE_DECODER = msgspec.json.Decoder(Trace)


def _fail(where: str, message: str) -> TraceError:
    return TraceError(f"{where}{message}")


def _step_where(step_id: object, index: int) -> str:
    if isinstance(step_id, str):
        return f"step '{step_id}' (steps[{index}]): "
    return f"step steps[{index}]: "


def _opt_str(d: dict[str, Any], key: str, where: str) -> str | None:
    value = d.get(key)
    if value is None or isinstance(value, str):
        return value
    raise _fail(where, f"field '{key}' must be a string or null (got {type_name(value)})")


def _opt_dict(d: dict[str, Any], key: str, where: str) -> dict[str, Any] | None:
    value = d.get(key)
    if value is None or isinstance(value, dict):
        return value
    raise _fail(where, f"field '{key}' must be an object or null (got {type_name(value)})")


def _opt_number(d: dict[str, Any], key: str, where: str) -> float | None:
    value = d.get(key)
    if value is None:
        return None
    try:
        return finite_non_negative(value)
    except ValueError as exc:
        raise _fail(where, f"field '{key}' {exc}") from None


def _opt_tokens(d: dict[str, Any], key: str, where: str) -> int | None:
    value = d.get(key)
    if value is None:
        return None
    try:
        return non_negative_int(value)
    except ValueError as exc:
        raise _fail(where, f"field '{key}' {exc}") from None


_MAX_EXACT = 2**53  # integers up to here are finite as floats too (the fast path's bound)
_MAX_TOKENS = 2**63 - 1
_OPTIONAL_STR = ("tool_name", "text", "error")


def _fast_step(data: Any) -> Step | None:
    """The common, valid step without per-field helper calls; None means "take the full
    path", which gives the same Step for anything accepted here and the exact error
    for everything else. Exact types only (`type(x) is str`): subclasses go the full way.
    """
    if type(data) is not dict:
        return None
    get = data.get
    step_id = get("step_id")
    raw_type = get("type")
    if type(step_id) is not str or type(raw_type) is not str:
        return None
    step_type = _STEP_TYPES.get(raw_type)
    if step_type is None:
        return None
    for key in _OPTIONAL_STR:
        value = get(key)
        if value is not None and type(value) is not str:
            return None
    error = get("error")
    raw_status = get("status")
    if raw_status is None:
        status = Status.ERROR if error else Status.OK
    elif type(raw_status) is str and raw_status in _STATUSES:
        status = _STATUSES[raw_status]
    else:
        return None
    raw_citations = get("citations")
    if raw_citations is None:
        citations: tuple[Any, ...] = ()
    elif type(raw_citations) is list:
        citations = tuple(raw_citations)
    else:
        return None
    grounding = get("requires_grounding")
    if grounding is None:
        grounding = False
    elif type(grounding) is not bool:
        return None
    arguments = get("arguments")
    metadata = get("metadata")
    if (arguments is not None and type(arguments) is not dict) or (
        metadata is not None and type(metadata) is not dict
    ):
        return None
    numbers = []
    for key in ("latency_ms", "cost_usd"):
        value = get(key)
        kind = type(value)
        if not (
            value is None
            or (kind is int and 0 <= value <= _MAX_EXACT)
            or (kind is float and 0.0 <= value < math.inf)
        ):
            return None
        numbers.append(value)
    tokens = []
    for key in ("input_tokens", "output_tokens"):
        value = get(key)
        if not (value is None or (type(value) is int and 0 <= value <= _MAX_TOKENS)):
            return None
        tokens.append(value)
    return Step(
        step_id,
        step_type,
        get("tool_name"),
        arguments,
        get("text"),
        citations,
        numbers[0],
        numbers[1],
        grounding,
        get("output"),
        status,
        error,
        tokens[0],
        tokens[1],
        {} if metadata is None else metadata,
    )


def _parse_step(data: Any, index: int) -> Step:
    step = _fast_step(data)
    return step if step is not None else _parse_step_full(data, index)


def _parse_step_full(data: Any, index: int) -> Step:
    if not isinstance(data, dict):
        raise _fail(f"step steps[{index}]: ", f"must be an object (got {type_name(data)})")
    step_id = data.get("step_id")
    where = _step_where(step_id, index)
    if step_id is None:
        raise _fail(where, "field 'step_id' is required")
    if not isinstance(step_id, str):
        raise _fail(where, f"field 'step_id' must be a string (got {type_name(step_id)})")
    raw_type = data.get("type")
    if raw_type is None:
        raise _fail(where, "field 'type' is required")
    step_type = _STEP_TYPES.get(raw_type) if isinstance(raw_type, str) else None
    if step_type is None:
        raise _fail(
            where,
            f"field 'type' must be 'tool_call' or 'model_response' (got {_show(raw_type)})",
        )
    error = _opt_str(data, "error", where)
    raw_status = data.get("status")
    if raw_status is None:
        status = Status.ERROR if error else Status.OK
    else:
        found = _STATUSES.get(raw_status) if isinstance(raw_status, str) else None
        if found is None:
            raise _fail(where, f"field 'status' must be 'ok' or 'error' (got {_show(raw_status)})")
        status = found
    raw_citations = data.get("citations")
    if raw_citations is None:
        citations: tuple[Any, ...] = ()
    elif isinstance(raw_citations, list):
        citations = tuple(raw_citations)
    else:
        raise _fail(where, f"field 'citations' must be an array (got {type_name(raw_citations)})")
    grounding = data.get("requires_grounding")
    if grounding is None:
        grounding = False
    elif not isinstance(grounding, bool):
        raise _fail(
            where, f"field 'requires_grounding' must be a boolean (got {type_name(grounding)})"
        )
    metadata = _opt_dict(data, "metadata", where)
    return Step(
        step_id=step_id,
        type=step_type,
        tool_name=_opt_str(data, "tool_name", where),
        arguments=_opt_dict(data, "arguments", where),
        text=_opt_str(data, "text", where),
        citations=citations,
        latency_ms=_opt_number(data, "latency_ms", where),
        cost_usd=_opt_number(data, "cost_usd", where),
        requires_grounding=grounding,
        output=data.get("output"),
        status=status,
        error=error,
        input_tokens=_opt_tokens(data, "input_tokens", where),
        output_tokens=_opt_tokens(data, "output_tokens", where),
        metadata={} if metadata is None else metadata,
    )


def _show(value: object) -> str:
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:40] + "...")
    return type_name(value)


def _req_str(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if value is None:
        raise TraceError(f"field '{key}' is required")
    if not isinstance(value, str):
        raise TraceError(f"field '{key}' must be a string (got {type_name(value)})")
    return value


# Both fast paths below accept only what the general parser accepts, giving an equal
# Trace; they answer None for everything else (unknown keys included), and the general
# parser then decides, with its exact error for a bad trace.
_JSON_PADDING = 32


def decode_trace_json(data: bytes) -> Trace | None:
    """The canonical trace that `parse_trace` makes of this JSON text, decoded straight
    into Trace and Step (no intermediate dicts), or None to take the general path.

    With unknown keys refused, every byte is decoded and checked the way the plain
    decoder checks it (UTF-8, number range, escapes); its recursion limit is met
    `_JSON_PADDING` frames deeper than the general path's, so it never accepts a
    nesting depth that path refuses.
    """
    try:
        trace: Trace = padded_call(_TRACE_DECODER.decode, data, _JSON_PADDING)
    except (msgspec.DecodeError, RecursionError):
        return None
    return trace if _supported(trace) else None


def _supported(trace: Trace) -> bool:
    """Whether a Trace decoded by msgspec is one the general parser accepts as it is
    (a supported version; input roles from the list; the general parser words the rest)."""
    version = trace.schema_version
    if not (version == "1" or version.split(".", 1)[0] == "1"):
        return False
    if trace.outcome is not None and _outcome_problem(trace.outcome) is not None:
        return False
    return all(item.role in INPUT_ROLES for item in trace.inputs)


def _convert_trace(data: dict[str, Any]) -> Trace | None:
    """`data` as a Trace when it holds only known keys of the expected types, else None."""
    try:
        trace = msgspec.convert(data, Trace)
    except msgspec.ValidationError:
        return None
    return trace if _supported(trace) else None


def parse_trace(data: Any) -> Trace:
    """Parse a canonical trace object (a dict decoded from JSON)."""
    if type(data) is dict:
        trace = _convert_trace(data)
        if trace is not None:
            return trace
    return _parse_trace_dict(data)


def _parse_trace_dict(data: Any) -> Trace:
    """The general parser: any input, field by field, with the exact error."""
    if not isinstance(data, dict):
        raise TraceError(f"a trace must be a JSON object (got {type_name(data)})")
    try:
        schema_version = check_schema_version(data.get("schema_version"), "trace")
    except ValueError as exc:
        raise TraceError(str(exc)) from None
    trace_id = _req_str(data, "trace_id")
    try:
        agent_name = _req_str(data, "agent_name")
        workflow = _req_str(data, "workflow")
        raw_steps = data.get("steps")
        if raw_steps is None:
            raise TraceError("field 'steps' is required")
        if not isinstance(raw_steps, list):
            raise TraceError(f"field 'steps' must be an array (got {type_name(raw_steps)})")
        source = _opt_str(data, "source", "")
        metadata = _opt_dict(data, "metadata", "")
        inputs = _parse_inputs(data.get("inputs"))
        task_id = _task_id(data.get("task_id"))
        outcome = _parse_outcome(data.get("outcome"))
        steps = tuple([_parse_step(s, i) for i, s in enumerate(raw_steps)])
    except TraceError as exc:
        raise TraceError(f"trace '{trace_id}': {exc}") from None
    return Trace(
        trace_id=trace_id,
        agent_name=agent_name,
        workflow=workflow,
        steps=steps,
        schema_version=schema_version,
        source=source,
        metadata={} if metadata is None else metadata,
        inputs=inputs,
        task_id=task_id,
        outcome=outcome,
    )


def _parse_inputs(raw: Any) -> tuple[Input, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise TraceError(f"field 'inputs' must be an array (got {type_name(raw)})")
    out: list[Input] = []
    for index, item in enumerate(raw):
        where = f"inputs[{index}]"
        if not isinstance(item, dict):
            raise TraceError(f"{where} must be an object (got {type_name(item)})")
        role, text = item.get("role"), item.get("text")
        if not isinstance(role, str) or role not in INPUT_ROLES:
            raise TraceError(
                f"{where}.role must be 'user', 'system' or 'developer' (got {_show(role)})"
            )
        if not isinstance(text, str):
            raise TraceError(f"{where}.text must be a string (got {type_name(text)})")
        out.append(Input(role, text))
    return tuple(out)


def _task_id(raw: Any) -> str | None:
    """A task id: a string, or a JSON integer taken as its decimal string (0 -> "0"; an
    integral number written 3.0 is an integer, as JSON Schema counts it)."""
    if raw is None or isinstance(raw, str):
        return raw
    if isinstance(raw, int) and not isinstance(raw, bool):
        return str(raw)
    if isinstance(raw, float) and raw.is_integer():
        return str(int(raw))
    raise TraceError(f"field 'task_id' must be a string (got {type_name(raw)})")


def _parse_outcome(raw: Any) -> dict[str, Any] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise TraceError(f"field 'outcome' must be an object (got {type_name(raw)})")
    problem = _outcome_problem(raw)
    if problem is not None:
        raise TraceError(problem)
    return raw


def _outcome_problem(outcome: dict[str, Any]) -> str | None:
    """What is wrong with an outcome's `success` / `reward`, or None."""
    success, reward = outcome.get("success"), outcome.get("reward")
    if success is not None and not isinstance(success, bool):
        return f"field 'outcome.success' must be a boolean (got {type_name(success)})"
    if reward is None:
        return None
    if isinstance(reward, bool) or not isinstance(reward, int | float):
        return f"field 'outcome.reward' must be a number (got {type_name(reward)})"
    try:
        finite = math.isfinite(reward)
    except OverflowError:
        finite = False
    return None if finite else "field 'outcome.reward' must be a finite number"
