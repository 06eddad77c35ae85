"""Policy warnings: what a policy says that ARH reads but doubts (typos, no-op settings).

A warning never changes what the policy means; under `strict` every warning becomes
the load error. The did-you-mean guess is deterministic (difflib, fixed cutoff).
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from ...errors import PolicyError


class PolicyWarning(msgspec.Struct, frozen=True):
    """One warning: `path` is the dotted place in the policy (`sequence.forbiden_tools`),
    `source` the file that holds it (None for a policy given as a dict)."""

    path: str
    message: str
    source: str | None = None

    def __str__(self) -> str:
        return f"policy {self.path}: {self.message}" if self.path else f"policy: {self.message}"


def closest(word: str, known: Iterable[str]) -> str | None:
    """The known word closest to `word` (case-insensitive), or None when none is close."""
    import difflib  # noqa: PLC0415 - only for a policy that has a typo in it

    choices = sorted(known)
    by_lower = {choice.lower(): choice for choice in choices}
    found = difflib.get_close_matches(word.lower(), list(by_lower), n=1, cutoff=0.6)
    return by_lower[found[0]] if found else None


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """` (did you mean 'x'?)`, or `` when nothing is close."""
    guess = closest(word, known)
    return f" (did you mean '{guess}'?)" if guess is not None else ""


class Notes(msgspec.Struct):
    """The warnings of one parse, in the order they were found."""

    source: str | None = None
    found: list[PolicyWarning] = msgspec.field(default_factory=list)

    def warn(self, path: str, message: str) -> None:
        self.found.append(PolicyWarning(path, message, self.source))


def strict_error(warnings: Iterable[PolicyWarning], source: str | None) -> PolicyError:
    """The load error that `strict` makes of a policy's warnings; a warning from another
    file (a base it extends) names that file."""
    return PolicyError(
        "; ".join(str(w) if w.source == source else f"{w.source}: {w}" for w in warnings)
    )


def dotted(path: str, key: str) -> str:
    """`path.key`, with a key that is not a plain name written as a JSON string."""
    plain = key.replace("_", "a").replace("-", "a").isalnum() and key.isascii()
    part = key if plain else '["' + key.replace("\\", "\\\\").replace('"', '\\"') + '"]'
    if not path:
        return part
    return f"{path}{part}" if part.startswith("[") else f"{path}.{part}"
