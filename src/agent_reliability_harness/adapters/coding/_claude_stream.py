"""What Claude Code's stream (Agent SDK / `--output-format stream-json`) adds to a session:
the run totals its `result` line records, and lines of kinds another tool writes; and
the kinds of lines that are a session's bookkeeping.

Claude Code 1.0.x writes one line per content block and repeats on each the usage
snapshot taken when the message started, so the messages' output tokens fall short; the
`result` line's `usage` holds the main agent's real totals, its cost (`total_cost_usd`,
before 1.0.40 `cost_usd` and `total_cost`) the whole run's. Sub-agent messages
(`parent_tool_use_id`) carry their own usage, outside the result line's.
"""

from __future__ import annotations

from typing import Any

from ...errors import AdapterError
from ..core.common import add_counts, opt_amount, opt_count
from ..core.totals import RecordedTotals
from .cursor_agent import cursor_line

# Lines that record the session's bookkeeping, not its run: titles, file snapshots, the
# input queue, hook/shell/sub-agent progress (sub-agent turns have their own file),
# system notices, modes. The Agent SDK's `system` lines (init) are bookkeeping too.
BOOKKEEPING = frozenset(
    {
        "summary",
        "file-history-snapshot",
        "queue-operation",
        "progress",
        "system",
        "permission-mode",
        "last-prompt",
        "custom-title",
        "ai-title",
        "agent-name",
        "mode",
        "tag",
        "pr-link",
        "worktree-state",
        "attribution-snapshot",
        "bridge-session",
    }
)
_RUN_COSTS = ("total_cost_usd", "cost_usd", "total_cost")
# Keys by which a line of a kind Claude Code does not write carries a tool call or result.
_CALL_KEYS = ("tool_call", "tool_calls", "call_id", "tool_use", "tool_result")


def foreign_line(at: str, kind: str | None, line: dict[str, Any]) -> AdapterError | None:
    """A line of a kind Claude Code does not write that carries a tool call or result (or
    is a kind only cursor-agent writes): the file is not Claude Code's, and reading on
    would drop what it ran. None: an unknown line that is only a note."""
    if not (cursor_line(line) or any(k in line for k in _CALL_KEYS)):
        return None
    hint = "; it is a cursor-agent stream (--format cursor-agent)" if cursor_line(line) else ""
    why = f"a '{kind}' line carries a tool call Claude Code never writes{hint}"
    return AdapterError(f"not a claude-code transcript: {at}: {why}")


def result_totals(line: dict[str, Any], at: str) -> RecordedTotals:
    """What a result line records: the main agent's tokens, the run's cost."""
    usage = line.get("usage")
    usage = usage if isinstance(usage, dict) else None
    where = f"{at}.usage"
    cost = next((k for k in _RUN_COSTS if k in line), None)
    return RecordedTotals(
        where,
        input_tokens=add_counts(
            opt_count(usage, "input_tokens", where),
            opt_count(usage, "cache_creation_input_tokens", where),
            opt_count(usage, "cache_read_input_tokens", where),
        ),
        output_tokens=opt_count(usage, "output_tokens", where),
        cost_usd=opt_amount(line, cost, at) if cost is not None else None,
    )


def run_totals(
    totals: RecordedTotals,
    steps: list[dict[str, Any]],
    owners: dict[int, tuple[str | None, str | None]],
) -> RecordedTotals:
    """The run's totals: the result line's (the main agent's messages) plus the sub-agent
    steps' own usage (`owners`: step index -> its agent, for the steps a sub-agent took).
    A difference lands on the main agent's last response."""
    sub = [steps[i] for i, (agent, _) in owners.items() if agent is not None]
    main = [i for i, s in enumerate(steps) if s["type"] == "model_response"]
    main = [i for i in main if owners.get(i, (None, None))[0] is None]

    def plus(recorded: int | None, name: str) -> int | None:
        if recorded is None:
            return None
        return recorded + sum(s.get(name) or 0 for s in sub)

    return RecordedTotals(
        f"sub-agent messages + {totals.at}" if sub else totals.at,
        input_tokens=plus(totals.input_tokens, "input_tokens"),
        output_tokens=plus(totals.output_tokens, "output_tokens"),
        cost_usd=totals.cost_usd,
        index=main[-1] if main else None,
    )


__all__ = ["foreign_line", "result_totals", "run_totals"]
