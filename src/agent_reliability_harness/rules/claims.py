"""ARH-GRD-004 and ARH-GRD-005 (policy v1.3): what the answer says the agent did must be
what its calls did. Closing rules: they judge the final answer (or, `scope: "all"`,
every model response) once the calls before it are known.

While the steps are read, each rule keeps only what it will compare: per claim, the
calls of its `requires` tools (position, id, effective status, and the values at the
claim's paths); per `no_false_success` tool, its calls' positions and statuses; and the
last model response with non-blank text. A trace read a chunk at a time gives the same
result.
"""

from __future__ import annotations

import json
from typing import Any

from ..models.common import Category, Severity, StepType
from ..models.paths import values_at
from ..models.policy import Policy
from ..models.policy.claims_model import Claim
from ..models.trace import Step
from ..patterns import Searcher
from ._claim_text import (
    DEFAULT_FAILURE,
    DEFAULT_SUCCESS,
    CallValues,
    answer_sentences,
    found_texts,
    shown,
)
from .base import MAX_FINDINGS, Hit, Moment, RuleContext, RuleResult, RuleState, brief, rule
from .facts import TraceFacts
from .outputs import decoded

GROUNDING = Category.GROUNDING
_RESPONSE = StepType.MODEL_RESPONSE
_OUTPUT = "output."
Answer = tuple[int, str, str]  # (position, step id, text) of a model response


class _Call:
    """A call a claim may be checked against."""

    __slots__ = ("ok", "position", "step_id", "tool", "values")

    def __init__(self, position: int, step: Step, ok: bool, values: tuple[list[Any], ...]) -> None:
        self.position, self.step_id, self.tool = position, step.step_id, step.tool_name or ""
        self.ok, self.values = ok, values


# What a claim lacks, the call it was checked against, what the sentence stated; None: held.
Verdict = tuple[str, _Call | None, dict[str, Any]] | None


def last_answer(facts: TraceFacts) -> Answer | None:
    """The chunk's last model response with non-blank text, or None."""
    steps, start = facts.steps, facts.start
    for offset in range(len(steps) - 1, -1, -1):
        step = steps[offset]
        if step.type is _RESPONSE and step.text and not step.text.isspace():
            return (start + offset, step.step_id, step.text)
    return None


class _Plan:
    """Per Evaluator: the claims and, per tool, the claims whose `requires` names it."""

    __slots__ = ("by_tool", "claims", "every")

    def __init__(self, policy: Policy) -> None:
        self.claims = policy.claims
        by_tool: dict[str, list[int]] = {}
        for n, claim in enumerate(self.claims):
            for tool in claim.requires:
                by_tool.setdefault(tool, []).append(n)
        self.by_tool = {tool: tuple(ns) for tool, ns in by_tool.items()}
        self.every = any(claim.scope == "all" for claim in self.claims)


def _values(claim: Claim, step: Step, output: Any) -> tuple[list[Any], ...]:
    out = []
    for path in claim.paths:
        if path.startswith(_OUTPUT):
            out.append(values_at(output, path[len(_OUTPUT) :]))
        else:
            out.append(values_at(step.arguments or {}, path))
    return tuple(out)


@rule(
    "ARH-GRD-004",
    GROUNDING,
    Severity.ERROR,
    title="Claim not backed by a successful call",
    remediation="Make the answer say only what the calls did: report a failed or missing "
    "call as such, and quote the values the call was made with; or correct the claim.",
    applies=lambda p: bool(p.claims),
    compile=_Plan,
    since="1.3",
    example="`claim 'refund issued' not backed: amount 120 ≠ 12 (step s7); the answer says "
    '"Your refund of $120 has been issued."` at the final answer, linked to the call it was '
    "checked against (step s7); also `no call of issue_refund` or `issue_refund failed "
    "(step s7)`. One check per claiming sentence (policy v1.3 `claims`).",
    moment=Moment.CLOSING,
)
class ClaimNotBacked(RuleState):
    """One check per claiming sentence and claim; a hit per claim that does not hold,
    at the model response, linked (source step) to the call it was checked against."""

    __slots__ = ("answer", "calls", "known")

    def __init__(self, plan: _Plan) -> None:
        super().__init__(plan)
        self.calls: list[list[_Call]] = [[] for _ in plan.claims]
        self.answer: Answer | None = None
        # (claim, calls before) -> the verdict on a sentence that states no value.
        self.known: dict[tuple[int, int], Verdict] = {}

    def scan(self, ctx: RuleContext) -> None:
        plan, facts = self.compiled, ctx.facts
        if not plan.every:
            by_tool = plan.by_tool
            for index, step in facts.calls:
                if step.tool_name in by_tool:
                    self._record(facts, index, step)
            self.answer = last_answer(facts) or self.answer
            return
        for index, step in enumerate(facts.steps, facts.start):
            if step.type is _RESPONSE:
                if step.text and not step.text.isspace():
                    self.answer = (index, step.step_id, step.text)
                    self._judge(self.answer, "all")
            elif step.tool_name in plan.by_tool and step.is_tool_call:
                self._record(facts, index, step)

    def _record(self, facts: TraceFacts, index: int, step: Step) -> None:
        ok = not facts.failed(index, step)
        output: Any = None
        claims = self.compiled.claims
        for n in self.compiled.by_tool[step.tool_name]:
            claim = claims[n]
            if output is None and any(p.startswith(_OUTPUT) for p in claim.paths):
                output = decoded(step.output)
            self.calls[n].append(_Call(index, step, ok, _values(claim, step, output)))

    def finish(self, ctx: RuleContext) -> RuleResult:
        if self.answer is not None:
            self._judge(self.answer, "final")
        return self.result

    def _judge(self, answer: Answer, scope: str) -> None:
        """Judge a response's sentences under the claims of `scope`; the calls recorded
        so far are those before it while scanning (`all`), and at the end are cut at
        its position (`final`)."""
        text = answer[2]
        claims = [
            (n, c)
            for n, c in enumerate(self.compiled.claims)
            if c.scope == scope
            if c.when.search(text)  # a claim no sentence can match costs one screen
        ]
        if not claims:
            return
        sentences = answer_sentences(text)
        whole = len(sentences) == 1 and sentences[0] == text  # the screen was its search
        for sentence in sentences:
            for n, claim in claims:
                if claim.same:
                    match = claim.when.first(sentence)
                else:
                    match = whole or claim.when.search(sentence)
                if not match or (claim.unless is not None and claim.unless.search(sentence)):
                    continue
                self.result.checks += 1
                claimed = _claimed(claim, match, sentence)
                verdict = self._verdict(n, claim, claimed, answer[0], scope)
                if verdict is not None:
                    self._hit(answer, claim, sentence, *verdict)

    def _verdict(
        self, n: int, claim: Claim, claimed: list[list[str] | None], position: int, scope: str
    ) -> Verdict:
        """`_verdict` over the claim's calls before `position`; a sentence that states no
        value is judged once per claim and number of calls (kept in `known`)."""
        calls = self.calls[n]
        if scope != "all" and calls and calls[-1].position > position:
            calls = [c for c in calls if c.position < position]
        if any(texts is not None for texts in claimed):
            return _verdict(claim, claimed, calls)
        key = (n, len(calls))
        if key not in self.known:
            self.known = {k: v for k, v in self.known.items() if k[0] != n}
            self.known[key] = _verdict(claim, claimed, calls)
        known: tuple[str, _Call | None, dict[str, Any]] | None = self.known[key]
        return known

    def _hit(self, answer: Answer, claim: Claim, sentence: str, *verdict: Any) -> None:
        result = self.result
        result.failed += 1
        if len(result.hits) >= MAX_FINDINGS:
            result.more += 1
            return
        problem, call, claimed = verdict
        observed: dict[str, Any] = {"claim": claim.name, "sentence": shown(sentence)}
        if claimed:
            observed["claimed"] = claimed
        expected: dict[str, Any] = {"requires": list(claim.requires)}
        if call is not None:
            expected["call"] = {"step_id": call.step_id, "tool": call.tool, "ok": call.ok}
            if call.ok and claim.paths:
                expected["call"]["values"] = {
                    path: brief(_one_or_all(found))
                    for path, found in zip(claim.paths, call.values, strict=True)
                }
        says = shown(sentence)
        result.hits.append(
            Hit(
                answer[0],
                f"claim '{claim.name}' not backed: {problem}; the answer says \"{says}\"",
                expected,
                observed,
                answer[1],
                source_step_index=None if call is None else call.position,
                source_step_id=None if call is None else call.step_id,
            )
        )


def _claimed(claim: Claim, match: Any, sentence: str) -> list[list[str] | None]:
    """Per path of the claim, the texts the sentence states for it (None: none)."""
    out: list[list[str] | None] = []
    for group, _ in claim.same:
        text = match.group(group)
        out.append(None if text is None else [text])
    for entry in claim.values:
        out.append(found_texts(entry.pattern, sentence) or None)
    return out


def _verdict(
    claim: Claim, claimed: list[list[str] | None], calls: list[_Call]
) -> tuple[str, _Call | None, dict[str, Any]] | None:
    """None when some earlier ok call backs the claim; else what is missing, the call it
    was checked against (None: there was none), and what the sentence stated."""
    stated = {
        (claim.same[i][0] if i < len(claim.same) else path): (
            texts[0] if i < len(claim.same) else texts
        )
        for i, (path, texts) in enumerate(zip(claim.paths, claimed, strict=True))
        if texts is not None
    }
    if not calls:
        return f"no call of {' or '.join(claim.requires)}", None, stated
    best: tuple[list[str], _Call] | None = None
    for call in reversed(calls):  # the latest call first; a tie keeps the latest
        if not call.ok:
            continue
        problems = _problems(claim, claimed, call)
        if not problems:
            return None
        if best is None or len(problems) < len(best[0]):
            best = (problems, call)
    if best is None:
        last = calls[-1]
        return f"{last.tool} failed (step {last.step_id})", last, stated
    return f"{'; '.join(best[0])} (step {best[1].step_id})", best[1], stated


def _problems(claim: Claim, claimed: list[list[str] | None], call: _Call) -> list[str]:
    problems = []
    for i, (path, texts) in enumerate(zip(claim.paths, claimed, strict=True)):
        if texts is None:
            continue
        have = CallValues(call.values[i], claim.ignore_case)
        missing = [t for t in texts if not have.holds(t, claim.ignore_case)]
        if not missing:
            continue
        if i < len(claim.same):
            problems.append(f"{claim.same[i][0]} {missing[0]} ≠ {_show(call.values[i], path)}")
        else:
            problems.append(f"{', '.join(missing)} not in {path}")
    return problems


def _one_or_all(found: list[Any]) -> Any:
    return found[0] if len(found) == 1 else found


def _show(found: list[Any], path: str) -> str:
    if not found:
        return f"nothing at {path}"
    texts = [v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for v in found]
    text = texts[0] if len(texts) == 1 else "any of " + ", ".join(texts)
    return text if len(text) <= 80 else text[:77] + "..."


class _FalseSuccessPlan:
    __slots__ = ("failure", "success", "tools")

    def __init__(self, policy: Policy) -> None:
        found = policy.completion.false_success
        assert found is not None
        every = found.every_side_effect
        self.tools = policy.side_effect_tools if every else frozenset(found.tools)
        self.success: Searcher = found.success or DEFAULT_SUCCESS
        self.failure: Searcher = found.failure or DEFAULT_FAILURE


@rule(
    "ARH-GRD-005",
    GROUNDING,
    Severity.ERROR,
    title="Success claimed after the last side effect failed",
    remediation="Make the agent retry the failed action, or tell the user it failed, "
    "before it answers that the task is done.",
    applies=lambda p: p.completion.false_success is not None,
    compile=_FalseSuccessPlan,
    since="1.3",
    example='`the answer claims success ("All set!") but the last call of a listed tool, '
    "book_reservation (step s9), failed` at the final answer, linked to the failed call "
    "(policy v1.3 `completion.no_false_success`).",
    moment=Moment.CLOSING,
)
class FalseSuccess(RuleState):
    """One check when the final answer claims success (a sentence matches the success
    pattern and not the failure pattern); a hit when the last call before it of any of
    the tools failed (effective status)."""

    __slots__ = ("answer", "calls")

    def __init__(self, plan: _FalseSuccessPlan) -> None:
        super().__init__(plan)
        # (position, step id, tool, ok) of the calls of the tools: the last one before
        # the latest answer, and those after it.
        self.calls: list[tuple[int, str, str, bool]] = []
        self.answer: Answer | None = None

    def scan(self, ctx: RuleContext) -> None:
        facts, tools, calls = ctx.facts, self.compiled.tools, self.calls
        for index, step in facts.calls:
            if step.tool_name in tools:
                ok = not facts.failed(index, step)
                calls.append((index, step.step_id, step.tool_name or "", ok))
        self.answer = last_answer(facts) or self.answer
        if self.answer is not None and len(calls) > 1:
            position = self.answer[0]
            before = sum(1 for call in calls if call[0] < position)
            if before > 1:
                del calls[: before - 1]

    def finish(self, ctx: RuleContext) -> RuleResult:
        plan, answer = self.compiled, self.answer
        if answer is None:
            return self.result
        sentence = next(
            (
                s
                for s in answer_sentences(answer[2])
                if plan.success.search(s) and not plan.failure.search(s)
            ),
            None,
        )
        if sentence is None:
            return self.result
        self.result.checks = 1
        before = [call for call in self.calls if call[0] < answer[0]]
        if before and not before[-1][3]:
            position, step_id, tool, _ = before[-1]
            self.result.failed = 1
            self.result.hits.append(
                Hit(
                    answer[0],
                    f'the answer claims success ("{shown(sentence)}") but the last call of a '
                    f"listed tool, {tool} (step {step_id}), failed",
                    expected={"tools": sorted(plan.tools), "last_call_ok": True},
                    observed={
                        "sentence": shown(sentence),
                        "last_call": {"step_id": step_id, "tool": tool, "ok": False},
                    },
                    step_id=answer[1],
                    source_step_index=position,
                    source_step_id=step_id,
                )
            )
        return self.result
