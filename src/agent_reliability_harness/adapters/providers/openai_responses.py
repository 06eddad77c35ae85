"""The "openai-responses" format: Responses API item lists (`input`) and Response dumps.

Items map in order: assistant `message` -> text step, `function_call` (and every
client-executed `*_call`) -> call, `*_output` items -> the matching call's result,
hosted `*_call` -> call + outcome in one item, `reasoning` -> step metadata.
"""

from __future__ import annotations

from typing import Any

from ..core.base import Adapter
from ..core.common import (
    TraceBuilder,
    any_item,
    any_trailer,
    items_of,
    obj,
    opt_count,
    opt_list,
    opt_obj,
    opt_str,
)

NAME = "openai-responses"
CONTAINERS = ("input", "output", "data")
TRAILERS = ("output", "response")
_TEXT_KINDS = ("output_text", "input_text", "text")
_MARKER_TYPES = ("function_call", "function_call_output", "reasoning", "custom_tool_call")
_MARKER_PARTS = ("output_text", "input_text")
_FAILED = ("failed", "incomplete")
# Items that declare or configure rather than record run content (docs/adapters.md).
_BOOKKEEPING = {
    "mcp_list_tools": "declared tools (mcp_list_tools)",
    "additional_tools": "declared tools (additional_tools)",
    "tool_search_output": "declared tools (tool_search_output)",
    "item_reference": "reference to an earlier item",
    "configuration_update": "configuration update",
    "compaction_trigger": "compaction trigger",
    "compaction": "compacted (encrypted) history",
    "mcp_approval_request": "approval request for a hosted MCP call",
    "mcp_approval_response": "approval decision for a hosted MCP call",
}
# Calls the client executes: their outcome arrives in a later `<kind>_output` item.
_CLIENT_CALLS = ("computer_call", "local_shell_call", "shell_call", "apply_patch_call")
_INPUT_ROLES = ("user", "system", "developer")


def _is_marker(item: dict[str, Any]) -> bool:
    if item.get("object") == "response":
        return True
    if item.get("type") in _MARKER_TYPES:
        return True
    if _event(item) is not None:
        return True
    content = item.get("content")
    return (
        item.get("type") == "message"
        and isinstance(content, list)
        and any(isinstance(c, dict) and c.get("type") in _MARKER_PARTS for c in content[:200])
    )


def detect(value: Any) -> bool:
    """Response dumps (`object: response`), typed items (function_call,
    function_call_output, reasoning, custom_tool_call), or `type: message` items whose
    content has output_text/input_text parts; also an `input` body whose `output` items or
    `response` carry them (its input may be plain text messages)."""
    return any_item(value, CONTAINERS, _is_marker) or any_trailer(
        value, ("input",), TRAILERS, _is_marker
    )


def convert(value: Any, name_hint: str) -> list[Any]:
    builder = TraceBuilder(NAME, name_hint)
    body: dict[str, Any]
    if _bare_response(value):
        pairs, body = [(value, "$")], {}  # a bare Response dump keeps its usage and id
    else:
        body_with_input = isinstance(value, dict) and "input" in value
        pairs, body = items_of(value, CONTAINERS, TRAILERS if body_with_input else ())
    builder.labels(body)
    seen: set[str] = set()
    finished = any(_event(item) in _TERMINAL for item, _ in pairs if isinstance(item, dict))
    for raw, at in pairs:
        item = obj(raw, at)
        event = _event(item)
        if item.get("object") == "response" or (at == "$" and _bare_response(item)):
            _response(builder, item, at, seen)
        elif event is None:
            _item(builder, item, at, {}, seen)
        elif event in _TERMINAL:
            _response(builder, item["response"], f"{at}.response", seen)
        elif event == "response.output_item.done" and not finished:
            _item(builder, obj(item.get("item"), f"{at}.item"), f"{at}.item", {}, seen)
        elif event == "error":
            builder.note(at, "the stream reported an error", item)
        else:
            builder.skip(at, "stream event (the final response or its items hold the content)")
    return [builder.build()]


_TERMINAL = ("response.completed", "response.incomplete", "response.failed")


def _event(item: dict[str, Any]) -> str | None:
    """The type of a streaming event, else None: a `response.*` or `error` event with its
    `sequence_number`, or (streams recorded before events had one) a `response.*` event
    with its `response` object or `output_index`, and no `event_id` (Realtime API events
    share the `response.*` names)."""
    kind = item.get("type")
    if not isinstance(kind, str):
        return None
    if kind in _TERMINAL:
        return kind if isinstance(item.get("response"), dict) else None
    if "sequence_number" in item and (kind.startswith("response.") or kind == "error"):
        return kind
    if kind.startswith("response.") and "event_id" not in item and _event_shape(item):
        return kind
    return None


def _event_shape(item: dict[str, Any]) -> bool:
    index = item.get("output_index")
    return isinstance(item.get("response"), dict) or (
        isinstance(index, int) and not isinstance(index, bool)
    )


def _bare_response(value: Any) -> bool:
    """A Response dump (also one written without its `object` key: `output` with the
    response's own fields and no `input`)."""
    if not isinstance(value, dict):
        return False
    if value.get("object") == "response":
        return True
    own = "usage" in value or "created_at" in value
    return isinstance(value.get("output"), list) and "input" not in value and own


def _response(b: TraceBuilder, response: dict[str, Any], at: str, seen: set[str]) -> None:
    meta = {"model": opt_str(response, "model", at), "response_id": opt_str(response, "id", at)}
    start = len(b.steps)
    instructions = response.get("instructions")
    if isinstance(instructions, str) and instructions:
        b.input("developer", instructions, f"{at}.instructions", once=True)
    for index, item in enumerate(opt_list(response, "output", at)):
        where = f"{at}.output[{index}]"
        _item(b, obj(item, where), where, meta, seen)
    error = opt_obj(response, "error", at)
    if error is not None:
        b.note(f"{at}.error", "the response failed", error)
    usage = opt_obj(response, "usage", at)
    where = f"{at}.usage"
    b.tokens(
        start, opt_count(usage, "input_tokens", where), opt_count(usage, "output_tokens", where), at
    )


def _item(
    b: TraceBuilder, item: dict[str, Any], at: str, meta: dict[str, Any], seen: set[str]
) -> None:
    item_id = opt_str(item, "id", at)
    kind = item.get("type")
    if kind is not None and not isinstance(kind, str):
        b.note(at, "item of an unknown kind", item)
        return
    if item_id is not None and kind != "item_reference":
        if item_id in seen:
            b.skip(at, "item repeated (already mapped)")
            return
        seen.add(item_id)
    role = item.get("role")
    if kind in (None, "message"):
        if role == "assistant":
            _message(b, item, at, meta)
        elif role in _INPUT_ROLES:
            _input(b, str(role), item.get("content"), at)
        else:
            b.note(at, "item of an unknown kind", item)
    elif kind in _BOOKKEEPING:
        b.skip(at, _BOOKKEEPING[kind])
    elif kind == "reasoning":
        _reasoning(b, item, at)
    elif kind in ("function_call", "custom_tool_call", "program", *_CLIENT_CALLS):
        _client_call(b, item, str(kind), at, meta)
    elif isinstance(kind, str) and kind.endswith("_output"):
        _result(b, item, kind, at)
    elif isinstance(kind, str) and kind.endswith("_call"):
        _builtin(b, item, kind, at, meta)
    else:
        b.note(at, "item of an unknown kind", item)


def _client_call(
    b: TraceBuilder, item: dict[str, Any], kind: str, at: str, meta: dict[str, Any]
) -> None:
    """A call whose outcome arrives later, paired by `call_id`: function and custom tools,
    and the client-executed built-ins (computer, shell, apply_patch) named by kind."""
    item_id = opt_str(item, "id", at)
    call_id = opt_str(item, "call_id", at)
    extra = {"item_id": item_id if kind == "function_call" else None}
    namespace = item.get("namespace")
    if isinstance(namespace, str) and namespace:
        extra["namespace"] = namespace
    if kind == "function_call":
        name = opt_str(item, "name", at)
        b.call(call_id, name, item.get("arguments"), f"{at}.arguments", **extra, **meta)
    elif kind == "custom_tool_call":
        b.call(call_id, opt_str(item, "name", at), None, at, **meta)
        b.note(f"{at}.input", "custom tool input is not JSON arguments", item.get("input"))
    else:
        args = {k: item[k] for k in ("action", "actions", "operation", "code") if k in item}
        index = b.call(call_id or item_id, kind.removesuffix("_call"), args, at, built_in=True)
        if item.get("status") in _FAILED:
            b.steps[index]["status"] = "error"
            b.steps[index]["error"] = f"status {item['status']}"


def _result(b: TraceBuilder, item: dict[str, Any], kind: str, at: str) -> None:
    # local_shell_call_output names its call by `id` (the call's call_id).
    call_id = opt_str(item, "call_id", at)
    if call_id is None and kind == "local_shell_call_output":
        call_id = opt_str(item, "id", at)
    output = item.get("output", item.get("result"))
    status = item.get("status")
    failed = status == "failed" or _shell_failed(output)
    error = f"status {status}" if status == "failed" else ("non-zero exit" if failed else None)
    b.result(
        call_id,
        _output(b, output, f"{at}.output"),
        at,
        error=error,
        is_error=True if failed else None,
    )


def _shell_failed(output: Any) -> bool:
    """A shell_call_output whose command exited non-zero (or timed out)."""
    if not isinstance(output, list):
        return False
    for entry in output:
        outcome = entry.get("outcome") if isinstance(entry, dict) else None
        if isinstance(outcome, dict) and outcome.get("type") == "timeout":
            return True
        if isinstance(outcome, dict) and outcome.get("exit_code") not in (None, 0):
            return True
    return False


def _reasoning(b: TraceBuilder, item: dict[str, Any], at: str) -> None:
    texts: list[str] = []
    for key in ("summary", "content"):
        parts = item.get(key)
        for part in parts if isinstance(parts, list) else []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
    if texts:
        b.reasoning("\n".join(texts), at)
    else:
        b.reasoning(None, at)  # encrypted_content only


def _message(b: TraceBuilder, item: dict[str, Any], at: str, meta: dict[str, Any]) -> None:
    content = item.get("content")
    phase = item.get("phase") if isinstance(item.get("phase"), str) else None
    if isinstance(content, list):
        texts: list[str] = []
        citations: list[dict[str, Any]] = []
        for index, part in enumerate(content):
            where = f"{at}.content[{index}]"
            kind = part.get("type") if isinstance(part, dict) else None
            if isinstance(part, dict) and kind in _TEXT_KINDS and isinstance(part.get("text"), str):
                texts.append(part["text"])
                citations += _citations(part.get("annotations"))
            elif isinstance(part, dict) and kind == "refusal":
                b.text(opt_str(part, "refusal", where), where, refusal=True, **meta)
            else:
                b.note(where, "content part that is not text", part)
        if texts:
            index = b.text("".join(texts), at, phase=phase, **meta)
            if citations:
                b.steps[index]["citations"] = citations
    elif isinstance(content, str) and content:
        b.text(content, at, phase=phase, **meta)
    else:
        b.skip(at, "assistant message without content")


def _citations(annotations: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for raw in annotations if isinstance(annotations, list) else []:
        if isinstance(raw, dict) and raw.get("type") == "url_citation":
            entry = {"source": raw.get("title"), "url": raw.get("url")}
        elif isinstance(raw, dict) and raw.get("type") == "file_citation":
            entry = {"source": raw.get("filename") or raw.get("file_id")}
        else:
            continue
        found.append({k: v for k, v in entry.items() if isinstance(v, str)})
    return found


def _input(b: TraceBuilder, role: str, content: Any, at: str) -> None:
    if isinstance(content, str) or content is None:
        b.input(role, content or "", at)
        return
    if not isinstance(content, list):
        b.note(f"{at}.content", "input content that is not text", content)
        return
    texts = []
    for index, part in enumerate(content):
        if isinstance(part, dict) and part.get("type") in _TEXT_KINDS:
            texts.append(str(part.get("text") or ""))
        else:
            b.note(f"{at}.content[{index}]", "input part that is not text", part)
    b.input(role, "\n".join(texts), at)


def _builtin(
    b: TraceBuilder, item: dict[str, Any], kind: str, at: str, meta: dict[str, Any]
) -> None:
    """Hosted tools (web_search_call, mcp_call, ...) carry call and outcome in one item."""
    name = opt_str(item, "name", at) or kind.removesuffix("_call")
    if "arguments" in item:
        args = item.get("arguments")
    elif isinstance(item.get("action"), dict):
        args = item["action"]
    else:
        keys = ("queries", "code", "input", "action")
        args = {k: item[k] for k in keys if k in item} or None
    call_id = opt_str(item, "call_id", at) or opt_str(item, "id", at)
    index = b.call(call_id, name, args, f"{at}.arguments", built_in=True, **meta)
    status = opt_str(item, "status", at)
    error = item.get("error")
    output = next((item[k] for k in ("output", "results", "outputs", "result") if k in item), None)
    failed = error is not None or status in _FAILED
    reason = (str(error) if error is not None else f"status {status}") if failed else None
    outcome = {} if output is None else {"output": output}  # a success leaves status unset
    b.settle(index, **outcome, error=reason, is_error=True if failed else None)


def _output(b: TraceBuilder, output: Any, at: str) -> Any:
    if isinstance(output, list) and all(
        isinstance(p, dict) and p.get("type") in _TEXT_KINDS for p in output
    ):
        return "\n".join(str(p.get("text") or "") for p in output)
    return output


ADAPTER = Adapter(
    name=NAME,
    description="OpenAI Responses API input item lists and Response dumps",
    detect=detect,
    convert=convert,
)
