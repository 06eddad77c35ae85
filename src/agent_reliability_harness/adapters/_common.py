"""Shared machinery of the vendor adapters: typed access with locations, and TraceBuilder.

TraceBuilder owns the rules every adapter follows (step ids, result matching,
token placement, notes); adapters only walk their format. No vendor SDK here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..errors import AdapterError, InputError
from ..io import decode_json
from ..models.common import MAX_INT, is_number, type_name

JSON = Any
_MISSING = object()


def fail(at: str, message: str) -> AdapterError:
    """An AdapterError that names where in the transcript the problem is."""
    return AdapterError(f"{at}: {message}" if at else message)


def obj(value: JSON, at: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise fail(at, f"expected an object (got {type_name(value)})")
    return value


def arr(value: JSON, at: str) -> list[Any]:
    if not isinstance(value, list):
        raise fail(at, f"expected an array (got {type_name(value)})")
    return value


def opt_str(d: dict[str, Any], key: str, at: str) -> str | None:
    value = d.get(key)
    if value is None or isinstance(value, str):
        return value
    raise fail(f"{at}.{key}", f"expected a string (got {type_name(value)})")


def opt_list(d: dict[str, Any], key: str, at: str) -> list[Any]:
    value = d.get(key)
    if value is None:
        return []
    return arr(value, f"{at}.{key}")


def opt_obj(d: dict[str, Any], key: str, at: str) -> dict[str, Any] | None:
    value = d.get(key)
    if value is None:
        return None
    return obj(value, f"{at}.{key}")


def opt_count(d: dict[str, Any] | None, key: str, at: str) -> int | None:
    """A token count: a non-negative integer (integral floats accepted) or absent."""
    if d is None:
        return None
    value = d.get(key)
    if value is None:
        return None
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 19:
        value = int(value)  # OTLP/JSON writes 64-bit integers as strings
    if is_number(value) and value >= 0 and float(value).is_integer() and value <= MAX_INT:
        return int(value)
    raise fail(f"{at}.{key}", f"expected a token count >= 0 (got {value!r:.40})")


def first(d: dict[str, Any], *keys: str) -> Any:
    """The value of the first key present (snake_case and camelCase dumps of one field)."""
    for key in keys:
        if key in d:
            return d[key]
    return None


def add_counts(*values: int | None) -> int | None:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


def text_parts(
    parts: list[Any], at: str, kinds: tuple[str, ...], builder: TraceBuilder, joiner: str = ""
) -> str:
    """Join the text of typed parts ({"type": kind, "text": ...}); notes any other part.
    Model text parts are fragments of one message (joined as is); tool outputs use "\n"."""
    texts: list[str] = []
    for index, part in enumerate(parts):
        where = f"{at}[{index}]"
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and part.get("type") in kinds and "text" in part:
            texts.append(opt_str(part, "text", where) or "")
        else:
            builder.note(where, "content part that is not text", part)
    return joiner.join(texts)


@dataclass
class TraceBuilder:
    """Collects steps in execution order, matches results to calls, records notes."""

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
    _open: dict[str, list[int]] = field(default_factory=dict)
    _open_by_name: dict[str, list[int]] = field(default_factory=dict)

    def note(self, at: str, issue: str, value: Any = _MISSING) -> None:
        entry: dict[str, Any] = {"at": at, "issue": issue}
        if value is not _MISSING:
            entry["value"] = value
        self.notes.append(entry)

    def input(self, role: str, text: str, at: str) -> None:
        """Record a user, system or developer message as a trusted input of the run."""
        self.inputs.append({"role": role, "text": text})

    def skip(self, at: str, why: str) -> None:
        """Account for a bookkeeping record that carries no run content (listed as such in
        docs/adapters.md): neither mapped nor a note."""
        self.skipped[why] = self.skipped.get(why, 0) + 1

    def _positional(self) -> str:
        return f"step-{len(self.steps) + 1}"

    def text(self, text: str | None, at: str, **metadata: Any) -> int:
        """Add a model_response step; returns its index."""
        step: dict[str, Any] = {"step_id": self._positional(), "type": "model_response"}
        step["text"] = text
        meta = {k: v for k, v in metadata.items() if v is not None}
        if meta:
            step["metadata"] = meta
        self.steps.append(step)
        return len(self.steps) - 1

    def call(
        self, call_id: str | None, name: str | None, raw_args: Any, at: str, **metadata: Any
    ) -> int:
        """Add a tool_call step (id = native call id, else positional); returns its index."""
        step: dict[str, Any] = {
            "step_id": call_id if call_id else self._positional(),
            "type": "tool_call",
            "tool_name": name,
            "arguments": self.arguments(raw_args, at),
        }
        meta = {k: v for k, v in metadata.items() if v is not None}
        if meta:
            step["metadata"] = meta
        self.steps.append(step)
        index = len(self.steps) - 1
        if call_id:
            self._open.setdefault(call_id, []).append(index)
        elif name:
            self._open_by_name.setdefault(name, []).append(index)
        return index

    def is_open(self, call_id: str) -> bool:
        """Does a call with this id still wait for its result?"""
        return bool(self._open.get(call_id))

    def arguments(self, raw: Any, at: str) -> dict[str, Any] | None:
        """Arguments as an object: JSON text is decoded; anything else is noted, never guessed."""
        if raw is None or isinstance(raw, dict):
            return raw
        if isinstance(raw, str):
            try:
                decoded = decode_json(raw)  # strict, as for input files: no NaN, no lone surrogates
            except InputError:
                self.note(at, "arguments are not valid JSON", raw)
                return None
            if isinstance(decoded, dict):
                return decoded
        self.note(at, "arguments are not a JSON object", raw)
        return None

    def result(
        self,
        call_id: str | None,
        output: Any,
        at: str,
        *,
        error: str | None = None,
        is_error: bool | None = None,
        name: str | None = None,
    ) -> None:
        """Attach a tool result to its call (by id; by name, in order, when the format has none)."""
        queue = self._open.get(call_id) if call_id else None
        if not queue and not call_id and name:
            queue = self._open_by_name.get(name)
        if not queue:
            self.note(
                at, "tool result without a matching call", {"call_id": call_id, "output": output}
            )
            return
        step = self.steps[queue.pop(0)]
        step["output"] = output
        if is_error is not None or error is not None:
            failed = bool(is_error) or bool(error)
            step["status"] = "error" if failed else "ok"
            if failed:
                step["error"] = error if error else _error_text(output)

    def tokens(
        self, start: int, input_tokens: int | None, output_tokens: int | None, at: str
    ) -> None:
        """Record one model turn's usage on the first step it produced (an empty response step
        when it produced none), so the step totals equal the recorded usage exactly once."""
        if input_tokens is None and output_tokens is None:
            return
        if start >= len(self.steps):
            self.text(None, at)
            self.note(at, "model turn with usage but no content")
        step = self.steps[start]
        step["input_tokens"] = add_counts(step.get("input_tokens"), input_tokens)
        step["output_tokens"] = add_counts(step.get("output_tokens"), output_tokens)

    def build(self) -> dict[str, Any]:
        adapter: dict[str, Any] = {"format": self.source, "notes": self.notes}
        if self.skipped:
            adapter["skipped"] = dict(sorted(self.skipped.items()))
        trace: dict[str, Any] = {
            "schema_version": "1",
            "trace_id": self.trace_id or self.name_hint,
            "agent_name": self.agent_name or self.name_hint,
            "workflow": self.workflow or self.name_hint,
            "source": self.source,
            "steps": self.steps,
            "metadata": {**self.metadata, "adapter": adapter},
        }
        if self.inputs:
            trace["inputs"] = self.inputs
        if self.task_id is not None:
            trace["task_id"] = self.task_id
        if self.outcome is not None:
            trace["outcome"] = self.outcome
        return trace


def _error_text(output: Any) -> str:
    if isinstance(output, str) and output.strip():
        return output
    if output is None:
        return "tool reported an error"
    return json.dumps(output, sort_keys=True, ensure_ascii=False)[:2000]


def items_of(
    value: JSON, container_keys: tuple[str, ...]
) -> tuple[list[tuple[Any, str]], dict[str, Any]]:
    """(item, location) pairs of a transcript: a bare array, the array under one of
    `container_keys` of a request-body object, or one object; plus the enclosing object."""
    if isinstance(value, list):
        return [(item, f"[{i}]") for i, item in enumerate(value)], {}
    if isinstance(value, dict):
        for key in container_keys:
            if isinstance(value.get(key), list):
                return [(item, f"{key}[{i}]") for i, item in enumerate(value[key])], value
        return [(value, "$")], {}
    raise fail("$", f"expected an object or an array (got {type_name(value)})")


def any_item(value: JSON, container_keys: tuple[str, ...], test: Any) -> bool:
    """Detection helper: does some item of the transcript (at most 1,000 looked at) pass `test`?"""
    if not isinstance(value, list | dict):
        return False
    pairs, _ = items_of(value, container_keys)
    return any(isinstance(item, dict) and test(item) for item, _ in pairs[:1000])
