"""Coverage in `arh compare` (policy v1.2 section 6): when both reports have a `coverage`
section (`--coverage`), the change in the share of allowed tools called, and the allowed
tools the baseline called that the candidate no longer calls. Shown always; it fails the
gate only when asked (`--max-coverage-drop P`, percentage points)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..models.report import Section
from .model import GateReason, ReasonKind

KEY = "coverage"


def coverage_of(sections: Iterable[Section]) -> Mapping[str, Any] | None:
    """The value of a run's `coverage` section (None when it has none)."""
    for section in sections:
        if section.key == KEY and isinstance(section.value, Mapping):
            return section.value
    return None


def _called(value: Mapping[str, Any]) -> set[str]:
    return {row["tool"] for row in value.get("tools") or () if row.get("calls")}


def _share(value: Mapping[str, Any], key: str) -> float | None:
    share = value.get(key)
    return float(share) if isinstance(share, int | float) else None


def tool_share(sections: Iterable[Section]) -> float | None:
    """A run's share of allowed tools called (None: no coverage section, or no allowed
    tools to cover)."""
    value = coverage_of(sections)
    return None if value is None else _share(value, "tool_coverage")


@dataclass(frozen=True, slots=True)
class CoverageChange:
    baseline: float | None  # tool_coverage of each side
    candidate: float | None
    baseline_arguments: float | None
    candidate_arguments: float | None
    no_longer_called: tuple[str, ...]  # allowed tools called in the baseline only
    newly_called: tuple[str, ...]

    @property
    def drop(self) -> float:
        """Percentage points of tool coverage lost (0 when it did not drop)."""
        if self.baseline is None or self.candidate is None:
            return 0.0
        return max(0.0, round(self.baseline - self.candidate, 2))

    def to_dict(self) -> dict[str, Any]:
        return {
            "baseline_tool_coverage": self.baseline,
            "candidate_tool_coverage": self.candidate,
            "baseline_argument_coverage": self.baseline_arguments,
            "candidate_argument_coverage": self.candidate_arguments,
            "drop": self.drop,
            "no_longer_called": list(self.no_longer_called),
            "newly_called": list(self.newly_called),
        }

    def line(self) -> str:
        """`tool coverage: 100% -> 75% (down 25 points; no longer called: a, b)`."""

        def shown(share: float | None) -> str:
            return "n/a" if share is None else f"{share:g}%"

        parts = []
        if self.drop:
            parts.append(f"down {self.drop:g} points")
        if self.no_longer_called:
            parts.append(f"no longer called: {', '.join(self.no_longer_called)}")
        if self.newly_called:
            parts.append(f"newly called: {', '.join(self.newly_called)}")
        tail = f" ({'; '.join(parts)})" if parts else ""
        return f"tool coverage: {shown(self.baseline)} -> {shown(self.candidate)}{tail}"


def coverage_change(
    baseline: Iterable[Section], candidate: Iterable[Section]
) -> CoverageChange | None:
    """The change, when both sides have a coverage section (else None)."""
    before, after = coverage_of(baseline), coverage_of(candidate)
    if before is None or after is None:
        return None
    allowed = {row["tool"] for row in after.get("tools") or ()}
    return CoverageChange(
        _share(before, "tool_coverage"),
        _share(after, "tool_coverage"),
        _share(before, "argument_coverage"),
        _share(after, "argument_coverage"),
        tuple(sorted((_called(before) - _called(after)) & allowed)),
        tuple(sorted(_called(after) - _called(before))),
    )


def coverage_reasons(change: CoverageChange | None, limit: float | None) -> list[GateReason]:
    """A reason when the drop exceeds `limit` (None: coverage is not gated)."""
    if change is None or limit is None or change.drop <= limit:
        return []
    return [
        GateReason(
            ReasonKind.COVERAGE_DROP,
            None,
            f"tool coverage dropped {change.drop:g} points (more than --max-coverage-drop "
            f"{limit:g})",
        )
    ]
