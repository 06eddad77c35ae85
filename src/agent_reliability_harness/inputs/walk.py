"""The files a run reads: arguments expanded (directories walked, URLs listed) into
entries, each with the name reports show and the name hint trace ids derive from."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ..errors import InputError, PolicyError
from ..io import STDIN, STDIN_NAME, TRACE_SUFFIXES, Failure, display_path
from .remote import RemoteFile, expand_url, is_url

# A local file is named by its path as given (a str: cheaper than a Path per file).
Location = str | RemoteFile


@dataclass(frozen=True, slots=True)
class Entry:
    """One input file: `name` as reports show it, `path` (None: standard input) and `hint`,
    the name that trace ids derived from the file start from (see `name_hints`)."""

    name: str
    path: Location | None
    hint: str = ""
    rel: str = ""  # path relative to the argument it was found under (hints only)


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
    cwd = _cwd()
    found: list[Entry | Failure] = []
    for raw in paths:
        if raw == STDIN:
            found.append(Entry(STDIN_NAME, None, rel=STDIN_NAME))
        elif is_url(raw):
            found.extend(_url_entries(raw, wanted))
        else:
            found.extend(_local_entries(raw, wanted, cwd))
    return name_hints(found)


def _cwd() -> str | None:
    try:
        return os.getcwd()
    except OSError:
        return None


def _url_entries(raw: str, wanted: tuple[str, ...]) -> list[Entry | Failure]:
    try:
        files = expand_url(raw, wanted)
    except InputError as exc:
        return [Failure(raw, str(exc))]
    except OSError as exc:
        return [Failure(raw, f"cannot read: {exc.strerror or exc}")]
    if not files:
        return [Failure(raw, f"no {_listing(wanted)} files found")]
    return [Entry(name, file, rel=rel) for name, file, rel in files]


def _local_entries(raw: str, wanted: tuple[str, ...], cwd: str | None) -> list[Entry | Failure]:
    name = display_path(raw, cwd)
    try:
        is_dir = os.path.isdir(raw)
        exists = is_dir or os.path.exists(raw)
    except ValueError:  # an embedded NUL byte
        exists = False
    if not exists:
        return [Failure(name, "no such file or directory")]
    if not is_dir:
        return [Entry(name, raw, rel=name)]
    # Names are joined, not looked up per file (no getcwd per file); only a directory
    # above the working directory needs each file's own display_path.
    shown_base = "" if name == "." else name if name.endswith("/") else name + "/"
    above_cwd = (
        cwd is not None
        and os.path.isabs(raw)
        and cwd.startswith(os.path.join(os.path.abspath(raw), ""))
    )
    out: list[Entry | Failure] = []
    for rel, problem in _walk(raw, wanted):
        if problem is not None:
            out.append(Failure(shown_base + rel if rel else name, problem))
            continue
        path = os.path.join(raw, rel)
        shown = display_path(path, cwd) if above_cwd else shown_base + rel
        out.append(Entry(shown, path, rel=rel))
    if not out:
        out.append(Failure(name, f"directory contains no {_listing(wanted)} files"))
    return out


def _listing(wanted: tuple[str, ...]) -> str:
    names = [f"*{s}" for s in wanted]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _walk(top: str, wanted: tuple[str, ...]) -> list[tuple[str, str | None]]:
    """(relative path "a/b.json", None) for each wanted file under `top`, and (relative
    path of the directory, problem) for each that cannot be listed (never skipped
    silently), in the order of their path components. Real subdirectories are entered,
    symlinked ones not; symlinked files are kept. One scandir per directory, no stat
    per regular file."""
    found: list[tuple[list[str], str, str | None]] = []
    pending: list[tuple[str, str]] = [(top, "")]
    while pending:
        directory, prefix = pending.pop()
        try:
            with os.scandir(directory) as listing:
                for entry in listing:
                    rel = prefix + entry.name
                    if _is_real_dir(entry):
                        pending.append((entry.path, rel + "/"))
                    elif suffix(entry.name) in wanted and _is_file(entry):
                        found.append((rel.split("/"), rel, None))
        except OSError as exc:
            rel = prefix[:-1]
            found.append(
                (rel.split("/") if rel else [], rel, f"cannot read: {exc.strerror or exc}")
            )
    found.sort(key=lambda item: item[0])
    return [(rel, problem) for _, rel, problem in found]


def _is_real_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


POLICY_SUFFIXES = (".json", ".yaml", ".yml")


def policy_files(paths: Iterable[str]) -> list[str]:
    """Policy files in order: each argument, or a directory's *.json, *.yaml and *.yml
    files (not its subdirectories) in sorted order."""
    files: list[str] = []
    for path in paths:
        if not os.path.isdir(path):
            files.append(path)
            continue
        found = sorted(
            name
            for name in os.listdir(path)
            if name.endswith(POLICY_SUFFIXES) and os.path.isfile(os.path.join(path, name))
        )
        if not found:
            raise PolicyError(
                f"invalid policy {display_path(path)}: directory holds no policy files"
            )
        files.extend(os.path.join(path, name) for name in found)
    return files


def total_bytes(paths: Iterable[str]) -> int | None:
    """The inputs' size for a progress bar; None when standard input or a URL is read."""
    total = 0
    for item in expand_paths(paths):
        if isinstance(item, Failure):
            continue
        if not isinstance(item.path, str):
            return None
        with contextlib.suppress(OSError):
            total += os.stat(item.path).st_size
    return total


def name_hints(entries: list[Entry | Failure]) -> list[Entry | Failure]:
    """Give each entry its name hint: the file's stem, unless another file of the run has
    the same stem; those are named by their path relative to the directory given (`a/run`
    for `a/run.json`), else by the path shown without suffix, else by the path shown."""
    groups: dict[str, set[str]] = {}
    for item in entries:
        if isinstance(item, Entry):
            groups.setdefault(stem(item.name), set()).add(item.name)
    chosen: dict[str, str] = {}
    for key, names in groups.items():
        if len(names) == 1:
            chosen[next(iter(names))] = key
    colliding = [e for e in entries if isinstance(e, Entry) and e.name not in chosen]
    for level in (_rel_without_suffix, _name_without_suffix, _shown):
        counts: dict[str, set[str]] = {}
        for entry in colliding:
            counts.setdefault(level(entry), set()).add(entry.name)
        for entry in colliding:
            if entry.name not in chosen and len(counts[level(entry)]) == 1:
                chosen[entry.name] = level(entry)
    for entry in colliding:
        chosen.setdefault(entry.name, entry.name)
    return [replace(e, hint=chosen[e.name]) if isinstance(e, Entry) else e for e in entries]


def _rel_without_suffix(entry: Entry) -> str:
    ext = suffix(entry.rel)
    return entry.rel[: -len(ext)] if ext else entry.rel


def _name_without_suffix(entry: Entry) -> str:
    ext = suffix(entry.name)
    return entry.name[: -len(ext)] if ext else entry.name


def _shown(entry: Entry) -> str:
    return entry.name


__all__ = [
    "Entry",
    "Location",
    "expand_paths",
    "name_hints",
    "policy_files",
    "stem",
    "suffix",
    "total_bytes",
]
