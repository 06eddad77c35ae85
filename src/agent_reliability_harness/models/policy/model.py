"""The compiled policy (format 1.2): frozen sections that rules read, nothing parsed here.

Every field is final: regexes compiled, globs compiled, defaults filled in, pairs
and scopes worked out, so a rule never re-reads or re-validates policy text.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any

import msgspec

from ...patterns import FullMatcher, GlobSet, PatternSet, Searcher
from ..types import KNOWN_TYPES
from .claims_model import Claim, FalseSuccess
from .kinds import Safety
from .trajectory_model import Trajectory

# The blobs an unsafe pattern may search (policy v1.1 section 4), in report order.
BLOB_KINDS = ("text", "arguments", "output", "error")


class ArgSpec(msgspec.Struct, frozen=True):
    """Contract for one tool argument (or, nested, for a list element or a dict value)."""

    # The canonical type name (`string` is stored as `str`), or an unknown name as written.
    type: str = "any"
    enum: tuple[Any, ...] | None = None
    pattern: FullMatcher | None = None
    min: float | None = None
    max: float | None = None
    # v1.1 (section 4); their defaults leave a v1 spec unchanged.
    not_pattern: Searcher | None = None  # case-sensitive search; a string must not match
    min_length: int | None = None  # code points of a string, elements of a list
    max_length: int | None = None
    items: ArgSpec | None = None  # every element of a list value
    properties: dict[str, ArgSpec] | None = None  # name -> spec, for a dict value
    required: tuple[str, ...] = ()  # names a dict value must hold
    grounded: bool = False  # ARH-FLW-005 checks this argument

    @property
    def known_type(self) -> bool:
        return self.type in KNOWN_TYPES

    @property
    def nested(self) -> bool:
        """Whether the spec constrains the inside of a list or dict value."""
        return self.items is not None or self.properties is not None or bool(self.required)


class FailedWhen(msgspec.Struct, frozen=True):
    """One `failed_when` entry (policy v1.2 section 3): the (decoded) output's value at
    `path` equals `equals` (as JSON values), or is a string that `pattern` finds a match in."""

    path: str  # dotted, as written; "" is the output itself
    equals: Any = None
    has_equals: bool = False  # `equals` was given (it may be null)
    pattern: Searcher | None = None  # a case-sensitive RE2 search
    star: bool = False  # the path has a `*` part (v1.3): any value it reaches may match


class ToolSchema(msgspec.Struct, frozen=True):
    name: str
    required_arguments: dict[str, ArgSpec] = msgspec.field(default_factory=dict)
    optional_arguments: dict[str, ArgSpec] = msgspec.field(default_factory=dict)
    side_effect: bool = False
    max_calls: int | None = None
    min_calls: int | None = None
    # v1.1 data-flow labels (section 6).
    untrusted: bool = False  # `trust: "untrusted"`: outputs carry outside content
    sink: bool = False  # calls act outward
    sink_arguments: tuple[str, ...] | None = None  # None: every argument of a sink call
    # v1.2 (section 3): a contract for the (decoded) output, and what makes a call failed.
    output: ArgSpec | None = None
    failed_when: tuple[FailedWhen, ...] = ()

    def spec_for(self, argument: str) -> ArgSpec | None:
        """The declared spec of an argument (required wins over optional), or None."""
        spec = self.required_arguments.get(argument)
        return spec if spec is not None else self.optional_arguments.get(argument)

    def checks_sink_argument(self, argument: str) -> bool:
        """Whether ARH-FLW-004 checks this argument of a call of this tool."""
        return self.sink and (self.sink_arguments is None or argument in self.sink_arguments)


class Budgets(msgspec.Struct, frozen=True):
    max_step_latency_ms: float | None = None
    max_total_latency_ms: float | None = None
    max_total_cost_usd: float | None = None
    max_total_tokens: int | None = None

    @property
    def any_set(self) -> bool:
        return any(
            v is not None
            for v in (
                self.max_step_latency_ms,
                self.max_total_latency_ms,
                self.max_total_cost_usd,
                self.max_total_tokens,
            )
        )

    @property
    def latency_set(self) -> bool:
        return self.max_step_latency_ms is not None or self.max_total_latency_ms is not None


class Grounding(msgspec.Struct, frozen=True):
    require_citations: bool = False
    min_citation_coverage: float | None = None
    require_valid_citation_urls: bool = False


class SequenceRules(msgspec.Struct, frozen=True):
    required_tools: tuple[str, ...] = ()
    forbidden_tools: tuple[str, ...] = ()
    # The v1 single chain; empty when `call_order` is written as a list of chains.
    call_order: tuple[str, ...] = ()
    # Every chain (a v1 list is one chain) and their ordered pairs (before, after): each
    # pair once, in order of first appearance, chain by chain. Never cyclic.
    call_order_chains: tuple[tuple[str, ...], ...] = ()
    call_order_pairs: tuple[tuple[str, str], ...] = ()


class ErrorHandling(msgspec.Struct, frozen=True):
    require_retry_on_error: bool = False
    max_attempts: int | None = None
    # Case-insensitive searches over a tool_call's output strings: a status-ok call
    # whose output matches counts as failed for every rule that reads status.
    error_output_patterns: PatternSet = msgspec.field(default_factory=lambda: PatternSet(()))
    # v1.2 (section 4): ARH-FLW-006 and ARH-FLW-007.
    max_identical_repeats: int | None = None
    require_recorded_outcome: bool = False
    # Tool kinds whose calls ARH-FLW-007 treats as side effects (see "Tool kinds").
    side_effect_kinds: tuple[str, ...] = ()


class Precondition(msgspec.Struct, frozen=True):
    """One `preconditions` entry (policy v1.2 section 2): every call of `call` needs an
    earlier effective-ok call of `requires` whose value at each right-hand path equals
    the call's argument at the left-hand path. Paths are dotted, as written."""

    call: str
    requires: str
    same: tuple[tuple[str, str], ...] = ()  # (argument path, earlier call's path)


class Completion(msgspec.Struct, frozen=True):
    require_final_response: bool = False
    max_steps: int | None = None
    # With require_final_response: a last step that is an ok call of one of these
    # tools (after error_output_patterns) completes the trace.
    final_tools: tuple[str, ...] = ()
    # v1.3 section 2: `no_false_success` and its patterns (None: not set), ARH-GRD-005.
    false_success: FalseSuccess | None = None

    # `kind:NAME` entries of final_tools (their tools are in final_tools too): a call of
    # one of these kinds by the tool-kind mapping (a finishing shell command) completes.
    final_kinds: tuple[str, ...] = ()
    # final_tools as written (`kind:NAME` unexpanded), for messages; () when no kind is named.
    final_written: tuple[str, ...] = ()


class AppliesTo(msgspec.Struct, frozen=True):
    """`applies_to` (policy v1.1 section 3): per trace field, the globs one of which must
    match (fnmatch, case-sensitive); every listed field must match."""

    trace_id: tuple[str, ...] | None = None
    agent_name: tuple[str, ...] | None = None
    workflow: tuple[str, ...] | None = None
    task_id: tuple[str, ...] | None = None

    def matches(
        self,
        trace_id: str | None,
        agent_name: str | None,
        workflow: str | None,
        task_id: str | None,
    ) -> bool:
        """Whether a trace with these fields is judged by the policy. A listed field
        that the trace does not have (None) matches no glob."""
        for globs, value in (
            (self.trace_id, trace_id),
            (self.agent_name, agent_name),
            (self.workflow, workflow),
            (self.task_id, task_id),
        ):
            if globs is None:
                continue
            if value is None or not any(fnmatchcase(value, glob) for glob in globs):
                return False
        return True


class UnsafePattern(msgspec.Struct, frozen=True):
    """One `unsafe_patterns` entry: a bare string has every scope and no tool limit."""

    pattern: str
    scopes: tuple[str, ...] = BLOB_KINDS  # a subset of BLOB_KINDS, in that order
    tools: tuple[str, ...] | None = None  # limits arguments/output/error blobs

    @property
    def unscoped(self) -> bool:
        return self.scopes == BLOB_KINDS and self.tools is None


class ScopedPatterns:
    """The unsafe patterns that apply to each kind of blob, one compiled set per
    (kind, tool) that differs, so a blob is still searched in one pass."""

    __slots__ = ("_sets", "entries")

    def __init__(self, entries: tuple[UnsafePattern, ...]) -> None:
        self.entries = entries
        compiled: dict[tuple[str, ...], PatternSet] = {}
        self._sets: dict[tuple[str, str | None], PatternSet] = {}
        named = sorted({tool for e in entries for tool in e.tools or ()})
        for kind in BLOB_KINDS:
            for tool in [None, *named] if kind != "text" else [None]:
                chosen = tuple(
                    dict.fromkeys(
                        e.pattern
                        for e in entries
                        if kind in e.scopes
                        and (e.tools is None or kind == "text" or tool in e.tools)
                    )
                )
                if chosen not in compiled:
                    compiled[chosen] = PatternSet(chosen)
                self._sets[(kind, tool)] = compiled[chosen]

    def for_blob(self, kind: str, tool: str | None) -> PatternSet:
        """The patterns that search a blob of this kind (one of BLOB_KINDS) of a step of
        this tool (None for a step without a tool name)."""
        if kind != "text":
            found = self._sets.get((kind, tool))
            if found is not None:
                return found
        return self._sets[(kind, None)]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ScopedPatterns) and other.entries == self.entries

    def __hash__(self) -> int:
        return hash(self.entries)

    def __repr__(self) -> str:
        return f"ScopedPatterns({self.entries!r})"


DEFAULT_MIN_VALUE_LENGTH = 6
DEFAULT_TAINT_WINDOW = 400


class Dataflow(msgspec.Struct, frozen=True):
    """The `dataflow` section (section 6)."""

    untrusted_to_sink: bool = False
    grounded_arguments: tuple[str, ...] = ()  # tool names, or "*" for every tool
    min_value_length: int = DEFAULT_MIN_VALUE_LENGTH
    # Injection markers, case-insensitive searches over folded text; the screen holds
    # the same patterns (one pass tells which markers occur, `untrusted_if[i]` where).
    untrusted_if: tuple[Searcher, ...] = ()
    untrusted_screen: PatternSet = msgspec.field(default_factory=lambda: PatternSet(()))
    taint_window: int = DEFAULT_TAINT_WINDOW
    trusted_values: GlobSet = msgspec.field(
        default_factory=lambda: GlobSet((), case_sensitive=False)
    )

    def grounds_every_argument_of(self, tool_name: str) -> bool:
        """Whether `grounded_arguments` makes every argument of this tool's calls grounded."""
        names = self.grounded_arguments
        return bool(names) and ("*" in names or tool_name in names)


class AgentEntries:
    """`agents` (policy v1.2 section 1): (glob, partial policy) pairs in key order. A
    step's agent belongs to the first glob that matches it (fnmatch, case-sensitive)."""

    __slots__ = ("_first", "entries")

    def __init__(self, entries: tuple[tuple[str, Policy], ...]) -> None:
        self.entries = entries
        self._first: dict[str, int | None] = {}

    def index(self, agent: str) -> int | None:
        """The position of the entry this agent belongs to, or None (unlisted)."""
        found = self._first.get(agent, -1)
        if found == -1:
            found = next(
                (n for n, (glob, _) in enumerate(self.entries) if fnmatchcase(agent, glob)), None
            )
            if len(self._first) < 10_000:  # agent names are few; the cache stays small
                self._first[agent] = found
        return found

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AgentEntries) and other.entries == self.entries

    def __hash__(self) -> int:
        return hash(self.entries)

    def __repr__(self) -> str:
        return f"AgentEntries({self.entries!r})"

    def __reduce__(self) -> tuple[type[AgentEntries], tuple[tuple[tuple[str, Policy], ...]]]:
        return (AgentEntries, (self.entries,))


class Policy(msgspec.Struct, frozen=True):
    """A parsed, fully validated and compiled policy (format 1.x)."""

    policy_id: str
    schema_version: str = "1"
    allow_unlisted_tools: bool = False
    allowed_tools: dict[str, ToolSchema] = msgspec.field(default_factory=dict)
    budgets: Budgets = msgspec.field(default_factory=Budgets)
    # Every unsafe pattern, deduplicated, in order: exactly the v1 set for bare strings.
    unsafe_patterns: PatternSet = msgspec.field(default_factory=lambda: PatternSet(()))
    grounding: Grounding = msgspec.field(default_factory=Grounding)
    sequence: SequenceRules = msgspec.field(default_factory=SequenceRules)
    error_handling: ErrorHandling = msgspec.field(default_factory=ErrorHandling)
    completion: Completion = msgspec.field(default_factory=Completion)
    # None: the policy applies to every trace.
    applies_to: AppliesTo | None = None
    # None when every unsafe pattern searches every blob of every tool (the v1 meaning);
    # else the per-blob sets, which a rule must use instead of `unsafe_patterns`.
    unsafe_scoped: ScopedPatterns | None = None
    trajectory: Trajectory | None = None
    dataflow: Dataflow = msgspec.field(default_factory=Dataflow)
    # v1.2 section 5: the entry point names (group `arh.rules`) of the plugins whose
    # rules this policy runs, each once, in order (rules/plugins.py imports them).
    plugins: tuple[str, ...] = ()
    preconditions: tuple[Precondition, ...] = ()  # v1.2 (section 2)
    # Policy v1.2 section 1: per agent-name glob, a partial policy (None: no `agents`).
    agents: AgentEntries | None = None
    allow_unlisted_agents: bool = True
    # Policy v1.2 section 6: "recorded" also checks calls against the tool definitions the
    # trace recorded (metadata `declared_tools`, ARH-SCH-015); "policy" (default) does not.
    tool_contracts: str = "policy"
    claims: tuple[Claim, ...] = ()  # v1.3 section 1 (ARH-GRD-004)

    # The built-in safety checks (ARH-SAF-002..007) and the policy's own tool-kind
    # entries by tool name (toolkinds.ToolEntry values; POLICY-SPEC.md "Tool kinds").
    safety: Safety = msgspec.field(default_factory=Safety)
    tool_kinds: dict[str, Any] = msgspec.field(default_factory=dict)

    @property
    def side_effect_tools(self) -> frozenset[str]:
        return frozenset(name for name, tool in self.allowed_tools.items() if tool.side_effect)

    @property
    def sink_tools(self) -> frozenset[str]:
        return frozenset(name for name, tool in self.allowed_tools.items() if tool.sink)

    @property
    def failed_when(self) -> dict[str, tuple[FailedWhen, ...]]:
        """Per listed tool with `failed_when` entries, its entries."""
        return {name: t.failed_when for name, t in self.allowed_tools.items() if t.failed_when}

    @property
    def untrusted_tools(self) -> frozenset[str]:
        return frozenset(name for name, tool in self.allowed_tools.items() if tool.untrusted)

    @classmethod
    def from_dict(cls, data: Any) -> Policy:
        """Parse and compile a policy; raises PolicyError naming the offending field."""
        from .parse import parse_policy  # noqa: PLC0415 - the parser imports this module

        return parse_policy(data)
