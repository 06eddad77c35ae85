"""LangSmith payloads beyond run exports, for langsmith_runs.py: the SDK's batch ingest
payload (`{"post": [...], "patch": [...]}`) and the outputs of a run that traced an OpenAI
client (`wrap_openai`: the ChatCompletion itself)."""

from __future__ import annotations

from typing import Any

from ..core.common import TraceBuilder, obj, opt_count, opt_str


def is_batch(value: Any) -> bool:
    """The SDK's batch ingest payload: `{"post": [runs created], "patch": [runs ended]}`."""
    return (
        isinstance(value, dict)
        and bool(value)
        and set(value) <= {"post", "patch"}
        and all(isinstance(v, list) for v in value.values())
    )


def batch_runs(value: dict[str, Any]) -> list[Any]:
    """The runs of a batch payload: each posted run completed by the patches of its id
    (their fields set over the posted ones, as the server applies them); a patch of a run
    the payload did not post stands alone."""
    runs: dict[Any, Any] = {}
    alone: list[Any] = []
    for raw in value.get("post", []):
        key = raw.get("id") if isinstance(raw, dict) else None
        if isinstance(key, str) and key not in runs:
            runs[key] = dict(raw)
        else:
            alone.append(raw)
    for raw in value.get("patch", []):
        key = raw.get("id") if isinstance(raw, dict) else None
        if isinstance(key, str) and key in runs:
            runs[key].update({k: v for k, v in raw.items() if v is not None})
        else:
            alone.append(raw)
    return [*runs.values(), *alone]


def openai_choice(outputs: Any) -> dict[str, Any] | None:
    """The message of a run that traced an OpenAI client (`wrap_openai`): its outputs are
    the ChatCompletion, `choices[0].message`."""
    choices = outputs.get("choices") if isinstance(outputs, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    found = first.get("message") if isinstance(first, dict) else None
    return found if isinstance(found, dict) else None


def openai_output(b: TraceBuilder, outputs: dict[str, Any], at: str) -> None:
    """A traced ChatCompletion: the message's text and tool calls; usage from the
    `usage_metadata` LangSmith adds (else the completion's own `usage`)."""
    where = f"{at}.outputs.choices[0].message"
    found = openai_choice(outputs) or {}
    model = outputs.get("model") if isinstance(outputs.get("model"), str) else None
    start = len(b.steps)
    content = found.get("content")
    b.text(content if isinstance(content, str) and content else None, where, model=model)
    calls = found.get("tool_calls")
    for index, raw in enumerate(calls if isinstance(calls, list) else []):
        call_at = f"{where}.tool_calls[{index}]"
        call = obj(raw, call_at)
        function = call.get("function")
        function = function if isinstance(function, dict) else {}
        name = opt_str(function, "name", f"{call_at}.function")
        b.call(opt_str(call, "id", call_at), name, function.get("arguments"), call_at, model=model)
    meta, usage = outputs.get("usage_metadata"), outputs.get("usage")
    if isinstance(meta, dict):
        pair = (opt_count(meta, "input_tokens", at), opt_count(meta, "output_tokens", at))
    elif isinstance(usage, dict):
        pair = (opt_count(usage, "prompt_tokens", at), opt_count(usage, "completion_tokens", at))
    else:
        return
    b.tokens(start, pair[0], pair[1], at)
