"""Same-entity preconditions (policy v1.2 `preconditions`) from good runs: a tool T whose
every call, in every good run, had an earlier successful call of a tool R holding T's
argument value at some path of R's arguments or (decoded) output.

Per run, the values of the earlier calls whose status is not error (the inferred policy
has no error patterns, so that is the effective status ARH-SEQ-008 reads) are indexed by
their identity (as the rule compares them) -> (tool, path); each call of T looks its own
argument values up, one lookup each, so a run costs about its number of values. Across
calls and runs only intersections are kept, which merge in any order:

- `single`: (T's argument path, R, R's path) met by some earlier call of R;
- `latest`: the same, met by the latest earlier successful call of R, so that all of
  them hold at once in one call (one precondition with several `same` entries).

Only object paths (no list index: positions vary) at most MAX_DEPTH deep, at most
MAX_LEAVES values a call, strings of at most MAX_TEXT characters and numbers are used;
T's argument must take two or more values (a constant is an enum's business).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..models.common import Status
from ..models.trace import Step
from ..rules.outputs import identity

MAX_DEPTH = 4
MAX_LEAVES = 256
MAX_TEXT = 200
OUTPUT = "output."

Entry = tuple[str, str, str]  # (argument path of T, R, path in R: `a.b` or `output.a.b`)


class Say(Protocol):
    """Where a statement of evidence goes (build.Evidence.say)."""

    def __call__(self, path: str, statement: str, target: dict[str, Any] | None = None) -> None:
        """Record `statement` about `path` (and add it to `target`'s description)."""


def leaves(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """(dotted path, identity) of the string and number values under object keys."""
    out: list[tuple[str, Any]] = []
    _walk(value, prefix, 0, out)
    return out


def _walk(value: Any, path: str, depth: int, out: list[tuple[str, Any]]) -> None:
    if len(out) >= MAX_LEAVES:
        return
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            return
        for key, item in value.items():
            if isinstance(key, str) and key and "." not in key:
                inner = f"{path}{key}" if not path or path == OUTPUT else f"{path}.{key}"
                _walk(item, inner, depth + 1, out)
        return
    if not path or path == OUTPUT:
        return
    if isinstance(value, str) and value and len(value) <= MAX_TEXT:
        out.append((path, value))
    elif isinstance(value, int | float) and not isinstance(value, bool):
        out.append((path, identity(value)))


@dataclass(slots=True)
class CallSets:
    """One tool's calls as the T of a precondition: what every call met so far."""

    calls: int = 0
    single: set[Entry] | None = None  # None before the first call
    latest: set[Entry] | None = None
    first: dict[str, Any] = field(default_factory=dict)  # argument path -> its first value
    varied: set[str] = field(default_factory=set)  # argument paths seen with two values

    @property
    def alive(self) -> bool:
        return self.single is None or bool(self.single)

    def meet(self, single: set[Entry], latest: set[Entry], values: dict[str, Any]) -> None:
        self.calls += 1
        self.single = single if self.single is None else self.single & single
        self.latest = latest if self.latest is None else self.latest & latest
        self._values(values)

    def _values(self, values: dict[str, Any]) -> None:
        kept = {entry[0] for entry in self.single or ()}
        for path, value in values.items():
            if path not in kept:
                continue
            seen = self.first.setdefault(path, value)
            if seen != value:
                self.varied.add(path)
        self.first = {p: v for p, v in self.first.items() if p in kept}
        self.varied &= kept

    def merge(self, other: CallSets) -> None:
        if other.single is None or other.latest is None:
            return
        varied = self.varied | other.varied
        varied.update(p for p, v in other.first.items() if self.first.get(p, v) != v)
        first = {**other.first, **self.first}
        self.calls += other.calls
        self.single = other.single if self.single is None else self.single & other.single
        self.latest = other.latest if self.latest is None else self.latest & other.latest
        kept = {entry[0] for entry in self.single}
        self.first = {p: v for p, v in first.items() if p in kept}
        self.varied = varied & kept


@dataclass(slots=True)
class EntityStats:
    """Per tool, what its calls met in the good runs (see the module's docstring)."""

    tools: dict[str, CallSets] = field(default_factory=dict)

    def add_run(self, calls: Iterable[tuple[Step, Any]]) -> None:
        """One good run's named tool calls, in order, each with its decoded output
        (outputs.decoded; None when it has none). Each call's argument values are walked
        once, for its own lookups and for the index of the calls after it."""
        index: dict[Any, set[tuple[str, str]]] = {}  # identity -> (R, path)
        latest: dict[str, dict[Any, set[str]]] = {}  # R -> identity -> paths, its latest call
        for step, output in calls:
            name = step.tool_name
            if name is None:
                continue
            record = self.tools.setdefault(name, CallSets())
            ok = step.status is not Status.ERROR
            if not (ok or record.alive):
                continue
            # An argument named `output` reads as the output in `same`: its values are left out.
            values = [(p, v) for p, v in leaves(step.arguments or {}) if not p.startswith(OUTPUT)]
            if record.alive:
                self._call(name, values, record, index, latest)
            if ok:
                self._index(name, values, output, index, latest)

    @staticmethod
    def _call(
        name: str,
        arguments: list[tuple[str, Any]],
        record: CallSets,
        index: dict[Any, set[tuple[str, str]]],
        latest: dict[str, dict[Any, set[str]]],
    ) -> None:
        single: set[Entry] = set()
        last: set[Entry] = set()
        for path, value in arguments:
            for tool, where in index.get(value, ()):
                if tool == name:
                    continue
                single.add((path, tool, where))
                if where in latest[tool].get(value, ()):
                    last.add((path, tool, where))
        record.meet(single, last, dict(arguments))

    @staticmethod
    def _index(
        name: str,
        arguments: list[tuple[str, Any]],
        output: Any,
        index: dict[Any, set[tuple[str, str]]],
        latest: dict[str, dict[Any, set[str]]],
    ) -> None:
        found = arguments if output is None else arguments + leaves(output, OUTPUT)
        mine: dict[Any, set[str]] = {}
        for path, value in found:
            index.setdefault(value, set()).add((name, path))
            mine.setdefault(value, set()).add(path)
        latest[name] = mine

    def merge(self, other: EntityStats) -> None:
        for name, record in other.tools.items():
            self.tools.setdefault(name, CallSets()).merge(record)


def _rank(entry: Entry) -> tuple[bool, bool, int, str]:
    """The right-hand path to prefer for an argument: the same name, then an argument
    over an output path, then the shortest."""
    left, _, right = entry
    renamed = right.rsplit(".", 1)[-1] != left.rsplit(".", 1)[-1]
    return renamed, right.startswith(OUTPUT), len(right), right


def _choose(entries: Iterable[Entry]) -> dict[str, str]:
    """One right-hand path per argument path, by `_rank`; argument paths sorted."""
    best: dict[str, Entry] = {}
    for entry in entries:
        held = best.get(entry[0])
        if held is None or _rank(entry) < _rank(held):
            best[entry[0]] = entry
    return {left: best[left][2] for left in sorted(best)}


def _stated(call: str, requires: str, same: dict[str, str], record: CallSets, runs: int) -> str:
    pairs = ", ".join(f"{left} = {right}" for left, right in same.items())
    return (
        f"{call} needs an earlier successful {requires} with {pairs}: in all {record.calls} "
        f"calls of {call} ({runs} runs)"
    )


def preconditions(
    stats: EntityStats, runs: dict[str, int], support: int, say: Say
) -> list[dict[str, Any]]:
    """The `preconditions` entries (tool runs by name in `runs`; a tool called in fewer
    than `support` runs gets none): per (T, R), one entry with the values the latest
    earlier R call had (all at once), then one per further argument met by some earlier
    R call. `say(path, statement)` records the evidence."""
    out: list[dict[str, Any]] = []
    for call in sorted(stats.tools):
        record = stats.tools[call]
        if runs.get(call, 0) < support or not record.single or record.latest is None:
            continue
        single = {entry for entry in record.single if entry[0] in record.varied}
        for requires in sorted({entry[1] for entry in single}):
            mine = {entry for entry in single if entry[1] == requires}
            joint = _choose(mine & record.latest)
            chosen = [joint] if joint else []
            rest = _choose(entry for entry in mine if entry[0] not in joint)
            chosen += [{left: right} for left, right in rest.items()]
            for same in chosen:
                say(
                    f"preconditions[{len(out)}]",
                    _stated(call, requires, same, record, runs[call]),
                )
                out.append({"call": call, "requires": requires, "same": same})
    return out
