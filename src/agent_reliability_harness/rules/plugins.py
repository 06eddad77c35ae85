"""Your own rules (policy v1.2 section 5, docs/plugins.md): packages that declare rules
with `@rule` under the entry point group `arh.rules`.

A plugin is imported only when a policy names it (`"plugins": ["<entry point name>"]`),
or when `arh rules --plugins` lists every installed one. Its rules are those its entry
point's module (and that module's submodules) declared; they are kept apart from the
built-in REGISTRY, so a run uses the rules of the plugins its own policy names and no
others. Anything that keeps a plugin from being used is a PolicyError.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib.metadata import EntryPoint, entry_points

from ..errors import PolicyError
from ..models.common import Category
from ..models.policy import LoadedPolicy, Policy
from .base import PLUGIN_RULES, Rule, RuleIdError
from .plugin_guard import guarded

ENTRY_POINT_GROUP = "arh.rules"

# Plugin name -> its rules, in report order, once imported and checked.
_LOADED: dict[str, tuple[Rule, ...]] = {}


_CATEGORY_ORDER = {category: position for position, category in enumerate(Category)}


def rule_order(rule: Rule) -> tuple[int, str]:
    """Rules are listed in the contract's category order, then by ID."""
    return _CATEGORY_ORDER[rule.category], rule.rule_id


def installed_plugins() -> tuple[EntryPoint, ...]:
    """Every installed `arh.rules` entry point, by name (none is imported)."""
    return tuple(sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name))


def plugin_rules(name: str) -> tuple[Rule, ...]:
    """The rules of the plugin `name`, importing it the first time; PolicyError when it
    is not installed, cannot be imported, declares a bad or taken rule ID, or no rule."""
    found = _LOADED.get(name)
    if found is not None:
        return found
    points = [ep for ep in installed_plugins() if ep.name == name]
    if not points:
        raise PolicyError(
            f"plugin '{name}' is not installed (no '{ENTRY_POINT_GROUP}' entry point "
            f"of that name{_installed_note()})"
        )
    if len({ep.value for ep in points}) > 1:
        values = ", ".join(sorted({ep.value for ep in points}))
        raise PolicyError(f"plugin '{name}' is declared by several installed packages ({values})")
    rules = _import(name, points[0])
    _LOADED[name] = rules
    return rules


def _installed_note() -> str:
    names = sorted({ep.name for ep in installed_plugins()})
    return f"; installed: {', '.join(names)}" if names else "; none is installed"


def _import(name: str, point: EntryPoint) -> tuple[Rule, ...]:
    """Import the plugin's module; on failure, forget the rules it declared so far."""
    before = set(PLUGIN_RULES)
    try:
        point.load()
    except RuleIdError as exc:
        _forget(before)
        raise PolicyError(f"plugin '{name}' ({point.value}): {exc}") from None
    except Exception as exc:  # any failure of the plugin's own code
        _forget(before)
        raise PolicyError(
            f"plugin '{name}' ({point.value}) could not be imported: {type(exc).__name__}: {exc}"
        ) from None
    module = point.module
    owners = {ep.module for ep in installed_plugins()}
    rules = sorted(
        (r for r in PLUGIN_RULES.values() if _owner(r.module, owners) == module), key=rule_order
    )
    if not rules:
        raise PolicyError(
            f"plugin '{name}' ({point.value}) declares no rule: declare them with @rule "
            f"in {module} or its submodules"
        )
    wrapped = tuple(guarded(name, r) for r in rules)
    PLUGIN_RULES.update((r.rule_id, r) for r in wrapped)
    return wrapped


def _owner(module: str, owners: Iterable[str]) -> str | None:
    """The entry point module whose plugin a rule declared in `module` belongs to: the
    longest installed entry point module that is `module` or a package above it (a
    submodule that is another plugin's entry point is that plugin's, whichever was
    imported first); None for none."""
    found: str | None = None
    for owner in owners:
        if (module == owner or module.startswith(owner + ".")) and (
            found is None or len(owner) > len(found)
        ):
            found = owner
    return found


def _forget(before: set[str]) -> None:
    for rule_id in set(PLUGIN_RULES) - before:
        del PLUGIN_RULES[rule_id]


def enabled_rules(plugins: Iterable[str]) -> list[Rule]:
    """The rules of the named plugins (each imported once), each once (rules.all_rules
    puts them in report order)."""
    found: dict[str, Rule] = {}
    for name in plugins:
        found.update((r.rule_id, r) for r in plugin_rules(name))
    return list(found.values())


def check_plugins(loaded: LoadedPolicy) -> None:
    """Import the plugins a loaded policy names; PolicyError `invalid policy <file>:
    policy plugins[i]: ...` naming the first one that cannot be used."""
    for index, name in enumerate(loaded.policy.plugins):
        try:
            plugin_rules(name)
        except PolicyError as exc:
            where = f"invalid policy {loaded.source}: " if loaded.source else ""
            raise PolicyError(f"{where}policy plugins[{index}]: {exc}") from None


def check_policies(loaded: Iterable[LoadedPolicy]) -> None:
    """`check_plugins` for each policy, in order."""
    for item in loaded:
        check_plugins(item)


def policy_plugins(policies: Iterable[Policy]) -> tuple[str, ...]:
    """The plugins any of the policies names, each once, in order."""
    return tuple(dict.fromkeys(name for policy in policies for name in policy.plugins))


def installed_listing() -> tuple[list[tuple[str, str, tuple[Rule, ...]]], list[str]]:
    """`arh rules --plugins`: every installed plugin (imported now) as (name, entry point
    value, rules), by name, and the reason for each one that cannot be used."""
    listed: list[tuple[str, str, tuple[Rule, ...]]] = []
    problems: list[str] = []
    for point in installed_plugins():
        if listed and listed[-1][0] == point.name:
            continue
        try:
            listed.append((point.name, point.value, plugin_rules(point.name)))
        except PolicyError as exc:
            problems.append(str(exc))
    return listed, problems
