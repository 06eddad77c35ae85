"""Escaping shared by the CI renderers (XML, Markdown) and the one documentation URL.

Pure string functions: trace text is untrusted, so everything a renderer copies
from a trace goes through one of these.
"""

from __future__ import annotations

import re

from ..rules.docs import anchor

# Where the rule reference (docs/rules.md) is published. SARIF helpUri and the
# Markdown rule links are built from this one constant; change it when the
# project's public home changes.
PROJECT_URL = "https://github.com/agent-reliability-harness/arh"
RULES_DOC_URL = f"{PROJECT_URL}/blob/main/docs/rules.md"

# Characters XML 1.0 cannot carry at all, not even as character references.
_XML_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_XML_TEXT = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_XML_ATTR = {**_XML_TEXT, '"': "&quot;", "\t": "&#9;", "\n": "&#10;", "\r": "&#13;"}

# Punctuation that can open inline Markdown, HTML, math or a table cell boundary.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~&$])")
# GitHub turns @name into a notification even when escaped; a word joiner stops it.
_MENTION = re.compile(r"@(?=[A-Za-z0-9])")
_BACKTICKS = re.compile("`+")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def rule_url(rule_id: str) -> str:
    """The rule's section in the published rule reference."""
    return f"{RULES_DOC_URL}#{anchor(rule_id)}"


def _visible(char: str) -> str:
    return f"\\u{ord(char):04x}"


def xml_clean(text: str) -> str:
    """Replace characters XML 1.0 forbids with a visible `\\uXXXX` spelling."""
    return _XML_FORBIDDEN.sub(lambda m: _visible(m.group()), text)


def xml_text(text: str) -> str:
    """Element content: forbidden characters replaced, markup characters escaped."""
    return "".join(_XML_TEXT.get(c, c) for c in xml_clean(text))


def xml_attr(text: str) -> str:
    """A double-quoted attribute value; tabs and line breaks survive normalisation."""
    return "".join(_XML_ATTR.get(c, c) for c in xml_clean(text))


def clip(text: str, limit: int) -> str:
    """At most `limit` characters, marking a cut with an ellipsis."""
    return text if len(text) <= limit else text[: max(0, limit - 3)] + "..."


def md_code(text: str, limit: int = 200, in_table: bool = False) -> str:
    """A code span showing `text` literally (ids, names, paths): no markup, links or mentions.

    Control characters are spelled \\uXXXX; in a table cell `|` is escaped, which GFM
    undoes inside the span.
    """
    flat = _CONTROL.sub(lambda m: _visible(m.group()), clip(text, limit))
    if not flat.strip():
        return "(blank)"
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(flat)), default=0) + 1)
    pad = " " if flat[0] in "` " or flat[-1] in "` " else ""
    body = flat.replace("|", "\\|") if in_table else flat
    return f"{fence}{pad}{body}{pad}{fence}"


def md_text(text: str, limit: int = 500) -> str:
    """Inline Markdown text (also safe in a table cell): one line, no markup, no mentions."""
    flat = _CONTROL.sub(" ", clip(text, limit))
    return _MENTION.sub("@\u2060", _MD_SPECIAL.sub(r"\\\1", flat))
