"""The "moatless" format: a Moatless Tools search tree (`SearchTree.persist()`: the tree's
settings and its `root` node, each node with its `children`).

A node is one expansion: the model's turn (`completions.build_action`: the request, the
raw response and moatless' `usage`), the actions it chose (`action_steps[i].action`, typed
by `action_args_class`) and what running them gave (`.observation`: `message`,
`properties.fail_reason` / `error`; a tool's own model call in `.completion` /
`observation.execution_completion`). Older trees hold one `action` and `observation` per
node. An `ActionError` action is a model turn that produced no valid action (a failed
model step); `Finish` ends the run, its `finish_reason` is the final answer.

One trace per tree, nodes in creation order (`node_id`). A tree that branches keeps the
path to its best finished node as the main line; every other branch is an agent of its
own (`branch-<node_id>`, the first node off the main line) whose steps run under the last
step of the node it branched from (`parent_step_id`).
"""

from __future__ import annotations

from typing import Any

from ..core.base import Adapter
from ..core.common import TraceBuilder, arr, fail, obj, opt_amount, opt_count, opt_obj

NAME = "moatless"
_SETTINGS = ("selector", "expander", "max_expansions", "max_iterations", "agent")
_ARGS_META = ("thoughts", "action_args_class")


def _is_node(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and "node_id" in item
        and isinstance(item.get("children"), list)
        and ("action_steps" in item or "action" in item)
    )


def detect(value: Any) -> bool:
    """A persisted search tree: a `root` node (`node_id`, `children`, `action_steps` or
    `action`) next to the search's settings."""
    return (
        isinstance(value, dict)
        and _is_node(value.get("root"))
        and any(key in value for key in _SETTINGS)
    )


def _nodes(root: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """Every node with its parent, depth first."""
    found: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
    stack: list[tuple[Any, dict[str, Any] | None]] = [(root, None)]
    while stack:
        node, parent = stack.pop()
        if not isinstance(node, dict):
            continue
        found.append((node, parent))
        children = node.get("children")
        if isinstance(children, list):
            stack.extend((child, node) for child in reversed(children))
    return found


def _main_line(nodes: list[tuple[dict[str, Any], dict[str, Any] | None]]) -> set[int]:
    """Node ids from the root to the best finished leaf (highest reward; else the deepest
    leaf, the first of equals)."""
    parents = {id(node): parent for node, parent in nodes}
    leaves = [node for node, _ in nodes if not node.get("children")]

    def rank(node: dict[str, Any]) -> tuple[int, Any, int]:
        reward = node.get("reward") if isinstance(node.get("reward"), dict) else {}
        value = reward.get("value") if isinstance(reward, dict) else None
        depth, up = 0, parents.get(id(node))
        while up is not None:
            depth, up = depth + 1, parents.get(id(up))
        number = isinstance(value, int | float) and not isinstance(value, bool)
        return (int(_finished(node)), value if number else float("-inf"), depth)

    best = max(leaves, key=rank) if leaves else None
    line: set[int] = set()
    while best is not None:
        line.add(id(best))
        best = parents.get(id(best))
    return line


def _finished(node: dict[str, Any]) -> bool:
    steps = node.get("action_steps") if isinstance(node.get("action_steps"), list) else []
    observation = steps[-1].get("observation") if steps and isinstance(steps[-1], dict) else None
    return isinstance(observation, dict) and observation.get("terminal") is True


def convert(value: Any, name_hint: str) -> list[Any]:
    if not detect(value):
        raise fail("$", 'expected a Moatless search tree ({"root": {node}, ...settings})')
    b = TraceBuilder(NAME, name_hint)
    agent = opt_obj(value, "agent", "$") or {}
    prompt = agent.get("system_prompt")
    if isinstance(prompt, str) and prompt:
        b.input("system", prompt, "agent.system_prompt")
    nodes = _nodes(value["root"])
    main = _main_line(nodes)
    branches = len(main) < len(nodes)
    lasts: dict[int, str] = {}  # node -> id of its last step
    owners: dict[int, str] = {}  # node off the main line -> its branch's agent
    for node, parent in sorted(nodes, key=lambda pair: _order(pair[0])):
        at = f"node {node.get('node_id')}"
        if branches and id(node) not in main:
            up = id(parent) if parent is not None else 0
            owners[id(node)] = owners.get(up) or f"branch-{node.get('node_id')}"
            b.agent, b.parent_step_id = owners[id(node)], lasts.get(up)
        else:
            b.agent, b.parent_step_id = None, None
        _node(b, node, at)
        if b.steps:
            lasts[id(node)] = b.steps[-1]["step_id"]
        if parent is not None and id(node) not in lasts:
            lasts[id(node)] = lasts.get(id(parent), "")
    return [b.build()]


def _order(node: dict[str, Any]) -> int:
    number = node.get("node_id")
    return number if isinstance(number, int) else 0


def _node(b: TraceBuilder, node: dict[str, Any], at: str) -> None:
    """One expansion: its user message or feedback (inputs), the model's turn, actions."""
    for key in ("user_message", "feedback_data"):
        text = node.get(key)
        if isinstance(text, str) and text:
            b.input("user", text, f"{at}.{key}")
    start = len(b.steps)
    completions = opt_obj(node, "completions", at) or {}
    build = completions.get("build_action")
    text = _response_text(build) if isinstance(build, dict) else None
    if text is None and isinstance(node.get("assistant_message"), str):
        text = node["assistant_message"]
    if text:
        b.text(text, f"{at}.completions.build_action", model=_model(build))
    calls = _tool_calls(build) if isinstance(build, dict) else []
    steps = node.get("action_steps")
    if steps is None and isinstance(node.get("action"), dict):
        steps = [{"action": node["action"], "observation": node.get("observation")}]
    for n, raw in enumerate(arr(steps or [], f"{at}.action_steps")):
        _action(b, obj(raw, f"{at}.action_steps[{n}]"), f"{at}.action_steps[{n}]", calls, start)
    if isinstance(build, dict):
        _usage(b, start, build, f"{at}.completions.build_action")
    for key, other in sorted(completions.items()):
        if key != "build_action" and isinstance(other, dict):
            index = b.text(_response_text(other), f"{at}.completions.{key}", moatless=key)
            _usage(b, index, other, f"{at}.completions.{key}")
    if len(b.steps) == start and node.get("user_message") is None:
        b.skip(at, "node without an action (the tree's root)")


def _action(
    b: TraceBuilder,
    step: dict[str, Any],
    at: str,
    calls: list[tuple[str | None, str | None]],
    start: int,
) -> None:
    action = obj(step.get("action"), f"{at}.action")
    kind = str(action.get("action_args_class") or "").rsplit(".", 1)[-1].removesuffix("Args")
    thoughts = action.get("thoughts")
    if isinstance(thoughts, str) and thoughts and thoughts not in _texts(b, start):
        b.reasoning(thoughts, f"{at}.action.thoughts")
    if kind == "ActionError":
        index = start if len(b.steps) > start else b.text(None, f"{at}.action")
        b.settle(index, error=str(action.get("error") or "the model gave no valid action"))
        b.mark(f"{at}.observation")
        return
    call_id = next((cid for cid, name in calls if name == kind and isinstance(cid, str)), None)
    args = {k: v for k, v in action.items() if k not in _ARGS_META}
    index = b.call(call_id, kind or None, args, f"{at}.action")
    observation = step.get("observation")
    if isinstance(observation, dict):
        _observation(b, index, observation, f"{at}.observation")
    if kind == "Finish" and isinstance(action.get("finish_reason"), str):
        b.metadata["final_answer"] = action["finish_reason"]
    tool = step.get("completion")
    if tool is None and isinstance(observation, dict):
        tool = observation.get("execution_completion")
    if isinstance(tool, dict):
        _usage(b, index, tool, f"{at}.completion")


def _texts(b: TraceBuilder, start: int) -> list[str]:
    return [s["text"] for s in b.steps[start:] if isinstance(s.get("text"), str)]


def _observation(b: TraceBuilder, index: int, observation: dict[str, Any], at: str) -> None:
    """What the action gave: its message; `fail_reason` or `error` fail it."""
    found = observation.get("properties")
    props: dict[str, Any] = found if isinstance(found, dict) else {}
    failure = props.get("fail_reason") or props.get("error")
    error = str(failure) if failure else None
    b.settle(index, observation.get("message"), error=error, is_error=error is not None)
    b.mark(at)


def _response_text(completion: dict[str, Any]) -> str | None:
    """The model's text in a completion's raw response (Chat Completions or Anthropic)."""
    response = completion.get("response")
    if not isinstance(response, dict):
        return None
    choices = response.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        message = choices[0].get("message")
        content = message.get("content") if isinstance(message, dict) else None
        return content if isinstance(content, str) and content else None
    content = response.get("content")
    blocks: list[Any] = content if isinstance(content, list) else []
    texts = [x.get("text") for x in blocks if isinstance(x, dict) and x.get("type") == "text"]
    joined = "".join(t for t in texts if isinstance(t, str))
    return joined or None


def _tool_calls(completion: dict[str, Any]) -> list[tuple[str | None, str | None]]:
    """(id, name) of the tool calls in a completion's raw response."""
    response = completion.get("response")
    if not isinstance(response, dict):
        return []
    found: list[tuple[str | None, str | None]] = []
    for choice in _list(response.get("choices")):
        message = choice.get("message") if isinstance(choice, dict) else None
        for call in _list(message.get("tool_calls") if isinstance(message, dict) else None):
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict):
                found.append((call.get("id"), function.get("name")))
    for block in _list(response.get("content")):
        if isinstance(block, dict) and block.get("type") == "tool_use":
            found.append((block.get("id"), block.get("name")))
    return found


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _model(completion: Any) -> str | None:
    model = completion.get("model") if isinstance(completion, dict) else None
    return model if isinstance(model, str) else None


def _usage(b: TraceBuilder, index: int, completion: dict[str, Any], at: str) -> None:
    """moatless' usage of one model call: prompt and cached (cache read) tokens in,
    completion tokens out, and its cost."""
    usage = opt_obj(completion, "usage", at)
    if usage is None:
        return
    where = f"{at}.usage"
    prompt = opt_count(usage, "prompt_tokens", where)
    cached = opt_count(usage, "cached_tokens", where)
    total_in = None if prompt is None and cached is None else (prompt or 0) + (cached or 0)
    cost = opt_amount(usage, "completion_cost", where)
    b.tokens(index, total_in, opt_count(usage, "completion_tokens", where), at, cost_usd=cost)


ADAPTER = Adapter(
    name=NAME,
    description="Moatless Tools search trees (SearchTree.persist JSON: nodes, actions)",
    detect=detect,
    convert=convert,
)
