"""The one documentation URL: where the rule reference is published (SARIF helpUri, the
Markdown rule links and the HTML report's rule links are built from it). Escaping lives
in _escape.py."""

from __future__ import annotations

from ..rules import PLUGIN_RULES
from ..rules.docs import anchor

# Where the rule reference (docs/rules.md) is published. Change it when the project's
# public home changes.
PROJECT_URL = "https://github.com/agent-reliability-harness/arh"
RULES_DOC_URL = f"{PROJECT_URL}/blob/main/docs/rules.md"


def rule_url(rule_id: str) -> str | None:
    """The rule's section in the published rule reference; for a plugin's rule, the
    page it declares (`help_uri`), or None."""
    if rule_id.startswith("ARH-"):
        return f"{RULES_DOC_URL}#{anchor(rule_id)}"
    found = PLUGIN_RULES.get(rule_id)
    return None if found is None else found.help_uri
