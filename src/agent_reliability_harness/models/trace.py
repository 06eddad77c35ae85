"""Canonical trace model (TRACE-SPEC.md, schema version 1) and its one decoder.

A trace is decoded by msgspec straight into these Structs: from JSON bytes
(`decode_trace_json`) or from a decoded dict (`parse_trace`), whose nulls, integral
token floats, integral task ids and unknown keys are first normalised as TRACE-SPEC.md
reads them. What the types cannot say, the Structs check themselves (`__post_init__`).
When the decoder refuses an input, `trace_explain.explain` words the exact error; it
accepts exactly what the decoder accepts (tests/test_trace_decoder.py).
"""

from __future__ import annotations

import math
import sys
from typing import Annotated, Any

import msgspec
from msgspec import Meta
from msgspec.structs import force_setattr

from ..errors import InputError
from ..io import check_depth
from .common import MAX_INT, Status, StepType, check_schema_version, type_name

# The largest integer that is a finite float (float() rounds anything larger to infinity).
_FLOAT_INT_MAX = 2**1024 - 2**970 - 1
# Recorded amounts are finite numbers >= 0; an integer keeps its exact value.
_Amount = Annotated[int, Meta(ge=0)] | Annotated[float, Meta(ge=0, le=sys.float_info.max)]
_Tokens = Annotated[int, Meta(ge=0, le=MAX_INT)]


class Step(msgspec.Struct, frozen=True, gc=False, forbid_unknown_fields=True):
    """One step of a trace: a tool call or a model response.

    `status` left out is derived from `error` as TRACE-SPEC.md says.
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
    # Trace v1.2 (optional): the agent that took the step (absent: the trace's
    # agent_name) and the step under which it ran (a hand-off, a sub-agent call).
    agent: str | None = None
    parent_step_id: str | None = None

    def __post_init__(self) -> None:
        if self.status is None:
            force_setattr(self, "status", Status.ERROR if self.error else Status.OK)
        if self.agent == "":  # no agent named: the trace's agent_name (TRACE-SPEC.md)
            force_setattr(self, "agent", None)
        latency, cost = self.latency_ms, self.cost_usd
        if (latency.__class__ is int and latency > _FLOAT_INT_MAX) or (
            cost.__class__ is int and cost > _FLOAT_INT_MAX
        ):
            raise ValueError("must be a finite number >= 0")

    @property
    def is_tool_call(self) -> bool:
        return self.type is StepType.TOOL_CALL

    @property
    def is_model_response(self) -> bool:
        return self.type is StepType.MODEL_RESPONSE

    @classmethod
    def from_dict(cls, data: Any, index: int = 0) -> Step:
        """Parse one step; `index` is its position, used in error messages."""
        try:
            return msgspec.convert(_step(data), Step)
        except msgspec.ValidationError as exc:
            from .trace_explain import explain_step  # noqa: PLC0415 - only for errors

            raise explain_step(data, index, exc) from None


INPUT_ROLES = ("user", "system", "developer")


class Input(msgspec.Struct, frozen=True, gc=False, forbid_unknown_fields=True):
    """What the agent was given (trace v1.1): a user, system or developer message."""

    role: str
    text: str

    def __post_init__(self) -> None:
        if self.role not in INPUT_ROLES:
            raise ValueError("role must be 'user', 'system' or 'developer'")


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

    def __post_init__(self) -> None:
        check_schema_version(self.schema_version, "trace")
        if self.outcome is not None:
            problem = outcome_problem(self.outcome)
            if problem is not None:
                raise ValueError(problem)

    @classmethod
    def from_dict(cls, data: Any) -> Trace:
        """Parse a canonical trace object; raises TraceError with a precise location."""
        return parse_trace(data)


def outcome_problem(outcome: dict[str, Any]) -> str | None:
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


_TRACE_DECODER = msgspec.json.Decoder(Trace)


def decode_trace_json(data: bytes) -> Trace | None:
    """The canonical trace in this JSON text, decoded straight into Trace and Step, or
    None when it is not one as it stands (unknown keys, nulls, a bad field, a depth over
    the limit): the caller then decodes it to a dict and `parse_trace` decides, with
    the exact error. With unknown keys refused, msgspec checks every byte (UTF-8,
    number range, escapes) as the plain decoder does."""
    try:
        trace: Trace = _TRACE_DECODER.decode(data)
        check_depth(data)
    except (msgspec.DecodeError, RecursionError, InputError):
        return None
    return trace


def parse_trace(data: Any) -> Trace:
    """Decode a canonical trace object (a dict decoded from JSON); TraceError naming the
    field when it is not one."""
    try:
        return msgspec.convert(normalise(data), Trace)
    except msgspec.ValidationError as exc:
        from .trace_explain import explain  # noqa: PLC0415 - only for errors

        raise explain(data, exc) from None


_TRACE_KEYS = frozenset(Trace.__struct_fields__)
_STEP_KEYS = frozenset(Step.__struct_fields__)
_INPUT_KEYS = frozenset(Input.__struct_fields__)
_TOKENS = ("input_tokens", "output_tokens")


def normalise(data: Any) -> Any:
    """A trace dict as TRACE-SPEC.md reads it: unknown keys dropped, a null field absent,
    an integral token float an int, an integer task id its decimal string. Anything
    that is not a dict where one is expected is left for the decoder to refuse."""
    if not isinstance(data, dict):
        return data
    out = _known(data, _TRACE_KEYS)
    steps = out.get("steps")
    if isinstance(steps, list):
        out["steps"] = [_step(step) for step in steps]
    inputs = out.get("inputs")
    if isinstance(inputs, list):
        out["inputs"] = [_known(item, _INPUT_KEYS) for item in inputs]
    task_id = out.get("task_id")
    if isinstance(task_id, int) and not isinstance(task_id, bool):
        out["task_id"] = str(task_id)
    elif isinstance(task_id, float) and task_id.is_integer():  # 3.0: an integer, as in JSON Schema
        out["task_id"] = str(int(task_id))
    return out


def _step(data: Any) -> Any:
    step = _known(data, _STEP_KEYS)
    if not isinstance(step, dict):
        return step
    for key in _TOKENS:
        value = step.get(key)
        if isinstance(value, float) and value.is_integer() and 0 <= value <= MAX_INT:
            step[key] = int(value)
    return step


def _known(data: Any, keys: frozenset[str]) -> Any:
    """A copy of a dict without unknown keys and null values (a non-dict as it is)."""
    if not isinstance(data, dict):
        return data
    return {key: value for key, value in data.items() if key in keys and value is not None}
