"""The "inspect" format: Inspect AI eval logs, `.json` or `.eval` (a zip archive read by
inspect_zip.py). One trace per sample and epoch: the sample's messages map to steps, the
model events of its transcript give each model turn's usage, its scores the `outcome`."""

from __future__ import annotations

import math
from typing import Any

from ...errors import AdapterError
from ..core.base import Adapter
from ..core.common import TraceBuilder, add_counts, obj, opt_count, opt_list, opt_obj, opt_str
from ..core.values import set_status
from . import inspect_zip

NAME = "inspect"
_ATTACHMENT = "attachment://"
# Inspect's value_to_float for letter grades: correct, incorrect, partial, no answer.
_GRADES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}


def detect(value: Any) -> bool:
    """An eval log: `eval` (with `task`) next to `samples`, `status` or `version`."""
    if not isinstance(value, dict) or not isinstance(value.get("eval"), dict):
        return False
    return "task" in value["eval"] and any(k in value for k in ("samples", "status", "version"))


def convert(value: Any, name_hint: str) -> list[Any]:
    log = obj(value, "$")
    spec = obj(log.get("eval"), "eval")
    samples = opt_list(log, "samples", "$")
    if not samples:
        status = log.get("status")
        raise AdapterError(
            f"the eval log holds no samples (status {status!r}; logs written with "
            "--no-log-samples carry only scores)"
        )
    return [
        _sample(spec, obj(raw, f"samples[{i}]"), f"samples[{i}]") for i, raw in enumerate(samples)
    ]


def _sample(spec: dict[str, Any], sample: dict[str, Any], at: str) -> dict[str, Any]:
    sample = _resolve(sample, sample.get("attachments"))
    epoch = sample.get("epoch")
    task_id = _task_id(spec.get("task"), sample.get("id"))
    label = f"{task_id}-{epoch}" if task_id is not None and isinstance(epoch, int) else None
    b = TraceBuilder(NAME, label or at, trace_id=label)
    b.workflow = opt_str(spec, "task", "eval")
    solver = spec.get("solver")
    b.agent_name = solver if isinstance(solver, str) and solver else opt_str(spec, "model", "eval")
    for key in ("eval_id", "run_id", "model"):
        if isinstance(spec.get(key), str):
            b.metadata[key] = spec[key]
    for key in ("uuid", "epoch", "target", "limit"):
        if sample.get(key) is not None:
            b.metadata[key] = sample[key]
    messages = opt_list(sample, "messages", at)
    events, events_at = _events(sample, at)
    direct = _direct(messages, events)
    usage = {} if direct else _usage_by_message(events, events_at)
    # Messages are matched to model calls by id where the log has ids (an assistant
    # message in the sample's input came from no call), else in order.
    by_id = any(isinstance(k, str) for k in usage)
    turn = 0
    for index, raw in enumerate(messages):
        where = f"{at}.messages[{index}]"
        message = obj(raw, where)
        role = message.get("role")
        if role in ("system", "user"):
            text = _text(b, message.get("content"), f"{where}.content", joiner="\n")
            b.input(str(role), text, where)
        elif role in ("assistant", "tool") and message.get("source") == "input":
            b.note(where, "message of the sample's input (a prompt, not the run's action)", message)
        elif role == "assistant":
            message_id = message.get("id")
            if by_id:
                call = usage.get(message_id) if isinstance(message_id, str) else None
            else:
                call = usage.get(turn)
            _assistant(b, message, where, call)
            turn += 1
        elif role == "tool":
            _tool(b, message, where)
        else:
            b.note(where, "message with an unknown role", message)
    if direct:
        _event_steps(b, events, events_at)
    b.labels({"task_id": task_id, "outcome": _outcome(sample.get("scores"))}, at)
    error = sample.get("error")
    if isinstance(error, dict):
        b.note(f"{at}.error", "the sample ended with an error", error.get("message"))
    return b.build()


def _task_id(task: Any, raw_id: Any) -> str | None:
    """`<eval.task>/<sample id>`: a sample id is unique only within its eval's dataset,
    so the samples of different evals never share a task (nor their traces an id)."""
    if not isinstance(raw_id, str | int) or isinstance(raw_id, bool):
        return None
    return f"{task}/{raw_id}" if isinstance(task, str) and task else str(raw_id)


def _resolve(value: Any, attachments: Any) -> Any:
    """Inspect moves long strings into the sample's `attachments` (`attachment://<hash>`):
    put them back."""
    if not isinstance(attachments, dict) or not attachments:
        return value
    if isinstance(value, str) and value.startswith(_ATTACHMENT):
        found = attachments.get(value[len(_ATTACHMENT) :])
        return found if isinstance(found, str) else value
    if isinstance(value, dict):
        return {k: v if k == "attachments" else _resolve(v, attachments) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, attachments) for v in value]
    return value


def _usage_by_message(events: list[Any], where: str) -> dict[Any, dict[str, Any]]:
    """Each model call's output (usage, time) from the transcript's model events, keyed by
    the id of the message it produced, and by turn number (for messages without ids)."""
    found: dict[Any, dict[str, Any]] = {}
    turn = 0
    for index, event in enumerate(events):
        if not isinstance(event, dict) or event.get("event") != "model":
            continue
        output = event.get("output") if isinstance(event.get("output"), dict) else {}
        message = _first_message(output)
        entry = {"output": output, "at": f"{where}[{index}]"}
        if isinstance(message, dict) and isinstance(message.get("id"), str):
            found[message["id"]] = entry
        found[turn] = entry
        turn += 1
    return found


def _first_message(output: Any) -> Any:
    """The message of a model event's first choice (anything: the caller checks)."""
    choices = output.get("choices") if isinstance(output, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    return first.get("message") if isinstance(first, dict) else None


def _direct(messages: list[Any], events: list[Any]) -> bool:
    """A solver that calls the model itself (`get_model().generate()`) leaves the prompt
    alone in `messages` (and `output.choices` empty): its model turns are the model events."""
    for message in messages:
        turn = isinstance(message, dict) and message.get("role") in ("assistant", "tool")
        if turn and message.get("source") != "input":
            return False
    return any(isinstance(e, dict) and e.get("event") == "model" for e in events)


def _event_steps(b: TraceBuilder, events: list[Any], where: str) -> None:
    """The steps of a sample whose messages hold no model turn: each model event's output
    message (with its usage and time), each tool event's result (a ToolEvent: `id`,
    `function`, `result`, `error`)."""
    for index, event in enumerate(events):
        at = f"{where}[{index}]"
        kind = event.get("event") if isinstance(event, dict) else None
        if kind == "model":
            output = opt_obj(event, "output", at) or {}
            message = _first_message(output)
            if isinstance(message, dict):
                entry = {"output": output, "at": at}
                _assistant(b, message, f"{at}.output.choices[0].message", entry)
            elif isinstance(event.get("error"), str):
                set_status(
                    b.steps[b.text(None, at, model=event.get("model"))], event["error"], True
                )
            else:
                b.note(at, "model event without an output message", output)
        elif kind == "tool":
            error = opt_obj(event, "error", at)
            text = opt_str(error, "message", f"{at}.error") if error else None
            b.result(
                opt_str(event, "id", at),
                _text(b, event.get("result"), f"{at}.result", "\n"),
                at,
                error=(text or "tool error") if error else None,
                is_error=error is not None,
                name=opt_str(event, "function", at),
            )


def _events(sample: dict[str, Any], at: str) -> tuple[list[Any], str]:
    """The sample's transcript events: `events`, or `transcript.events` in the logs of
    older Inspect versions (with the path they were read at)."""
    events = opt_list(sample, "events", at)
    transcript = sample.get("transcript")
    if events or not isinstance(transcript, dict):
        return events, f"{at}.events"
    return opt_list(transcript, "events", f"{at}.transcript"), f"{at}.transcript.events"


def _text(b: TraceBuilder, content: Any, at: str, joiner: str = "", model: bool = False) -> str:
    """Text of a message's content (a string, or Content parts: the model's text joined
    as is, inputs and tool output with newlines; a model's reasoning parts go to the
    builder, in order; other parts noted)."""
    if isinstance(content, str):
        return content
    texts: list[str] = []
    for index, part in enumerate(content if isinstance(content, list) else []):
        kind = part.get("type") if isinstance(part, dict) else None
        where = f"{at}[{index}]"
        if kind == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif kind == "reasoning" and model:
            thought = part.get("reasoning")
            redacted = part.get("redacted") is True or not isinstance(thought, str)
            b.reasoning(None if redacted else thought, where)
        else:
            b.note(where, "content part that is not text", part)
    return joiner.join(texts)


def _assistant(
    b: TraceBuilder, message: dict[str, Any], at: str, usage: dict[str, Any] | None
) -> None:
    model = message.get("model")
    meta = {"model": model if isinstance(model, str) else None}
    start = len(b.steps)
    text = _text(b, message.get("content"), f"{at}.content", model=True)
    calls = opt_list(message, "tool_calls", at)
    if text or not calls:  # every assistant message came from a model call
        b.text(text or None, at, **meta)
    for index, raw in enumerate(calls):
        where = f"{at}.tool_calls[{index}]"
        call = obj(raw, where)
        parse_error = call.get("parse_error")
        b.call(
            opt_str(call, "id", where),
            opt_str(call, "function", where),
            call.get("arguments"),
            f"{where}.arguments",
            **meta,
            parse_error=parse_error if isinstance(parse_error, str) else None,
        )
    if usage is None:
        return
    output = usage["output"]
    counts = opt_obj(output, "usage", usage["at"])
    where = f"{usage['at']}.output.usage"
    tokens_out = opt_count(counts, "output_tokens", where)
    b.tokens(start, _input_tokens(counts, tokens_out, where), tokens_out, at)
    seconds = output.get("time")
    if isinstance(seconds, int | float) and not isinstance(seconds, bool) and seconds >= 0:
        b.measure(start, latency_ms=round(seconds * 1000, 3))


def _input_tokens(counts: dict[str, Any] | None, tokens_out: int | None, at: str) -> int | None:
    """A call's input tokens. Inspect now counts cached input apart from `input_tokens`
    (as Anthropic does): the cache counts are added. Logs of older versions kept OpenAI's
    and Grok's cached tokens inside `input_tokens`; a record whose `total_tokens` is
    `input_tokens` + `output_tokens` (+ `reasoning_tokens`, which Grok counts apart)
    while it is not that sum with the cache added says so, and its cache is not added."""
    tokens_in = opt_count(counts, "input_tokens", at)
    cache = add_counts(
        opt_count(counts, "input_tokens_cache_read", at),
        opt_count(counts, "input_tokens_cache_write", at),
    )
    total = _plain_count(counts, "total_tokens")
    if tokens_in is None or not cache or total is None:
        return add_counts(tokens_in, cache)
    reasoning = _plain_count(counts, "reasoning_tokens") or 0
    sums = {tokens_in + (tokens_out or 0) + extra for extra in (0, reasoning)}
    if total in sums and total - cache not in sums:
        return tokens_in  # the cache is already inside input_tokens
    return tokens_in + cache


def _plain_count(counts: dict[str, Any] | None, key: str) -> int | None:
    """A count read only to tell the two shapes apart: anything but an integer is absent."""
    value = counts.get(key) if counts else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _tool(b: TraceBuilder, message: dict[str, Any], at: str) -> None:
    error = opt_obj(message, "error", at)
    output = _text(b, message.get("content"), f"{at}.content", "\n")
    text = opt_str(error, "message", f"{at}.error") if error else None
    b.result(
        opt_str(message, "tool_call_id", at),
        output,
        at,
        error=(text or "tool error") if error else None,
        is_error=error is not None,
        name=opt_str(message, "function", at),
    )


def _outcome(raw: Any) -> dict[str, Any] | None:
    """Scores as `outcome.scores` (name -> value); the first scorer's value also gives
    `reward` (letter grades as Inspect converts them: C 1, P 0.5, I and N 0) and, for
    C/I and booleans, `success`."""
    if not isinstance(raw, dict) or not raw:
        return None
    scores = {k: v.get("value") if isinstance(v, dict) else v for k, v in raw.items()}
    outcome: dict[str, Any] = {"scores": scores}
    value = next(iter(scores.values()))
    if isinstance(value, bool):
        outcome["success"], outcome["reward"] = value, float(value)
    elif isinstance(value, str) and value in _GRADES:
        outcome["reward"] = _GRADES[value]
        if value in ("C", "I"):
            outcome["success"] = value == "C"
    elif isinstance(value, int | float) and math.isfinite(value):
        outcome["reward"] = value
    return outcome


ADAPTER = Adapter(
    name=NAME,
    description="Inspect AI eval logs (.eval archives and .json)",
    detect=detect,
    convert=convert,
    suffixes=inspect_zip.SUFFIXES,
    read_file=inspect_zip.read,
)
