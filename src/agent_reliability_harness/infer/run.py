"""`arh infer` end to end: learn from the good runs (one pass through the pipeline, any
executor), build the policy documents, write them, and check them on every run (a second
pass): the good runs must all pass; the others it flags are counted."""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..atomic import write_atomic
from ..errors import InputError
from ..models.policy import Policy, load_policies, load_policy, parse_policy
from ..models.policy.compose import merge_chain
from ..models.policy.tooldefs import ToolDefs
from ..pipeline import ErrorSink, Executor, InProcess, Messages, RunOptions, Sink, run
from .collect import Checker, Learner, check_sink, learn_sink
from .document import Inferred, base_policy, policy_text, task_policies
from .from_tools import tools_policy, with_tools
from .good import Selection

LEARNING_POLICY = {"policy_id": "arh-infer-learning", "allow_unlisted_tools": True}
BASE_FILE = "base/policy.json"
DEFAULT_FILE = "zz-default.json"


@dataclass(frozen=True, slots=True)
class InferOptions:
    """What to learn from and how the documents are named."""

    policy_id: str = "inferred"
    selection: Selection = field(default_factory=Selection)
    trajectories: bool = False  # per-task child policies (with task ids)
    run: RunOptions = field(default_factory=RunOptions)
    tools: ToolDefs | None = None  # --from-tools: the argument contracts come from these


@dataclass(slots=True)
class Learned:
    """The outcome of the learning pass."""

    inferred: Inferred
    learner: Learner
    input_errors: int
    origin: str
    warnings: list[str] = field(default_factory=list)  # about the tool definitions

    @property
    def inferred_runs(self) -> int:
        """The good runs learned from."""
        return self.learner.learned.runs


class _Quiet:
    """Messages nobody reads (the check pass re-reads inputs already reported)."""

    def error(self, message: str) -> None:
        return None

    def warn(self, message: str) -> None:
        return None


def _stdin(data: bytes | None) -> Any:
    return None if data is None else io.BytesIO(data)


def learn(
    paths: Sequence[str],
    options: InferOptions,
    messages: Messages,
    *,
    executor: Executor | None = None,
    stdin: bytes | None = None,
) -> Learned:
    """Learn from the good runs of the inputs; InputError when there is nothing to learn."""
    sink = learn_sink(options.selection, options.trajectories)
    errors = ErrorSink(messages, options.run.allow_empty)
    sinks: list[Sink] = [errors, sink]
    policy = parse_policy(LEARNING_POLICY)
    result = run(
        paths, [policy], sinks, options=options.run, executor=executor, stdin=_stdin(stdin)
    )
    learner = sink.value
    if not isinstance(learner, Learner) or learner.runs == 0:
        raise InputError("no runs to learn from")
    stats = learner.learned
    origin = options.selection.describe(learner.any_outcome)
    if stats.runs == 0:
        raise InputError(
            f"none of the {learner.runs} runs is good ({origin}); choose with --good-if "
            "EXPR or --all-good"
        )
    inferred = Inferred({})
    inferred.policy = base_policy(stats, options.policy_id, origin, inferred.evidence)
    warnings: list[str] = []
    if options.tools is not None:
        with_tools(inferred.policy, options.tools, inferred.evidence, warnings)
    if options.trajectories:
        task_policies(stats, options.policy_id, BASE_FILE, inferred)
    return Learned(inferred, learner, result.input_errors, origin, warnings)


def from_tools_only(defs: ToolDefs, policy_id: str, out: str) -> tuple[Inferred, list[str]]:
    """The policy of tool definitions alone (no runs), written to `out` unless it is `-`."""
    inferred = Inferred({})
    warnings: list[str] = []
    inferred.policy = tools_policy(defs, policy_id, inferred.evidence, warnings)
    if out != "-":
        write_policy(out, inferred.policy)
    return inferred, warnings


def _text(document: dict[str, Any]) -> str:
    return policy_text(document)


def _slug(task_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", task_id)[:40].strip("-.") or "task"


def directory_documents(inferred: Inferred, policy_id: str) -> dict[str, dict[str, Any]]:
    """File name (relative to the directory) -> document, for `--out-dir`: the base in
    base/ (not walked when the directory is given as --policy), one file per task that
    sorts before the default, and the default (the base alone, for every other run)."""
    base = dict(inferred.policy, policy_id=f"{policy_id}-base")
    files: dict[str, dict[str, Any]] = {BASE_FILE: base}
    for number, (task_id, child) in enumerate(sorted(inferred.children.items()), start=1):
        files[f"task-{number:04d}-{_slug(task_id)}.json"] = child
    files[DEFAULT_FILE] = {
        "schema_version": "1.1",
        "policy_id": policy_id,
        "extends": BASE_FILE,
        "description": "Every run of another task: the base policy alone.",
    }
    return files


def write_directory(directory: str, files: dict[str, dict[str, Any]]) -> None:
    """Write the documents into a new or empty directory (OSError, InputError)."""
    root = Path(directory)
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise InputError(f"{directory}: must be a new or empty directory")
    for name, document in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        write_atomic(str(root / name), [_text(document)])


def write_policy(target: str, document: dict[str, Any]) -> None:
    write_atomic(target, [_text(document)])


def policies_of(
    inferred: Inferred, policy_id: str, out: str | None, out_dir: str | None
) -> tuple[Policy, ...]:
    """The policies as written (loaded from the files, as a user would), or compiled from
    the documents when nothing was written to a file."""
    if out_dir is not None:
        return tuple(loaded.policy for loaded in load_policies([out_dir]))
    if out is not None and out != "-":
        return (load_policy(out).policy,)
    if inferred.children:
        base = inferred.policy
        children = [
            parse_policy(merge_chain([base], {k: v for k, v in c.items() if k != "extends"}))
            for _, c in sorted(inferred.children.items())
        ]
        return (*children, parse_policy(base))
    return (parse_policy(inferred.policy),)


@dataclass(slots=True)
class Check:
    checker: Checker
    rules: list[tuple[str, int]] = field(default_factory=list)  # most frequent first


def check(
    paths: Sequence[str],
    policies: Sequence[Policy],
    options: InferOptions,
    any_outcome: bool,
    *,
    executor: Executor | None = None,
    stdin: bytes | None = None,
) -> Check:
    """Judge every run with the inferred policies."""
    sink = check_sink(options.selection, any_outcome)
    quiet = replace(options.run, allow_empty=True)
    sinks: list[Sink] = [ErrorSink(_Quiet(), True), sink]
    run(
        paths, policies, sinks, options=quiet, executor=executor or InProcess(), stdin=_stdin(stdin)
    )
    checker = sink.value
    assert isinstance(checker, Checker)
    ranked = sorted(checker.rules.items(), key=lambda item: (-item[1], item[0]))
    return Check(checker, ranked)


@dataclass(slots=True)
class Result:
    """One `arh infer`: what was learned, where it was written, how it judged the runs."""

    learned: Learned
    checked: Check
    written: list[tuple[str, int]] = field(default_factory=list)  # (target, files in it)

    def warnings(self) -> list[str]:
        """What the user must know about the policy (none when all is as promised)."""
        out = list(self.learned.warnings)
        learner, checker = self.learned.learner, self.checked.checker
        if learner.skipped:
            out.append(
                f"{learner.skipped} good runs were too big to hold (read a chunk of steps at "
                "a time) and were not learned from"
            )
        if learner.learned.unnamed_calls:
            out.append(
                f"the good runs make {learner.learned.unnamed_calls} tool calls without a tool "
                "name (ARH-SCH-002); no policy allows them"
            )
        for trace_id, rules in checker.failed_ids:
            out.append(
                f"good run {trace_id!r} fails the inferred policy ({', '.join(rules) or 'score'})"
            )
        if checker.good_failed > len(checker.failed_ids):
            out.append(
                f"... and {checker.good_failed - len(checker.failed_ids)} more good runs fail it"
            )
        return out


def infer_paths(
    paths: Sequence[str],
    options: InferOptions,
    out: str | None,
    out_dir: str | None,
    messages: Messages,
    *,
    executor: Executor | None = None,
    stdin: bytes | None = None,
) -> Result:
    """Learn, write (`out` a file, `-` for none here: the caller prints it; `out_dir` a
    policy directory), then check the written policies on every run."""
    learned = learn(paths, options, messages, executor=executor, stdin=stdin)
    inferred = learned.inferred
    written: list[tuple[str, int]] = []
    if out is not None and out != "-":
        write_policy(out, inferred.policy)
        written.append((out, 0))
    if out_dir is not None:
        documents = directory_documents(inferred, options.policy_id)
        write_directory(out_dir, documents)
        written.append((out_dir, len(documents)))
    policies = policies_of(inferred, options.policy_id, out, out_dir)
    any_outcome = learned.learner.any_outcome
    checked = check(paths, policies, options, any_outcome, executor=executor, stdin=stdin)
    return Result(learned, checked, written)
