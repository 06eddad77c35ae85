"""Built-in profiles: policies that ship with ARH, named `arh:NAME` (`--profile NAME`,
`"extends": "arh:NAME"`). With no `--policy`, `arh validate` uses `recommended`."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

PREFIX = "arh:"
DEFAULT = "recommended"
# In the order `arh profiles` lists them.
NAMES = ("recommended", "coding-agent")
NO_POLICY_NOTE = (
    f"no --policy: using the built-in profile '{DEFAULT}'; "
    "`arh infer` writes a policy from your good runs"
)


class UnknownProfile(ValueError):
    """A profile name ARH does not ship."""

    def __init__(self, name: str) -> None:
        super().__init__(f"no built-in profile '{name}' (profiles: {', '.join(NAMES)})")


def is_profile(reference: str) -> bool:
    """Whether a policy reference names a built-in profile (`arh:NAME`)."""
    return reference.startswith(PREFIX)


def profile_text(name: str) -> str:
    """A profile's policy file, as shipped (JSON)."""
    if name not in NAMES:
        raise UnknownProfile(name)
    return resources.files(__package__).joinpath(f"{name}.json").read_text("utf-8")


def profile_document(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(profile_text(name))
    return document


__all__ = [
    "DEFAULT",
    "NAMES",
    "NO_POLICY_NOTE",
    "PREFIX",
    "UnknownProfile",
    "is_profile",
    "profile_document",
    "profile_text",
]
