"""TraceBuilder: the rules every adapter follows, and the account of what it mapped.

Adapters only walk their format; the builder owns step ids, result pairing, token
placement, reasoning, labels, and the coverage record (`metadata.adapter`) that
detection and refusal read (see docs/adapters.md, "Writing an adapter").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...errors import InputError
from ...io import decode_json
from .agents import owned
from .totals import RecordedTotals, reconcile
from .values import (
    Queue,
    Usage,
    add_counts,
    brief,
    read_labels,
    set_status,
    shifted,
)

_MISSING = object()
INPUT_ROLES = ("user", "system", "developer")


@dataclass
class TraceBuilder:
    """Collects steps in execution order, pairs results with calls, records notes.

    Every input item an adapter meets ends in exactly one of: a builder call that maps
    it (`text`, `call`, `result`, `input`, `reasoning`, `mark`), `note` (content that
    could not be mapped), or `skip` (a bookkeeping record of the format).
    """

    source: str
    name_hint: str
    trace_id: str | None = None
    agent_name: str | None = None
    workflow: str | None = None
    # Trace v1.1 labels (policy-v1.1.md section 1), set from the transcript where it has them.
    task_id: str | None = None
    outcome: dict[str, Any] | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    # The trusted inputs ({role, text}: user, system or developer messages), in order.
    inputs: list[dict[str, str]] = field(default_factory=list)
    # Bookkeeping records of the format that carry no run content, by reason.
    skipped: dict[str, int] = field(default_factory=dict)
    # Input items mapped into the trace (steps, results, inputs, reasoning, labels).
    mapped: int = 0
    _by_id: dict[str, Queue] = field(default_factory=dict)
    _by_name: dict[str, Queue] = field(default_factory=dict)
    _idless: Queue = field(default_factory=Queue)
    _answered: set[int] = field(default_factory=set)
    _reasoning: list[str] = field(default_factory=list)
    _redacted: int = 0
    _reasoning_at: str = ""
    _usage: Usage | None = None  # a model turn's usage that waits for its first step
    _usage_keys: dict[str, tuple[int, Usage]] = field(default_factory=dict)
    _unplaced: list[dict[str, Any]] = field(default_factory=list)
    _seen_inputs: set[tuple[str, str]] = field(default_factory=set)
    # v1.2: the agent taking the steps added now, the step they run under (see _agents).
    agent: str | None = None
    parent_step_id: str | None = None
    _owners: dict[int, tuple[str | None, str | None]] = field(default_factory=dict)
    # The file's own run totals (recorded_totals), reconciled with the steps at build.
    totals: RecordedTotals | None = None

    # --- accounting -----------------------------------------------------------------

    def note(self, at: str, issue: str, value: Any = _MISSING, after: int | None = None) -> None:
        """Content that could not be mapped (an ARH-SCH-013 warning in every report), next to
        the last step added before it: `after` is how many steps there were when the item
        was read, for a note made later (default: now)."""
        entry: dict[str, Any] = {"at": at, "issue": issue}
        if value is not _MISSING:
            entry["value"] = brief(value)
        before = len(self.steps) if after is None else after
        if before:
            entry["step"] = self.steps[before - 1]["step_id"]
        elif self.steps:
            entry["step"] = self.steps[0]["step_id"]  # the next step, already added
        else:
            entry["step"] = None
            self._unplaced.append(entry)
        self.notes.append(entry)

    def skip(self, at: str, why: str) -> None:
        """Account for a bookkeeping record that carries no run content (listed as such in
        docs/adapters.md): neither mapped nor a note."""
        self.skipped[why] = self.skipped.get(why, 0) + 1

    def mark(self, at: str) -> None:
        """Account for an item mapped into trace fields rather than a step (a span naming
        the agent, a trace head holding the labels)."""
        self.mapped += 1

    # --- content --------------------------------------------------------------------

    def input(self, role: str, text: str, at: str, once: bool = False) -> None:
        """Record a user, system or developer message as a trusted input of the run.
        `once`: the message comes from a repeated history (each model span of an export
        carries the conversation so far) and is kept only the first time it is seen."""
        entry = {"role": role if role in INPUT_ROLES else "user", "text": text}
        if once:
            if (entry["role"], text) in self._seen_inputs:
                return
            self._seen_inputs.add((entry["role"], text))
        else:
            self._flush()
        self.mapped += 1
        if text:
            self.inputs.append(entry)

    def reasoning(self, text: str | None, at: str) -> None:
        """Model reasoning (thinking): kept in the metadata of the step it led to, never
        scanned or scored; `None` stands for redacted (encrypted) reasoning."""
        self.mapped += 1
        self._reasoning_at = at
        if text is None:
            self._redacted += 1
        elif text:
            self._reasoning.append(text)

    def _positional(self) -> str:
        return f"step-{len(self.steps) + 1}"

    def _add(self, step: dict[str, Any], metadata: dict[str, Any]) -> int:
        meta = {k: v for k, v in metadata.items() if v is not None}
        if self._reasoning or self._redacted:
            if self._reasoning:
                meta["reasoning"] = list(self._reasoning)
            if self._redacted:
                meta["reasoning_redacted"] = self._redacted
            self._reasoning.clear()
            self._redacted = 0
        if meta:
            step["metadata"] = meta
        self.steps.append(step)
        self.mapped += 1
        if self.agent is not None or self.parent_step_id is not None:
            self._owners[len(self.steps) - 1] = (self.agent, self.parent_step_id)
        if self._unplaced:
            for entry in self._unplaced:
                entry["step"] = step["step_id"]
            self._unplaced.clear()
        index = len(self.steps) - 1
        if self._usage is not None:
            usage, self._usage = self._usage, None
            self._count(index, usage)
        return index

    def text(self, text: str | None, at: str, **metadata: Any) -> int:
        """Add a model_response step; returns its index."""
        step: dict[str, Any] = {"step_id": self._positional(), "type": "model_response"}
        step["text"] = text
        return self._add(step, metadata)

    def call(
        self, call_id: str | None, name: str | None, raw_args: Any, at: str, **metadata: Any
    ) -> int:
        """Add a tool_call step (id = native call id, else positional); returns its index.
        The call waits for its result: by id, or (without an id) by name or call order."""
        step: dict[str, Any] = {
            "step_id": call_id if call_id else self._positional(),
            "type": "tool_call",
            "tool_name": name,
            "arguments": None,
        }
        index = self._add(step, metadata)
        step["arguments"] = self.arguments(raw_args, at)  # a note on them names this step
        if call_id:
            self._by_id.setdefault(call_id, Queue()).items.append(index)
        else:
            self._idless.items.append(index)
        if name:
            self._by_name.setdefault(name, Queue()).items.append(index)
        return index

    def is_open(self, call_id: str | None, name: str | None = None) -> bool:
        """Would a result with this call id (without one: this tool name, else none) find a
        call waiting for it? Formats that write results as plain messages ask first."""
        return self._match(call_id, name) is not None

    def answered(self, index: int) -> None:
        """The call at `index` got its outcome in place (a span holding call and result)."""
        self._answered.add(index)

    def settle(
        self,
        index: int,
        output: Any = _MISSING,
        *,
        error: str | None = None,
        is_error: bool | None = None,
    ) -> None:
        """Record the outcome of the call at `index` in place: the item that holds the call
        holds its result too (a hosted tool, a span), or a later event reports how it ended
        (an exit code). No result is paired with it afterwards. Counts nothing: the item
        was counted by `call` (or `mark` for a separate event)."""
        self._answered.add(index)
        step = self.steps[index]
        if output is not _MISSING:
            step["output"] = output
        set_status(step, error, is_error)

    def measure(
        self,
        index: int,
        *,
        latency_ms: float | None = None,
        cost_usd: float | None = None,
        **metadata: Any,
    ) -> None:
        """What the format measured of the step at `index`: latency (milliseconds) and cost
        (USD), added to what it carries; `metadata` says where a figure comes from (a run
        total). Counts nothing: the figures belong to an item already counted."""
        step = self.steps[index]
        if latency_ms is not None:
            step["latency_ms"] = round((step.get("latency_ms") or 0) + latency_ms, 6)
        if cost_usd is not None:
            step["cost_usd"] = (step.get("cost_usd") or 0) + cost_usd
        meta = {k: v for k, v in metadata.items() if v is not None}
        if meta:
            step.setdefault("metadata", {}).update(meta)

    def arguments(self, raw: Any, at: str) -> dict[str, Any] | None:
        """Arguments as an object: JSON text is decoded; anything else is noted, never guessed."""
        if raw is None or isinstance(raw, dict):
            return raw
        if isinstance(raw, str):
            if not raw.strip():
                return {}  # streamed calls without arguments end with an empty text
            try:
                decoded = decode_json(raw)  # strict, as for input files: no NaN, no lone surrogates
            except InputError:
                self.note(at, "arguments are not valid JSON", raw)
                return None
            if isinstance(decoded, dict):
                return decoded
        self.note(at, "arguments are not a JSON object", raw)
        return None

    def _match(self, call_id: str | None, name: str | None) -> int | None:
        answered = self._answered
        if call_id:
            queue = self._by_id.get(call_id)
            return queue.first(answered) if queue else None
        if name:
            queue = self._by_name.get(name)
            return queue.first(answered) if queue else None
        return self._idless.first(answered)

    def result(
        self,
        call_id: str | None,
        output: Any,
        at: str,
        *,
        error: str | None = None,
        is_error: bool | None = None,
        name: str | None = None,
    ) -> bool:
        """Attach a tool result to its call: by id; without an id, to the oldest open call
        of that name, else to the oldest open call without an id. False (and a note) when
        no call waits for it."""
        self._flush()
        index = self._match(call_id, name)
        if index is None:
            self.note(
                at, "tool result without a matching call", {"call_id": call_id, "output": output}
            )
            return False
        self._answered.add(index)
        self.mapped += 1
        step = self.steps[index]
        step["output"] = output
        set_status(step, error, is_error)
        return True

    # --- usage ----------------------------------------------------------------------

    def tokens(
        self,
        start: int,
        input_tokens: int | None,
        output_tokens: int | None,
        at: str,
        *,
        key: str | None = None,
        cost_usd: float | None = None,
    ) -> None:
        """Record one model turn's usage (tokens, and its cost where the format records one)
        on the first step it produced, so the step totals equal the recorded usage exactly
        once. A turn that produced no step yet passes it to the next step (its content may
        follow in another entry of the same message); failing that, an empty response step
        carries it. `key` (a message id) counts the usage of a message split over several
        entries once, keeping the largest values."""
        usage = Usage(input_tokens, output_tokens, cost_usd, at, key)
        if usage.empty:
            return
        if key is not None and key in self._usage_keys:
            index, had = self._usage_keys[key]
            grown = had.merged(usage)
            step = self.steps[index]
            step["input_tokens"] = shifted(step.get("input_tokens"), had.input, grown.input)
            step["output_tokens"] = shifted(step.get("output_tokens"), had.output, grown.output)
            if grown.cost is not None:
                step["cost_usd"] = (step.get("cost_usd") or 0) - (had.cost or 0) + grown.cost
            self._usage_keys[key] = (index, grown)
            return
        if self._usage is not None and key is not None and self._usage.key == key:
            self._usage = self._usage.merged(usage)
            return
        if start < len(self.steps):
            self._count(start, usage)
            return
        if self._usage is not None:  # an earlier turn's usage still waits: it had no step
            self._flush()
        self._usage = usage

    def _count(self, index: int, usage: Usage) -> None:
        step = self.steps[index]
        step["input_tokens"] = add_counts(step.get("input_tokens"), usage.input)
        step["output_tokens"] = add_counts(step.get("output_tokens"), usage.output)
        if usage.cost is not None:
            step["cost_usd"] = (step.get("cost_usd") or 0) + usage.cost
        if usage.key is not None:
            self._usage_keys[usage.key] = (index, usage)

    def end_turn(self, **metadata: Any) -> None:
        """The model turn is over (the format marks where turns end): reasoning or usage
        that found no step of the turn go on an empty response step now (with the turn's
        `metadata`: model, response id), not on the next turn's first step."""
        self._flush(**metadata)

    def _flush(self, **metadata: Any) -> None:
        """A model turn that ended with reasoning or usage but no step gets an empty one."""
        usage, thought = self._usage, bool(self._reasoning or self._redacted)
        if usage is None and not thought:
            return
        at = usage.at if usage is not None else self._reasoning_at
        self.text(None, at, **metadata)
        self.mapped -= 1  # the empty step maps no item of its own (reasoning was counted)
        if not thought:
            self.note(at, "model turn with usage but no content")

    # --- labels ---------------------------------------------------------------------

    def labels(self, body: dict[str, Any], at: str = "") -> None:
        """Trace labels written next to the messages (`trace_id`, `agent_name`, `workflow`,
        `task_id`, `outcome`); they win over the file name. A numeric id is its decimal
        text; a label of another type is noted."""
        for key, value, problem in read_labels(body):
            if problem is None:
                setattr(self, key, value)
            else:
                self.note(f"{at}.{key}" if at else key, problem, value)

    # --- result ---------------------------------------------------------------------

    def recorded_totals(self, totals: RecordedTotals) -> None:
        """The run totals the file records (see _totals.py): at build the steps' sums
        are made equal to them, or a note names both numbers."""
        self.totals = totals

    def build(self) -> dict[str, Any]:
        self._flush()
        if self.totals is not None:
            reconcile(self.steps, self.totals, self.note)
        agent_name = self.agent_name or self.name_hint
        adapter: dict[str, Any] = {"format": self.source, "notes": self.notes}
        adapter["mapped"] = self.mapped
        if self.skipped:
            adapter["skipped"] = dict(sorted(self.skipped.items()))
        trace: dict[str, Any] = {
            "schema_version": "1",
            "trace_id": self.trace_id or self.name_hint,
            "agent_name": agent_name,
            "workflow": self.workflow or self.name_hint,
            "source": self.source,
            "steps": owned(self.steps, self._owners, agent_name),
            "metadata": {**self.metadata, "adapter": adapter},
        }
        if self.inputs:
            trace["inputs"] = self.inputs
        if self.task_id is not None:
            trace["task_id"] = self.task_id
        if self.outcome is not None:
            trace["outcome"] = self.outcome
        return trace


__all__ = ["TraceBuilder", "add_counts", "brief"]
