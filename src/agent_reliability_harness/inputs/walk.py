"""The files a run reads: arguments expanded (directories walked, URLs listed) into
entries, each with the name reports show and the name hint trace ids derive from."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from ..errors import InputError
from ..io import STDIN, STDIN_NAME, TRACE_SUFFIXES, Failure, display_path, shown_name
from ..reading import not_regular
from .remote import RemoteFile, expand_url, is_url

# A local file is named by its path as given (a str: cheaper than a Path per file).
Location = str | RemoteFile
# (name shown, path, path relative to the argument it was found under), before hints.
_Found = tuple[str, Location | None, str]


@dataclass(frozen=True, slots=True)
class Entry:
    """One input file: `name` as reports show it, `path` (None: standard input) and `hint`,
    the name that trace ids derived from the file start from (see `name_hints`)."""

    name: str
    path: Location | None
    hint: str = ""


def suffix(name: str) -> str:
    """`PurePath(name).suffix`, without building a path."""
    base = name.rsplit("/", 1)[-1]
    at = base.rfind(".")
    return base[at:] if 0 < at < len(base) - 1 else ""


def stem(name: str) -> str:
    """`PurePath(name).stem`, or "trace" for an empty one."""
    base = name.rsplit("/", 1)[-1]
    ext = suffix(base)
    return (base[: -len(ext)] if ext else base) or "trace"


def expand_paths(paths: Iterable[str], suffixes: Sequence[str] = ()) -> list[Entry | Failure]:
    """Every input file of the arguments, in order: `-` is standard input, a directory is
    walked recursively in sorted order for *.json, *.jsonl and `suffixes`, a URL is read
    through fsspec. A Failure stands in for an argument that cannot be read."""
    wanted = tuple(dict.fromkeys((*TRACE_SUFFIXES, *suffixes)))
    names = Shown(_cwd())
    found: list[_Found | Failure] = []
    for raw in paths:
        if raw == STDIN:
            found.append((STDIN_NAME, None, STDIN_NAME))
        elif is_url(raw):
            found.extend(_url_entries(raw, wanted))
        else:
            found.extend(_local_entries(raw, wanted, names))
    return name_hints(found)


def _cwd() -> str | None:
    try:
        return os.getcwd()
    except OSError:
        return None


class Shown:
    """`display_path(raw, cwd)` of many arguments (a shell glob gives thousands), each
    directory's name made once: `dir/name` is shown as dir is, plus `/name`. Arguments
    for which that might not hold go to display_path itself: non-ASCII ones (escapes),
    ones with `//` (PurePath collapses it, or keeps it as a root), a directory `-`
    (standard input's name), a last part that is empty, `.` or `..`, or named like the
    working directory (the argument may be it, shown `.`). tests/test_shown_names.py
    checks it against display_path."""

    def __init__(self, cwd: str | None) -> None:
        self.cwd = cwd
        self.cwd_name = os.path.basename(cwd) if cwd else None
        self.directories: dict[str, str] = {}

    def __call__(self, raw: str) -> str:
        head, _, name = raw.rpartition("/")
        if (
            head in ("", STDIN)
            or name in ("", ".", "..", self.cwd_name)
            or "//" in raw
            or not raw.isascii()
        ):
            return display_path(raw, self.cwd)
        shown = self.directories.get(head)
        if shown is None:
            shown = self.directories[head] = display_path(head, self.cwd)
        if shown == ".":
            return name
        return shown + name if shown.endswith("/") else f"{shown}/{name}"  # "/": the root


def _url_entries(raw: str, wanted: tuple[str, ...]) -> list[_Found | Failure]:
    try:
        files = expand_url(raw, wanted)
    except InputError as exc:
        return [Failure(raw, str(exc))]
    except OSError as exc:
        return [Failure(raw, f"cannot read: {exc.strerror or exc}")]
    if not files:
        return [Failure(raw, f"no {_listing(wanted)} files found")]
    return [(name, file, rel) for name, file, rel in files]


def _local_entries(raw: str, wanted: tuple[str, ...], names: Shown) -> list[_Found | Failure]:
    name = names(raw)
    cwd = names.cwd
    if not raw:
        return [Failure(name, "empty path (name a file, a directory, or - for standard input)")]
    try:
        mode: int | None = os.stat(raw).st_mode
    except (OSError, ValueError):  # ValueError: an embedded NUL byte
        mode = None
    if mode is None:
        return [Failure(name, "no such file or directory")]
    if not stat.S_ISDIR(mode):
        why = not_regular(mode)  # refused up front: a device or a pipe may never end
        return [Failure(name, f"cannot read: {why}")] if why else [(name, raw, name)]
    # Names are joined, not looked up per file (no getcwd per file); only a directory
    # above the working directory needs each file's own display_path.
    shown_base = "" if name == "." else name if name.endswith("/") else name + "/"
    above_cwd = (
        cwd is not None
        and os.path.isabs(raw)
        and cwd.startswith(os.path.join(os.path.abspath(raw), ""))
    )
    top = raw if raw.endswith("/") else raw + "/"
    out: list[_Found | Failure] = []
    for rel, problem in _walk(raw, wanted, shown_base or "./"):
        shown_rel = shown_name(rel)
        if problem is not None:
            out.append(Failure(shown_base + shown_rel if rel else name, problem))
            continue
        path = top + rel
        shown = display_path(path, cwd) if above_cwd else shown_base + shown_rel
        out.append((shown, path, shown_rel))
    if not out:
        out.append(Failure(name, f"directory contains no {_listing(wanted)} files"))
    return out


def _listing(wanted: tuple[str, ...]) -> str:
    names = [f"*{s}" for s in wanted]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _walk(top: str, wanted: tuple[str, ...], shown: str) -> list[tuple[str, str | None]]:
    """(relative path "a/b.json", None) for each wanted file under `top`, and (relative
    path, problem) for each entry that cannot be read (never skipped silently), in the
    order of their path components. One scandir per directory, no stat per regular file.

    Real subdirectories are entered, symlinked ones not (their files are read where they
    are, when that is inside `top`). A symlink is followed only to a regular file inside
    `top`; one that dangles, or leads outside `top` or to a device or pipe, is reported."""
    found: list[tuple[list[str], str, str | None]] = []
    pending: list[tuple[str, str]] = [(top, "")]
    inside = _Inside(top, shown)
    while pending:
        directory, prefix = pending.pop()
        try:
            with os.scandir(directory) as listing:
                for entry in listing:
                    rel = prefix + entry.name
                    if _is_real_dir(entry):
                        pending.append((entry.path, rel + "/"))
                        continue
                    problem = _problem(entry, _wanted(entry.name, wanted), inside)
                    if problem is not False:
                        found.append((rel.split("/"), rel, problem))
        except OSError as exc:
            rel = prefix[:-1]
            found.append(
                (rel.split("/") if rel else [], rel, f"cannot read: {exc.strerror or exc}")
            )
    found.sort(key=lambda item: item[0])
    return [(rel, problem) for _, rel, problem in found]


class _Inside:
    """Whether a path resolves to somewhere inside the walked directory."""

    def __init__(self, top: str, shown: str) -> None:
        self.shown = shown  # the directory as reports show it
        self.real = os.path.join(os.path.realpath(top), "")

    def __call__(self, path: str) -> bool:
        return os.path.join(os.path.realpath(path), "").startswith(self.real)


def _problem(entry: os.DirEntry[str], wanted: bool, inside: _Inside) -> str | Literal[False] | None:
    """What to do with a directory entry that is not a real subdirectory: None to read it,
    a problem to report, False to pass it over (not a trace file, or a symlinked
    directory whose files are read where they are)."""
    try:
        if not entry.is_symlink():
            if not wanted:
                return False
            if entry.is_file(follow_symlinks=False):
                return None
            return f"cannot read: {not_regular(entry.stat(follow_symlinks=False).st_mode)}"
        if not os.path.exists(entry.path):
            return "no such file or directory (a dangling symlink)" if wanted else False
        target_dir = os.path.isdir(entry.path)
        if not wanted and not target_dir:
            return False
        if not inside(entry.path):
            kind = "directory" if target_dir else "file"
            return (
                f"not read: a symlink to a {kind} outside {inside.shown} "
                "(symlinks are followed only within the directory given)"
            )
        if target_dir:
            return False
        why = not_regular(os.stat(entry.path).st_mode)
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}" if wanted else False
    return None if why is None else f"cannot read: {why}"


def _wanted(name: str, suffixes: tuple[str, ...]) -> bool:
    """A file name ending in one of the suffixes after at least one other character (as
    `PurePath.suffix` sees it: ".json" alone is a name, not a suffix)."""
    return name.endswith(suffixes) and any(
        name.endswith(s) and len(name) > len(s) for s in suffixes
    )


def _is_real_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def total_bytes(paths: Iterable[str], suffixes: Sequence[str] = ()) -> int | None:
    """The inputs' size for a progress bar (directories walked as `expand_paths` walks
    them); None when standard input or a URL is read."""
    total = 0
    for item in expand_paths(paths, suffixes):
        if isinstance(item, Failure):
            continue
        if not isinstance(item.path, str):
            return None
        with contextlib.suppress(OSError):
            total += os.stat(item.path).st_size
    return total


def name_hints(found: list[_Found | Failure]) -> list[Entry | Failure]:
    """Give each file its name hint: its stem, unless another file of the run has the same
    stem; those are named by their path relative to the directory given (`a/run` for
    `a/run.json`), else by the path shown without suffix, else by the path shown."""
    groups: dict[str, set[str]] = {}
    for item in found:
        if not isinstance(item, Failure):
            groups.setdefault(stem(item[0]), set()).add(item[0])
    chosen = {next(iter(names)): key for key, names in groups.items() if len(names) == 1}
    colliding = [f for f in found if not isinstance(f, Failure) and f[0] not in chosen]
    for level in (_rel_without_suffix, _name_without_suffix, _shown):
        counts: dict[str, set[str]] = {}
        for item in colliding:
            counts.setdefault(level(item), set()).add(item[0])
        for item in colliding:
            if item[0] not in chosen and len(counts[level(item)]) == 1:
                chosen[item[0]] = level(item)
    return [
        item if isinstance(item, Failure) else Entry(item[0], item[1], chosen.get(item[0], item[0]))
        for item in found
    ]


def _without_suffix(text: str) -> str:
    ext = suffix(text)
    return text[: -len(ext)] if ext else text


def _rel_without_suffix(item: _Found) -> str:
    return _without_suffix(item[2])


def _name_without_suffix(item: _Found) -> str:
    return _without_suffix(item[0])


def _shown(item: _Found) -> str:
    return item[0]


__all__ = [
    "Entry",
    "Location",
    "expand_paths",
    "name_hints",
    "stem",
    "suffix",
    "total_bytes",
]
