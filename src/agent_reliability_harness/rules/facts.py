"""TraceFacts: everything several rules (and the report) need, computed in one pass.

Nothing here decides a finding; it only indexes the trace so that every rule
stays linear in the number of steps.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Any, TypeVar

import msgspec

from ..models.common import Status, StepType
from ..models.policy import FailedWhen
from ..models.trace import Step, Trace
from ..patterns import PatternSet
from .outputs import failed_when_failures
from .status import FAILED_WHEN_MATCHED, OUTPUT_MATCHED, output_failures
from .totals import Totals, add_cost_units, json_number

_Shared = TypeVar("_Shared")

__all__ = ["OUTPUT_MATCHED", "TraceFacts", "argument_identity", "json_number"]


def argument_identity(arguments: dict[str, Any] | None) -> str:
    """Canonical JSON of a call's arguments (sorted keys); absent arguments are `{}`."""
    if not arguments:
        return "{}"
    try:
        if _FAST_IDENTITY is not None and type(arguments) is dict and _no_floats(arguments):
            return _FAST_IDENTITY(arguments).decode()
    except Exception:  # the general encoder gives the result or the error it always gave
        pass
    return _IDENTITY.encode(arguments)


# What json.dumps(sort_keys=True, ensure_ascii=False, separators=(",", ":")) uses,
# built once instead of once per call.
_IDENTITY = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))
# The fast path: msgspec writes exactly the same text for JSON made of dicts with str
# keys, lists, str, int, bool and None: the same escapes, keys sorted by code point, ints
# of any size (tested with msgspec 0.23). Whatever it raises on (keys that are not str,
# lone surrogates, deep nesting, a value some release does not support) takes the
# general encoder. Floats are left out: msgspec formats some of them otherwise (1e16 vs
# 1e+16, NaN as null). Since the fast text equals the general text, identities compare
# exactly as before whichever way each was computed.
_FAST_IDENTITY: Callable[[Any], bytes] | None
try:
    _FAST_IDENTITY = msgspec.json.Encoder(order="sorted").encode
except TypeError:  # `order` is new in msgspec 0.18.6: without it, no fast path
    _FAST_IDENTITY = None
_SCALARS = frozenset({str, int, bool, type(None)})


def _no_floats(value: Any) -> bool:
    """Whether a dict (str keys) or list holds only dicts, lists, str, int, bool and None;
    exact types, so that no subclass can sort or format itself otherwise."""
    if type(value) is dict:
        for key, item in value.items():
            kind = type(item)
            if type(key) is not str or (
                kind not in _SCALARS and not ((kind is dict or kind is list) and _no_floats(item))
            ):
                return False
        return True
    for item in value:
        kind = type(item)
        if kind not in _SCALARS and not ((kind is dict or kind is list) and _no_floats(item)):
            return False
    return True


_TOOL_CALL = StepType.TOOL_CALL
_ERROR = Status.ERROR
_NO_FAILURES: frozenset[int] = frozenset()


class TraceFacts:
    """Indexes of one trace, shared by every rule, built a chunk of steps at a time.

    `TraceFacts(trace)` covers a whole trace at once. For a trace read a chunk at a time
    (`TraceFacts()`, then `add` per chunk and `close`), the chunk fields (`steps`,
    `start`, `calls`, `grounded`, `memo`) describe the steps being scanned, and the trace
    fields (counts, first and last calls, totals, `watched_calls`) what was added so far;
    after `close` every trace field is final. Whether the steps are the whole trace is
    known only here (`keyed_calls` uses it); rules read the same facts either way.

    Effective status: `failed(index, step)` is THE answer to "did this call fail?" for
    every rule that reads status (policy v1.1 `error_handling.error_output_patterns`).
    """

    __slots__ = (
        "agent_name",
        "calls",
        "cited_grounded",
        "complete",
        "counts",
        "error_outputs",
        "failed_when",
        "failed_when_hits",
        "first_call",
        "first_call_id",
        "grounded",
        "grounded_count",
        "id_repeats",
        "last_call",
        "last_step",
        "memo",
        "output_failures",
        "start",
        "step_count",
        "step_positions",
        "steps",
        "tool_call_count",
        "totals",
        "trace_memo",
        "unnamed_calls",
        "watched",
        "watched_calls",
    )

    def __init__(
        self,
        trace: Trace | None = None,
        watched: frozenset[str] = frozenset(),
        error_outputs: PatternSet | None = None,
        failed_when: Mapping[str, tuple[FailedWhen, ...]] | None = None,
    ) -> None:
        self.counts: dict[str, int] = {}
        # The trace's agent_name, the agent of a step without `agent` (trace v1.2); None
        # while a trace read a chunk at a time has not given it.
        self.agent_name = None if trace is None else trace.agent_name
        self.first_call: dict[str, int] = {}
        self.first_call_id: dict[str, str] = {}  # the step id at first_call
        self.last_call: dict[str, int] = {}
        self.tool_call_count = self.cited_grounded = self.grounded_count = 0
        self.step_count = 0
        self.last_step: Step | None = None
        self.totals = Totals()  # recorded latency, cost and tokens
        self.complete = False
        self.steps: Sequence[Step] = ()
        self.start = 0
        self.calls: list[tuple[int, Step]] = []
        self.grounded: list[tuple[int, Step]] = []
        self.unnamed_calls = 0
        self.memo: dict[Any, Any] = {}
        # Per-trace state that several rules build together (ARH-SEQ-006/007 share one
        # matching, ARH-FLW-004/005 one source index); kept across chunks, unlike memo.
        self.trace_memo: dict[Any, Any] = {}
        # The first position of each step id, in first-seen order; how often each id that
        # occurs more than once occurs.
        self.step_positions: dict[str, int] = {}
        self.id_repeats: dict[str, int] = {}
        # (position, step id, tool) of every call of a `watched` tool, in trace order.
        self.watched = watched
        self.watched_calls: list[tuple[int, str, str]] = []
        # `error_output_patterns` (None or empty: none), and the positions of the
        # status-ok named calls whose output matches them: of the chunk being scanned,
        # kept over an empty chunk, so the last step's stays known after the last one.
        self.error_outputs = error_outputs or None
        self.output_failures = _NO_FAILURES
        # Per tool, its `failed_when` entries (None: no tool has any), and the positions
        # of output_failures that only they (not error_output_patterns) made failed.
        self.failed_when = failed_when or None
        self.failed_when_hits = _NO_FAILURES
        if trace is not None:
            self.add(trace.steps, complete=True)
            self.close()

    def add(self, steps: Sequence[Step], complete: bool = False) -> None:
        """Index the next chunk of steps. `complete`: the chunk is the whole trace, so the
        trace fields are already final while the rules scan it."""
        start = self.start = self.step_count
        self.steps, self.complete, self.memo = steps, complete, {}
        # (position, step) of every tool_call that names a tool, and of every response
        # that requires grounding, in this chunk.
        calls: list[tuple[int, Step]] = []
        grounded: list[tuple[int, Step]] = []
        self.calls, self.grounded = calls, grounded
        # One loop, its counters and tables in locals (cheaper than attributes).
        counts, first_call, last_call = self.counts, self.first_call, self.last_call
        first_call_id, add_call, add_grounded = self.first_call_id, calls.append, grounded.append
        tool_calls = cited_grounded = latencies = whole_latency = costs = 0
        float_latency, tokens = False, None
        units: int | None = 0  # the costs in units (totals.py); None: not all exact so
        for index, step in enumerate(steps, start):
            latency = step.latency_ms
            if latency is not None:
                latencies += 1
                if latency.__class__ is int:
                    whole_latency += latency
                else:
                    float_latency = True
            cost = step.cost_usd
            if cost is not None:
                costs += 1
                if units is not None:
                    units = add_cost_units(units, cost)
            input_tokens, output_tokens = step.input_tokens, step.output_tokens
            if input_tokens is not None or output_tokens is not None:
                tokens = (tokens or 0) + (input_tokens or 0) + (output_tokens or 0)
            if step.type is _TOOL_CALL:
                tool_calls += 1
                name = step.tool_name
                if name:
                    add_call((index, step))
                    count = counts.get(name)
                    if count is None:
                        counts[name] = 1
                        first_call[name] = index
                        first_call_id[name] = step.step_id
                    else:
                        counts[name] = count + 1
                    last_call[name] = index
            elif step.requires_grounding:
                add_grounded((index, step))
                if step.citations:
                    cited_grounded += 1
        self.totals.merge(steps, latencies, whole_latency, float_latency, costs, units, tokens)
        self._close_chunk(steps, tool_calls, cited_grounded)

    def _close_chunk(self, steps: Sequence[Step], tool_calls: int, cited_grounded: int) -> None:
        start = self.start
        self._index_ids(steps, start)
        if self.error_outputs is not None and steps:
            self.output_failures = output_failures(self.error_outputs, self.calls)
        if self.failed_when is not None and steps:
            self._mark_failed_when()
        if self.watched:
            watched = self.watched
            self.watched_calls += [
                (index, step.step_id, step.tool_name or "")
                for index, step in self.calls
                if step.tool_name in watched
            ]
        if steps:
            self.last_step = steps[-1]
        self.step_count = start + len(steps)
        self.tool_call_count += tool_calls
        self.unnamed_calls = tool_calls - len(self.calls)
        self.cited_grounded += cited_grounded
        self.grounded_count += len(self.grounded)

    def _mark_failed_when(self) -> None:
        """Add the chunk's calls that `failed_when` marks as failed to output_failures."""
        assert self.failed_when is not None
        matched = failed_when_failures(self.failed_when, self.calls)
        by_patterns = self.output_failures if self.error_outputs is not None else _NO_FAILURES
        self.failed_when_hits = matched - by_patterns
        self.output_failures = by_patterns | matched

    def _index_ids(self, steps: Sequence[Step], start: int) -> None:
        positions = self.step_positions
        ids = [step.step_id for step in steps]
        if not positions:
            fresh = dict(zip(ids, range(start, start + len(ids)), strict=True))
            if len(fresh) == len(ids):  # the usual case: no id repeated
                self.step_positions = fresh
                return
        repeats = self.id_repeats
        for index, step_id in enumerate(ids, start):
            first = positions.setdefault(step_id, index)
            if first != index:
                repeats[step_id] = repeats.get(step_id, 1) + 1

    def close(self) -> None:
        """Make the totals final (after the last chunk)."""
        self.totals.close()

    def failed(self, index: int, step: Step) -> bool:
        """Whether a named tool call counts as failed: its status is error, or its status
        is ok and its output (a string, or any string inside it) matches
        `error_output_patterns`, or its output meets one of its tool's `failed_when`
        entries. `index` is the call's position in the trace; the call is one of the
        chunk being scanned (`calls`), or `last_step` once every step is in."""
        return step.status is _ERROR or index in self.output_failures

    def output_failed(self, index: int) -> bool:
        """Whether the call at `index` (status ok) failed only because its output matched
        `error_output_patterns` (what a finding about it must say: `OUTPUT_MATCHED`)."""
        return index in self.output_failures

    def failure_note(self, index: int) -> str:
        """` (output matched error_output_patterns)` (or `failed_when`) for a call that
        failed that way, else ``: what a finding about a failed call appends to its
        message."""
        if index not in self.output_failures:
            return ""
        return f" ({FAILED_WHEN_MATCHED if index in self.failed_when_hits else OUTPUT_MATCHED})"

    @property
    def latency_total(self) -> Decimal | None:
        return self.totals.latency_total

    @property
    def cost_total(self) -> Decimal | None:
        return self.totals.cost_total

    @property
    def token_total(self) -> int | None:
        return self.totals.token_total

    @property
    def citation_coverage(self) -> float | None:
        if not self.grounded_count:
            return None
        return self.cited_grounded / self.grounded_count

    def shared(self, key: str, make: Callable[[], _Shared]) -> _Shared:
        """The per-trace object that several rules build together under `key`
        (`trace_memo`), made by `make()` the first time one of them asks."""
        found: _Shared | None = self.trace_memo.get(key)
        if found is None:
            found = self.trace_memo[key] = make()
        return found

    def keyed_calls(self) -> list[tuple[int, Step, str]]:
        """The chunk's named tool calls with their group key: calls with equal keys made
        identical attempts (same tool, same arguments). Computed once per chunk.

        The key is the tool name, NUL, and the argument identity: one string, which a
        trace of a million calls keeps a million of. It is unambiguous, since the
        identity is JSON text, where a NUL is always escaped. A trace read a chunk at a
        time keeps a long identity as a 128-bit digest instead (`_digest`), so that the
        keys do not hold a copy of every call's arguments."""
        keyed: list[tuple[int, Step, str]] | None = self.memo.get(_KEYED)
        if keyed is None:
            counts = self.counts if self.complete else None
            keyed = []
            append = keyed.append
            fast = _FAST_IDENTITY
            for index, step in self.calls:
                tool = step.tool_name or ""
                # A tool called once in the whole trace is a group of its own, whatever its
                # arguments: its identity is never compared, so it is not computed ("" is no
                # JSON text). Only a complete trace knows that.
                if counts is not None and counts[tool] == 1:
                    append((index, step, tool + "\0"))
                    continue
                # argument_identity inlined: the fast path's UTF-8 bytes are kept, so that a
                # long identity is digested without a round trip through str.
                arguments = step.arguments
                raw = None
                if arguments and fast is not None and type(arguments) is dict:
                    try:
                        if _no_floats(arguments):
                            raw = fast(arguments)
                    except Exception:  # the general encoder gives the result or its error
                        pass
                if raw is None:
                    identity = _IDENTITY.encode(arguments) if arguments else "{}"
                    if counts is None:
                        raw = identity.encode("utf-8", "surrogatepass")
                        if len(raw) > _LONG_IDENTITY:
                            identity = _digest(raw)
                elif counts is None and len(raw) > _LONG_IDENTITY:
                    identity = _digest(raw)
                else:
                    identity = raw.decode()
                append((index, step, f"{tool}\0{identity}"))
            self.memo[_KEYED] = keyed
        return keyed


_KEYED = "facts.keyed_calls"
_LONG_IDENTITY = 64


def _digest(data: bytes) -> str:
    """A stand-in for a long argument identity (its UTF-8 bytes, lone surrogates passed
    through): `#` and its BLAKE2b-128 digest in hex. No identity starts with `#` (it is a
    JSON object), and two different identities share a digest with a probability of
    about 2**-128 per pair. Whether an identity is long is decided on those bytes, which
    both encoders give alike for the same text. (hashlib is imported on first use: few
    runs have such identities, and its import costs more than a small trace's checks.)"""
    global _BLAKE2B  # noqa: PLW0603
    if _BLAKE2B is None:
        import hashlib  # noqa: PLC0415

        _BLAKE2B = hashlib.blake2b
    return "#" + _BLAKE2B(data, digest_size=16).hexdigest()


_BLAKE2B: Callable[..., Any] | None = None
