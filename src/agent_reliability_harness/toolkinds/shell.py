"""Shell command lines to simple commands: what the coding-agent rules read.

A command line is split the way a POSIX shell splits it (shlex): at `;`, `&&`, `||`,
`&`, `|`, newlines and parentheses, quotes removed. Heredoc bodies are dropped (they
are data, not commands). Wrappers are looked through: `sudo`, `env`, `VAR=value`,
`nohup`, `time`, `timeout N`, `nice`, `exec`, `command`, `xargs` (its command), and a
shell's `-c` script (`bash -lc '...'`) is split again. `cd DIR` is followed, so a later
relative path is read against the directory it names. Nothing here runs anything.
"""

from __future__ import annotations

import posixpath
import re
import shlex

import msgspec

# How deep `bash -c '...'` scripts nest before the rest is left unread.
_MAX_DEPTH = 4
# The directory after `cd` to a place that cannot be known (`cd "$X"`, `cd src` from an
# unknown directory): relative paths then resolve to nothing.
UNKNOWN = "?"
# Longer command lines are cut (a rule reads the start of a megabyte heredoc only).
_MAX_CHARS = 100_000
_SEPARATORS = frozenset({";", "&&", "||", "&", "\n", "(", ")", ";;", "|&"})
_PIPE = frozenset({"|", "|&"})
# A run of operator characters that ends a command (shlex joins `;` and a newline).
_OPERATOR = re.compile(r"[;&|()\n]+")
_REDIRECT = re.compile(r"\d*(>|>>|>\||&>|&>>)")
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "busybox"})
_WRAPPERS = frozenset({"sudo", "doas", "nohup", "time", "exec", "command", "builtin", "nice"})
# Wrapper options that take a value (`sudo -u root`, `timeout -s KILL 5`).
_VALUE_OPTIONS = frozenset({"-u", "-g", "-C", "-h", "-p", "-s", "-k", "-n", "--signal", "-U"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1[^\n]*\n")


class Command(msgspec.Struct, frozen=True):
    """One simple command: its words (the program first, wrappers removed), the command
    before it in its pipeline (None: it reads no pipe), the files its output is
    redirected to, the environment it sets, and the directory it runs in (None:
    unknown; relative to nothing)."""

    argv: tuple[str, ...]
    piped_from: tuple[str, ...] | None = None
    writes: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    cwd: str | None = None

    @property
    def program(self) -> str:
        return posixpath.basename(self.argv[0]) if self.argv else ""


def strip_heredocs(line: str) -> str:
    """The command line without the bodies of its heredocs (`<<EOF ... EOF`)."""
    out: list[str] = []
    at = 0
    while True:
        found = _HEREDOC.search(line, at)
        if found is None:
            out.append(line[at:])
            return "".join(out)
        out.append(line[at : found.end()])
        end = re.compile(rf"^\s*{re.escape(found.group(2))}\s*$", re.MULTILINE).search(
            line, found.end()
        )
        if end is None:
            return "".join(out)
        out.append("\n")
        at = end.end()


def _tokens(line: str) -> list[str]:
    """The words and operators of a command line (shlex, POSIX rules); an unbalanced
    quote leaves the line split at white space."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()<>\n")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:
        return line.split()


def split_line(line: str, cwd: str | None = None) -> list[Command]:
    """Every simple command of a command line, in order (see the module docstring)."""
    return _split(strip_heredocs(line[:_MAX_CHARS]), cwd, 0)


def split_argv(argv: list[str], cwd: str | None = None) -> list[Command]:
    """The simple commands of an argv array (Codex `shell`): one command, or a shell's
    `-c` script split as a command line."""
    return _commands([str(word) for word in argv], None, (), cwd, 0)


def _split(line: str, cwd: str | None, depth: int) -> list[Command]:
    found: list[Command] = []
    words: list[str] = []
    writes: list[str] = []
    before: tuple[str, ...] | None = None
    tokens = _tokens(line)
    index = 0
    while index <= len(tokens):
        token = tokens[index] if index < len(tokens) else ";"
        index += 1
        if token not in _PIPE and _OPERATOR.fullmatch(token):
            token = ";"
        if token in _SEPARATORS or token in _PIPE:
            made = _commands(words, before, tuple(writes), cwd, depth)
            found.extend(made)
            if made and made[-1].argv and made[-1].argv[0] == "cd" and token not in _PIPE:
                cwd = change_dir(cwd, made[-1].argv)
            before = made[-1].argv if made and token in _PIPE else None
            words, writes = [], []
        elif token in {">", ">>", ">|", "&>", "<", "<<", "<<<", ">&", "<&"}:
            target = tokens[index] if index < len(tokens) else ""
            index += 1
            if words and words[-1].isdigit():  # `2>&1`: the 2 is a file descriptor
                words.pop()
            if token.startswith((">", "&")) and target and not target.isdigit():
                writes.append(target)
        elif _REDIRECT.fullmatch(token) and index < len(tokens):
            writes.append(tokens[index])
            index += 1
        else:
            words.append(token)
    return found


def _commands(
    words: list[str],
    before: tuple[str, ...] | None,
    writes: tuple[str, ...],
    cwd: str | None,
    depth: int,
) -> list[Command]:
    """One command's words with wrappers removed; a shell's `-c` script split again."""
    env: list[str] = []
    words = list(words)
    while words:
        head = posixpath.basename(words[0])
        if _ASSIGNMENT.match(words[0]):
            env.append(words.pop(0))
        elif head == "env":
            words.pop(0)
            while words and (words[0].startswith("-") or _ASSIGNMENT.match(words[0])):
                item = words.pop(0)
                if _ASSIGNMENT.match(item):
                    env.append(item)
        elif head in _WRAPPERS or head in {"timeout", "xargs", "stdbuf", "unbuffer"}:
            words.pop(0)
            _drop_options(words, head)
        else:
            break
    if not words:
        return []
    script = shell_script(words)
    if script is not None and depth < _MAX_DEPTH:
        inner = _split(strip_heredocs(script), cwd, depth + 1)
        if inner and before is not None:
            inner[0] = msgspec.structs.replace(inner[0], piped_from=before)
        return inner
    return [Command(tuple(words), before, writes, tuple(env), cwd)]


def _drop_options(words: list[str], head: str) -> None:
    """A wrapper's own options (and `timeout`'s duration) from the front of `words`."""
    while words and words[0].startswith("-") and words[0] != "-":
        option = words.pop(0)
        if option in _VALUE_OPTIONS and words and "=" not in option:
            words.pop(0)
    if head == "timeout" and words:
        words.pop(0)


def shell_script(words: list[str] | tuple[str, ...]) -> str | None:
    """The script of `sh -c SCRIPT` (any shell, options such as -l, -e, -x before or
    joined: `-lc`), else None."""
    if not words or posixpath.basename(words[0]) not in SHELLS:
        return None
    for at, word in enumerate(words[1:], 1):
        if not word.startswith("-"):
            return None
        if "c" in word[1:] and not word.startswith("--"):
            return words[at + 1] if at + 1 < len(words) else None
    return None


def change_dir(cwd: str | None, argv: tuple[str, ...]) -> str | None:
    """The directory after `cd ARG` run in `cwd` (None: the call's own, not recorded;
    UNKNOWN: somewhere that cannot be known)."""
    target = home_form(next((word for word in argv[1:] if not word.startswith("-")), "~"))
    if target.startswith("~"):
        return posixpath.normpath(target)
    if target.startswith("/"):
        return posixpath.normpath(target)
    if target.startswith("$") or target == "-" or cwd is None or cwd == UNKNOWN:
        return UNKNOWN  # a relative move from an unknown place: relative paths are unknown
    return posixpath.normpath(posixpath.join(cwd, target))


def home_form(path: str) -> str:
    """`$HOME/x` and `${HOME}/x` written as `~/x`; any other path as it is."""
    for home in ("$HOME", "${HOME}"):
        if path == home or path.startswith(home + "/"):
            return "~" + path[len(home) :]
    return path
