"""The one escaping module: trace text made safe for each medium a renderer writes to.

Trace text is untrusted (ids, tool names, messages, file names). Terminal text never
carries a control sequence or a line break (a trace id cannot become an `::error` or
`::add-mask::` workflow command, or move the cursor); XML never carries what XML 1.0
forbids; Markdown never carries markup, a live @mention, an issue reference, a bare
link, or a bidi control that reorders what a reviewer reads. Pure string functions.
"""

from __future__ import annotations

import functools
import re

# Unicode "format" characters (category Cf: bidi embeddings and isolates, zero-width
# spaces and joiners, the BOM, tag characters, ...), which change how text around them
# reads while showing nothing; plus the Hangul fillers and the combining grapheme joiner,
# which render blank. Checked against unicodedata in the tests.
_INVISIBLE = (
    "\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u180e"
    "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f"
)
# C0 and C1 controls, DEL, the Unicode line and paragraph separators.
_CONTROLS = "\x00-\x1f\x7f-\x9f\u2028\u2029"
# Lone surrogates (a non-UTF-8 file name decoded with surrogateescape) cannot be written
# as UTF-8 at all.
_SURROGATES = "\ud800-\udfff"


# The patterns are compiled when a renderer first needs them (all of them at import cost
# ~4 ms, mostly the case-insensitive _live, and a run renders one or two media).
@functools.cache
def _terminal_unsafe() -> re.Pattern[str]:
    return re.compile(f"[{_CONTROLS}{_INVISIBLE}{_SURROGATES}]")


@functools.cache
def _md_control() -> re.Pattern[str]:
    return re.compile(f"[{_CONTROLS}]")


@functools.cache
def _md_invisible() -> re.Pattern[str]:
    return re.compile(f"[{_INVISIBLE}{_SURROGATES}]")


@functools.cache
def _xml_forbidden() -> re.Pattern[str]:
    # XML 1.0 cannot carry these at all, not even as character references.
    return re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


_XML_TEXT = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_XML_ATTR = {**_XML_TEXT, '"': "&quot;", "\t": "&#9;", "\n": "&#10;", "\r": "&#13;"}

# Punctuation that can open inline Markdown, HTML, math or a table cell boundary.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~&$])")
# What GitHub links or notifies on in plain text even when backslash-escaped: @mentions
# (and user@host e-mail links), #123 and GH-123 issue references (owner/repo#123 too),
# and bare URLs (scheme:// and www.). A word joiner (U+2060) inside each breaks the
# match and shows nothing.
_WJ = "\u2060"


@functools.cache
def _live() -> re.Pattern[str]:
    live = r"@(?=[A-Za-z0-9])|#(?=[0-9])|(?<![A-Za-z0-9])GH-(?=[0-9])|:(?=//)|www\."
    return re.compile(live, re.I)


_BACKTICKS = re.compile("`+")


def visible(char: str) -> str:
    """`\\xNN`, `\\uNNNN` or `\\UNNNNNNNN`: a character spelled out instead of acting."""
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _spelled(match: re.Match[str]) -> str:
    return visible(match.group())


def term(text: str) -> str:
    """Trace text for one line of console output: control characters, line breaks,
    invisible format characters (bidi controls included) and lone surrogates spelled
    out (`\\x1b`, `\\x0a`, `\\u202e`), so it can neither drive the terminal nor start a
    line of its own (where CI runners read workflow commands)."""
    return _terminal_unsafe().sub(_spelled, text)


def clip(text: str, limit: int) -> str:
    """At most `limit` characters, marking a cut with an ellipsis."""
    return text if len(text) <= limit else text[: max(0, limit - 3)] + "..."


def xml_clean(text: str) -> str:
    """Replace characters XML 1.0 forbids with a visible `\\uXXXX` spelling."""
    return _xml_forbidden().sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def xml_text(text: str) -> str:
    """Element content: forbidden characters replaced, markup characters escaped."""
    return "".join(_XML_TEXT.get(c, c) for c in xml_clean(text))


def xml_attr(text: str) -> str:
    """A double-quoted attribute value; tabs and line breaks survive normalisation."""
    return "".join(_XML_ATTR.get(c, c) for c in xml_clean(text))


def _md_visible(text: str) -> str:
    return _md_invisible().sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def md_code(text: str, limit: int = 200, in_table: bool = False) -> str:
    """A code span showing `text` literally (ids, names, paths): GitHub links and
    notifies nothing inside one. Control and invisible characters are spelled \\uXXXX;
    in a table cell `|` is escaped, which GFM undoes inside the span."""
    flat = _md_visible(_md_control().sub(lambda m: f"\\u{ord(m.group()):04x}", clip(text, limit)))
    if not flat.strip():
        return "(blank)"
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(flat)), default=0) + 1)
    pad = " " if flat[0] in "` " or flat[-1] in "` " else ""
    body = flat.replace("|", "\\|") if in_table else flat
    return f"{fence}{pad}{body}{pad}{fence}"


def md_text(text: str, limit: int = 500) -> str:
    """Inline Markdown text (also safe in a table cell or a list item): one line, no
    markup, no live mention, issue reference or link; invisible characters spelled
    \\uXXXX. Never a backslash before `@` (GitHub notifies on `\\@name` all the same)."""
    flat = _MD_SPECIAL.sub(r"\\\1", _md_control().sub(" ", clip(text, limit)))
    return _live().sub(lambda m: m.group() + _WJ, _md_visible(flat))
