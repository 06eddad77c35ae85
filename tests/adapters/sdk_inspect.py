"""Inspect AI eval logs made by running real evals offline: a mockllm model replays the
scenarios' model turns (with their usage), Inspect tools answer with the scenarios'
results (ToolError for failures), a scorer grades each sample; the logs are read back with
`inspect_ai.log`, given fixed clocks and ids, and written with `write_eval_log` as `.eval`
(Zstandard members, as Inspect writes them) and `.json`."""

# The SDKs are an optional test extra: import them only when a fixture is built.
# ruff: noqa: PLC0415
# No `from __future__ import annotations`: Inspect reads the tools' annotations at run time.

import io
import json
import re
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from scenarios import CLEAN, MULTIPART, PARALLEL, RETRY, Result, Scenario
from sdk_spans import _output

MODEL = "mockllm/model"


def _outputs(s: Scenario) -> list[Any]:
    from inspect_ai.model import (
        ChatCompletionChoice,
        ChatMessageAssistant,
        ContentText,
        ModelOutput,
        ModelUsage,
    )
    from inspect_ai.tool import ToolCall

    outputs = []
    for number, turn in enumerate(s.turns, start=1):
        content: Any = (
            [ContentText(text=t) for t in turn.texts]
            if len(turn.texts) > 1
            else "".join(turn.texts)
        )
        message = ChatMessageAssistant(
            id=f"msg-{s.name}-{number}",
            content=content,
            tool_calls=[
                ToolCall(id=c.call_id, function=c.name, arguments=dict(c.args)) for c in turn.calls
            ]
            or None,
            model=MODEL,
        )
        usage = ModelUsage(
            input_tokens=turn.usage[0], output_tokens=turn.usage[1], total_tokens=sum(turn.usage)
        )
        stop = "tool_calls" if turn.calls else "stop"
        outputs.append(
            ModelOutput(
                model=MODEL,
                choices=[ChatCompletionChoice(message=message, stop_reason=stop)],
                usage=usage,
            )
        )
    return outputs


def _tools(results: dict[str, list[Result]]) -> list[Any]:
    """lookup_order, search_kb and issue_refund, each answering with the next scenario
    result of its name (the scenarios' calls of one tool come in result order)."""
    from inspect_ai.model import ContentText
    from inspect_ai.tool import ToolError, tool

    def answer(name: str) -> Any:
        result = results[name].pop(0)
        if result.error:
            raise ToolError(result.error)
        if result.parts:
            return [ContentText(text=p) for p in result.parts]
        return _output(result.output)

    @tool
    def lookup_order() -> Any:
        async def execute(order_id: str) -> Any:
            """Look up an order.

            Args:
                order_id: The order id.
            """
            return answer("lookup_order")

        return execute

    @tool
    def search_kb() -> Any:
        async def execute(query: str, top_k: int = 3) -> Any:
            """Search the knowledge base.

            Args:
                query: What to search for.
                top_k: How many passages.
            """
            return answer("search_kb")

        return execute

    @tool
    def issue_refund() -> Any:
        async def execute(order_id: str, amount: float, currency: str) -> Any:
            """Refund an order.

            Args:
                order_id: The order id.
                amount: The amount.
                currency: The currency.
            """
            return answer("issue_refund")

        return execute

    return [lookup_order(), search_kb(), issue_refund()]


TARGETS = {"clean": "RF-77", "retry": "delivered", "parallel": "30 days", "multipart": "Shipping"}


def run(
    scenarios: list[Scenario],
    epochs: int = 1,
    name: str = "refunds",
    targets: dict[str, str] | None = None,
) -> Any:
    """Run the scenarios as one eval (one sample each, samples one at a time)."""
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import get_model
    from inspect_ai.scorer import includes
    from inspect_ai.solver import generate, system_message, use_tools

    outputs = [o for s in scenarios for _ in range(epochs) for o in _outputs(s)]
    results: dict[str, list[Result]] = {}
    for s in scenarios:
        for _ in range(epochs):
            for call in s.calls:
                result = s.results[call.call_id]
                results.setdefault(result.name, []).append(result)
    goals = {**TARGETS, **(targets or {})}
    task = Task(
        name=name,
        dataset=[Sample(input=s.user, target=goals[s.name], id=s.name) for s in scenarios],
        solver=[
            system_message("You are a refund assistant."),
            use_tools(*_tools(results)),
            generate(),
        ],
        scorer=includes(),
        epochs=epochs,
    )
    with tempfile.TemporaryDirectory() as tmp:
        model = get_model(MODEL, custom_outputs=outputs)
        (log,) = eval(
            task, model=model, log_dir=tmp, display="none", max_samples=1, log_format="json"
        )
    return normalise(log)


_IDS = re.compile(r'"([23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz]{22})"')
_STAMPS = ("created", "timestamp", "started_at", "completed_at", "completed")
_DURATIONS = ("total_time", "working_time", "working_start")


def normalise(log: Any) -> Any:
    """Fixed clocks, durations and ids in place of wall-clock and random ones."""
    from inspect_ai.log import EvalLog

    counter = iter(range(10**6))

    def walk(item: Any) -> Any:
        if isinstance(item, dict):
            out = {}
            for k, v in item.items():
                if k in _STAMPS and isinstance(v, str):
                    out[k] = (
                        f"2026-01-15T09:{next(counter) // 60 % 60:02d}:{next(counter) % 60:02d}+00:00"
                    )
                elif k in _DURATIONS and isinstance(v, int | float) and not isinstance(v, bool):
                    out[k] = 0.25
                elif k == "time" and isinstance(v, float):
                    out[k] = 0.7  # a model call's duration (ModelOutput.time)
                elif k == "value" and str(item.get("path", "")).endswith("/time"):
                    out[k] = 0.7  # the same duration, in a state event's JSON patch
                elif k == "revision":
                    out[k] = None
                else:
                    out[k] = walk(v)
            return out
        if isinstance(item, list):
            return [walk(v) for v in item]
        return item

    data = walk(log.model_dump(mode="json"))
    text = json.dumps(data)
    for n, old in enumerate(dict.fromkeys(_IDS.findall(text)), start=1):
        text = text.replace(f'"{old}"', f'"id{n:020d}"')
    data = json.loads(text)
    data["location"] = ""
    return EvalLog.model_validate(data)


def write(log: Any, fmt: str) -> bytes:
    """The log file `write_eval_log` writes (for `.eval`, members re-stamped with a fixed
    date so the archive bytes are stable)."""
    from inspect_ai.log import write_eval_log

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"log.{fmt}"
        write_eval_log(log, str(path), format=fmt)
        data = path.read_bytes()
    return restamp(data) if fmt == "eval" else data


def restamp(data: bytes, compression: int | None = None) -> bytes:
    """The archive rewritten member by member with a fixed date (and optionally another
    compression: ZIP_DEFLATED is what older Inspect versions wrote)."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=(2026, 1, 15, 9, 0, 0))
            fixed.compress_type = info.compress_type if compression is None else compression
            target.writestr(fixed, source.read(info))
    return out.getvalue()


def extras() -> list[tuple[str, Any]]:
    refunds = run([CLEAN, RETRY, PARALLEL])
    epochs = run([MULTIPART], epochs=2, name="policy-summary")
    graded = run([RETRY], name="graded", targets={"retry": "cancelled"})  # scored I
    return [
        ("refunds.eval", write(refunds, "eval")),
        ("refunds.json", json.loads(write(refunds, "json"))),
        ("epochs-deflate.eval", restamp(write(epochs, "eval"), zipfile.ZIP_DEFLATED)),
        ("graded-incorrect.json", json.loads(write(graded, "json"))),
    ]
