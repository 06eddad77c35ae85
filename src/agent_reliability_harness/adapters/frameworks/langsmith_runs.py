"""LangSmith run exports for the "langchain" format: Run objects as `run.dict()` /
`model_dump(mode="json")` / the REST API write them, as run trees (`child_runs`) or flat
lists (`parent_run_id`). One trace per trace id; runs map in start order: llm -> model
step, tool / retriever -> tool call, chains (structure), prompts and parsers skipped."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ...models.common import is_number
from ..core.agents import SpanTree, handoff
from ..core.common import TraceBuilder, fail, obj, opt_count, opt_str
from ..core.langchain_messages import add_input, add_message, message
from .langsmith_payloads import batch_runs, is_batch, openai_choice, openai_output

NAME = "langchain"
RUN_TYPES = ("llm", "chat_model", "tool", "chain", "retriever", "embedding", "prompt", "parser")
_SKIPPED = {"prompt": "prompt run (formatting)", "parser": "parser run (formatting)"}
_TRACEBACK = "Traceback (most recent call last)"

Located = tuple[str, dict[str, Any]]


def is_run(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and item.get("run_type") in RUN_TYPES
        and ("inputs" in item or "child_runs" in item)
        and "id" in item
    )


def detect(value: Any) -> bool:
    """A run, an array of runs, or `{"runs": [...]}`."""
    items = _items(value)
    return items is not None and any(is_run(i) for i in items[:1000])


def _items(value: Any) -> list[Any] | None:
    if isinstance(value, list):
        return value
    if isinstance(value, dict) and isinstance(value.get("runs"), list):
        return list(value["runs"])
    if is_batch(value):
        return batch_runs(value)
    return [value] if isinstance(value, dict) else None


def convert(value: Any, name_hint: str) -> list[Any]:
    items = _items(value)
    if items is None:
        raise fail("$", "expected a LangSmith run or an array of runs")
    where = "runs" if isinstance(value, dict) and "runs" in value else ""
    runs: dict[str, Located] = {}
    repeats: list[Located] = []
    for index, raw in enumerate(items):
        at = f"{where}[{index}]" if where or isinstance(value, list) else "$"
        _flatten(raw, at, runs, repeats)
    grouped: dict[str, list[Located]] = {}
    for at, run in runs.values():
        grouped.setdefault(_trace_key(run), []).append((at, run))
    multi = len(grouped) > 1
    return [
        _trace(key, group, f"{name_hint}-{n}" if multi else name_hint, repeats)
        for n, (key, group) in enumerate(grouped.items(), start=1)
    ]


def _trace_key(run: dict[str, Any]) -> str:
    key = run.get("trace_id")
    return key if isinstance(key, str) else ""


def _flatten(raw: Any, at: str, runs: dict[str, Located], repeats: list[Located]) -> None:
    """Every run of a tree or list, once by id (an export may hold a run both as a child
    and as a list item); the repeats apart."""
    run = obj(raw, at)
    run_id = opt_str(run, "id", at) or at
    if run_id in runs:
        repeats.append((at, run))
    else:
        runs[run_id] = (at, run)
    children = run.get("child_runs")
    for index, child in enumerate(children if isinstance(children, list) else []):
        _flatten(child, f"{at}.child_runs[{index}]", runs, repeats)


def _trace(key: str, runs: list[Located], hint: str, repeats: list[Located]) -> dict[str, Any]:
    b = TraceBuilder(NAME, hint, trace_id=key or None)
    for at, run in repeats:
        if _trace_key(run) == key:
            b.skip(at, "run repeated with the same id")
    ids = {_id(run.get("id")) for _, run in runs}
    roots = [(at, run) for at, run in runs if _id(run.get("parent_run_id")) not in ids]
    ordered = sorted(enumerate(runs), key=lambda p: (str(p[1][1].get("start_time") or ""), p[0]))
    failing = _failing_ancestors(runs)
    executed = _executed(runs)
    tree = _graphs(runs, {_id(run.get("id")) for _, run in roots})
    for _, (at, run) in ordered:
        kind = run.get("run_type")
        own = _id(run.get("id"))
        before = _owner(b, tree, own)
        if kind in ("llm", "chat_model"):
            if any(run is r for _, r in roots):
                _root_prompt(b, run, at)
            _llm(b, run, at, executed)
        elif kind in ("tool", "retriever"):
            _tool(b, run, at)
        elif kind == "chain" and any(run is r for _, r in roots):
            _root(b, run, at)
        elif kind == "chain" and run.get("error") and _id(run.get("id")) not in failing:
            b.note(at, "chain run recorded an error", _error(run.get("error")))
        elif kind == "chain":
            b.skip(at, "chain run (structure)")
        elif isinstance(kind, str) and kind in _SKIPPED:
            b.skip(at, _SKIPPED[kind])
        else:
            b.note(at, f"{kind} run is not a step", {"name": run.get("name"), "run_type": kind})
        tree.produced(own, before, b.steps)
    return b.build()


def _depth(run: dict[str, Any]) -> int:
    """How deep in nested graphs LangGraph ran the run (`langgraph_checkpoint_ns`)."""
    extra = run.get("extra")
    meta = extra.get("metadata") if isinstance(extra, dict) else None
    space = meta.get("langgraph_checkpoint_ns") if isinstance(meta, dict) else None
    return len(space.split("|")) if isinstance(space, str) and space else 0


def _graphs(runs: list[Located], roots: set[str | None]) -> SpanTree:
    """The agents of a LangGraph run tree: a run whose children run one graph level deeper
    is a graph's run (a sub-graph node, or a graph a tool invoked), named by the graph
    (its node's name when the graph kept LangGraph's default name). The root's graph is
    the trace's agent, not one of several."""
    by_id = {_id(run.get("id")): run for _, run in runs}
    graphs: dict[str | None, str] = {}
    for _, run in runs:
        up = by_id.get(_id(run.get("parent_run_id")))
        own = _id(up.get("id")) if up is not None else None
        if up is None or own in roots or _depth(run) <= _depth(up):
            continue
        name, extra = up.get("name"), up.get("extra")
        meta = extra.get("metadata") if isinstance(extra, dict) else None
        node = meta.get("langgraph_node") if isinstance(meta, dict) else None
        if name == "LangGraph" or not isinstance(name, str):
            name = node if isinstance(node, str) else name
        graphs[own] = name if isinstance(name, str) and name else "agent"
    return SpanTree.of([(i, _id(r.get("parent_run_id")), graphs.get(i)) for i, r in by_id.items()])


def _owner(b: TraceBuilder, tree: SpanTree, own: str | None) -> int:
    """Set the agent and parent of the run's steps; an agent graph no tool call ran starts
    under the latest hand-off to it (_agents.handoff). Returns the step count before."""
    b.agent, b.parent_step_id = tree.owner(own)
    home = tree.home(own)
    if b.agent is not None and b.parent_step_id is None and home is not None:
        b.parent_step_id = handoff(b.steps, tree.agents[home])
        if b.parent_step_id is not None:
            tree.links[home] = b.parent_step_id
    return len(b.steps)


def _id(value: Any) -> str | None:
    """A run id (JSON may hold anything there)."""
    return value if isinstance(value, str) else None


def _failing_ancestors(runs: list[Located]) -> set[Any]:
    """Runs with a failing descendant: their error is that descendant's, already mapped."""
    parent = {_id(run.get("id")): _id(run.get("parent_run_id")) for _, run in runs}
    found: set[Any] = set()
    for _, run in runs:
        if run.get("error") and run.get("run_type") != "chain":
            up = parent.get(_id(run.get("id")))
            while up is not None and up not in found:
                found.add(up)
                up = parent.get(up)
    # A chain whose failing child is itself a chain: the error is the child's.
    for _, run in runs:
        if run.get("error") and run.get("run_type") == "chain":
            up = parent.get(_id(run.get("id")))
            while up is not None and up not in found:
                found.add(up)
                up = parent.get(up)
    return found


def _call_id(run: dict[str, Any]) -> str | None:
    """The model's id of the call a tool run executed (LangGraph records it in `extra`; the
    ToolMessage output carries it too)."""
    extra = run.get("extra")
    if isinstance(extra, dict) and isinstance(extra.get("tool_call_id"), str):
        return str(extra["tool_call_id"])
    output = _output_message(run)
    if output is not None and isinstance(output.get("tool_call_id"), str):
        return str(output["tool_call_id"])
    return None


def _output_message(run: dict[str, Any]) -> dict[str, Any] | None:
    outputs = run.get("outputs")
    found = message(outputs.get("output")) if isinstance(outputs, dict) else None
    return found[1] if found is not None and found[0] == "tool" else None


def _executed(runs: list[Located]) -> set[str]:
    return {i for _, run in runs if run.get("run_type") == "tool" and (i := _call_id(run))}


def _latency(b: TraceBuilder, run: dict[str, Any], at: str) -> float | None:
    start, end = run.get("start_time"), run.get("end_time")
    if not isinstance(start, str) or not isinstance(end, str):
        return None
    try:
        delta = datetime.fromisoformat(end) - datetime.fromisoformat(start)
    except (TypeError, ValueError):
        b.note(at, "run times are not ISO 8601", {"start_time": start, "end_time": end})
        return None
    millis = delta.total_seconds() * 1000
    return round(millis, 3) if millis >= 0 else None


def _error(raw: Any) -> str:
    """The error of a run without its traceback (LangSmith appends the whole stack): the
    text before it, else the traceback's last line."""
    text = (raw if isinstance(raw, str) else str(raw)).strip()
    head = text.split(_TRACEBACK, 1)[0].strip()
    if head:
        return head
    return text.splitlines()[-1] if text else "error"


def _root(b: TraceBuilder, run: dict[str, Any], at: str) -> None:
    """The root chain names the agent; its input messages (or input text) are the trusted
    inputs, its outputs repeat what the child runs hold."""
    name = opt_str(run, "name", at)
    b.agent_name = b.agent_name or name
    b.labels({"task_id": run.get("reference_example_id")}, at)  # the dataset example run
    extra = run.get("extra")
    meta = extra.get("metadata") if isinstance(extra, dict) else None
    if isinstance(meta, dict) and isinstance(meta.get("thread_id"), str):
        b.metadata["thread_id"] = meta["thread_id"]
    inputs = run.get("inputs")
    messages = inputs.get("messages") if isinstance(inputs, dict) else None
    for index, raw in enumerate(messages if isinstance(messages, list) else []):
        where = f"{at}.inputs.messages[{index}]"
        found = message(raw)
        if found is None:
            b.note(where, "item that is not a LangChain message", raw)
        elif not add_input(b, found, where):
            # A thread's earlier turns, given to this run: another run's steps.
            b.skip(where, "earlier turn in the root run's input messages")
    for key in ("input", "question", "query"):
        if isinstance(inputs, dict) and isinstance(inputs.get(key), str):
            b.input("user", inputs[key], f"{at}.inputs.{key}")
    if run.get("error") is not None:
        b.note(f"{at}.error", "the run failed", _error(run["error"]))
    else:
        b.mark(at)  # its name and example are labels; its outputs repeat the child runs


def _llm(b: TraceBuilder, run: dict[str, Any], at: str, executed: set[str]) -> None:
    start = len(b.steps)
    outputs = run.get("outputs") if isinstance(run.get("outputs"), dict) else {}
    generations = outputs.get("generations") if isinstance(outputs, dict) else None
    first = generations[0] if isinstance(generations, list) and generations else None
    choices = first if isinstance(first, list) else []
    generation = choices[0] if choices and isinstance(choices[0], dict) else None
    for extra_at in range(1, len(choices)):
        b.note(f"{at}.outputs.generations[0][{extra_at}]", "extra generation", choices[extra_at])
    if generation is None and isinstance(outputs, dict) and openai_choice(outputs) is not None:
        openai_output(b, outputs, at)
    elif generation is not None and generation.get("message") is not None:
        add_message(
            b, generation["message"], f"{at}.outputs.generations[0][0].message", executed, True
        )
    else:
        text = generation.get("text") if generation is not None else None
        b.text(text if isinstance(text, str) else None, at)
        if run.get("error") is None and generation is None:
            b.note(at, "llm run without generations")
    if start == len(b.steps):  # the generation held no AI message (a note says why)
        b.text(None, at)
    step = b.steps[start]
    if "input_tokens" not in step and "output_tokens" not in step:
        _run_tokens(b, run, outputs, at, start)
    # The message's own model name wins over the run's invocation parameters.
    model = None if "model" in step.get("metadata", {}) else _model(run)
    b.measure(start, latency_ms=_latency(b, run, at), cost_usd=_cost(run), model=model)
    if run.get("error") is not None:
        b.note(f"{at}.error", "llm run recorded an error", _error(run["error"]))


def _root_prompt(b: TraceBuilder, run: dict[str, Any], at: str) -> None:
    """A model call traced on its own (`wrap_openai`: the llm run is the root): the
    system, developer and user messages it was sent (`inputs.messages`, OpenAI's shape)
    are the run's inputs."""
    inputs = run.get("inputs")
    messages = inputs.get("messages") if isinstance(inputs, dict) else None
    for index, raw in enumerate(messages if isinstance(messages, list) else []):
        role = raw.get("role") if isinstance(raw, dict) else None
        content = raw.get("content") if isinstance(raw, dict) else None
        if role in ("system", "developer", "user") and isinstance(content, str):
            b.input(str(role), content, f"{at}.inputs.messages[{index}]")


def _cost(run: dict[str, Any]) -> float | None:
    """The run's `total_cost` (LangSmith writes it as a decimal string or a number)."""
    cost = run.get("total_cost")
    if isinstance(cost, str):
        try:
            cost = float(cost)
        except ValueError:
            return None
    return cost if isinstance(cost, int | float) and is_number(cost) and cost >= 0 else None


def _run_tokens(b: TraceBuilder, run: dict[str, Any], outputs: Any, at: str, start: int) -> None:
    """Usage when the message has none: the provider's `llm_output.token_usage`, else the
    run's own counts (LangSmith computes them per llm run)."""
    llm_output = outputs.get("llm_output") if isinstance(outputs, dict) else None
    usage = llm_output.get("token_usage") if isinstance(llm_output, dict) else None
    if isinstance(usage, dict):
        where = f"{at}.outputs.llm_output.token_usage"
        pair = (
            opt_count(usage, "prompt_tokens", where),
            opt_count(usage, "completion_tokens", where),
        )
    else:
        pair = (opt_count(run, "prompt_tokens", at), opt_count(run, "completion_tokens", at))
    b.tokens(start, pair[0], pair[1], at)


def _model(run: dict[str, Any]) -> str | None:
    extra = run.get("extra")
    if not isinstance(extra, dict):
        return None
    params, meta = extra.get("invocation_params"), extra.get("metadata")
    for source, key in ((params, "model_name"), (params, "model"), (meta, "ls_model_name")):
        if isinstance(source, dict) and isinstance(source.get(key), str):
            return str(source[key])
    return None


def _tool(b: TraceBuilder, run: dict[str, Any], at: str) -> None:
    kind = run.get("run_type")
    call_id = _call_id(run) if kind == "tool" else None
    name = opt_str(run, "name", at)
    outputs = run.get("outputs") if isinstance(run.get("outputs"), dict) else {}
    message = _output_message(run)
    output: Any
    if message is not None:
        output = message.get("content")
        failed = message.get("status") == "error"
    else:
        key = "documents" if kind == "retriever" else "output"
        output = outputs.get(key) if isinstance(outputs, dict) else None
        failed = False
    error = _error(run["error"]) if run.get("error") is not None else None
    asked = _asked(b, name) if kind == "tool" and call_id is None else None
    if asked is not None:  # a traced function the model's call ran (no call id on the run)
        b.result(None, output, at, error=error, is_error=failed or error is not None, name=name)
        b.measure(asked, latency_ms=_latency(b, run, at))
        return
    index = b.call(
        call_id or opt_str(run, "id", at), name, run.get("inputs"), f"{at}.inputs", kind=kind
    )
    # The run holds its own outcome (a failed ToolMessage without a run error: its output).
    b.settle(index, output, error=error, is_error=failed or error is not None)
    b.measure(index, latency_ms=_latency(b, run, at))


def _asked(b: TraceBuilder, name: str | None) -> int | None:
    """The model's call (an OpenAI tool call of a traced completion) that a tool run without
    a call id answers: the oldest unanswered call of its name."""
    if not name or not b.is_open(None, name):
        return None
    for index, step in enumerate(b.steps):
        if step.get("tool_name") == name and step["type"] == "tool_call" and "output" not in step:
            return index
    return None
