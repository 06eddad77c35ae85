"""fnmatch globs (tool names in policies, `applies_to`) translated into RE2 pattern text;
patterns.GlobSet compiles them."""

from __future__ import annotations


def glob_to_regex(glob: str) -> str:
    """An RE2 pattern that matches exactly what `fnmatch.fnmatchcase(text, glob)` matches
    (`*`, `?`, `[seq]`, `[!seq]`; an unclosed `[` is a literal)."""
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        ch = glob[i]
        i += 1
        if ch == "*":
            out.append("(?s:.*)")
        elif ch == "?":
            out.append("(?s:.)")
        elif ch == "[":
            end = _class_end(glob, i)
            if end < 0:
                out.append("\\[")
                continue
            out.append(_class(glob[i:end]))
            i = end + 1
        else:
            out.append(_escape(ch))
    return "".join(out)


def _class_end(glob: str, start: int) -> int:
    """Index of the `]` closing a class that opens before `start`, or -1."""
    j = start
    if j < len(glob) and glob[j] == "!":
        j += 1
    if j < len(glob) and glob[j] == "]":
        j += 1
    end = glob.find("]", j)
    return end


def _class(body: str) -> str:
    negate = body.startswith("!")
    if negate:
        body = body[1:]
    if not body:  # `[!]` matches any one character in fnmatch
        return "(?s:.)"
    parts: list[str] = []
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            low, high = body[i], body[i + 2]
            if low <= high:
                parts.append(f"{_escape_in_class(low)}-{_escape_in_class(high)}")
            i += 3
        else:
            parts.append(_escape_in_class(body[i]))
            i += 1
    if not parts:  # only empty ranges: matches nothing (negated: any character)
        return "(?s:.)" if negate else "[^\\x00-\\x{10FFFF}]"
    return f"[{'^' if negate else ''}{''.join(parts)}]"


def _escape(ch: str) -> str:
    return ch if ch.isalnum() or ch == "_" else f"\\x{{{ord(ch):x}}}"


def _escape_in_class(ch: str) -> str:
    return ch if ch.isalnum() else f"\\x{{{ord(ch):x}}}"
