"""What a simple command does, for the coding-agent rules: each function reads one
`Command` (shell.py) and says why it is dangerous, or None. Nothing is run."""

from __future__ import annotations

import re

from .paths import credential_file, outside, resolve, wipes
from .shell import SHELLS, Command

_DOWNLOADERS = frozenset({"curl", "wget", "fetch", "http", "https", "aria2c"})
_INTERPRETERS = SHELLS | frozenset({"python", "python3", "perl", "ruby", "node", "php", "sudo"})
# A shell given a script on the command line, or `-c` text holding a download.
_SUBSTITUTED = re.compile(
    r"(?:\b(?:ba|z|da|k|fi)?sh|\beval|\bsource|\biex)\s+(?:-\S+\s+)*[\"']?"
    r"(?:\$\(|<\(|`)\s*(?:curl|wget)\b"
)
_READERS = frozenset(
    [
        "cat",
        "bat",
        "batcat",
        "less",
        "more",
        "head",
        "tail",
        "nl",
        "strings",
        "xxd",
        "od",
        "hexdump",
        "base64",
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "ag",
        "awk",
        "gawk",
        "sed",
        "cut",
        "sort",
        "uniq",
        "jq",
        "yq",
        "tac",
        "view",
        "vim",
        "vi",
        "nano",
        "emacs",
        "code",
        "open",
        "type",
    ]
)
_KEYCHAIN_READS = frozenset({"find-generic-password", "find-internet-password", "dump-keychain"})
_GIT_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})
_DB_CLIENTS = frozenset(
    [
        "psql",
        "mysql",
        "mariadb",
        "sqlite3",
        "mongo",
        "mongosh",
        "clickhouse-client",
        "cockroach",
        "sqlcmd",
    ]
)
_DROP = re.compile(r"\bdrop\s+(?:database|schema)\b|\bdropDatabase\s*\(", re.IGNORECASE)
_SAFE_DEVICES = frozenset({"/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_DISK = re.compile(r"/dev/(?:sd|hd|vd|xvd|nvme|disk|rdisk|mmcblk|md|dm-|mapper/)")
_DISKUTIL = frozenset({"erasedisk", "erasevolume", "zerodisk", "randomdisk", "secureerase"})


def git_args(command: Command) -> tuple[str, list[str]] | None:
    """A git command's subcommand and its arguments (git's own options skipped)."""
    if command.program != "git":
        return None
    words = list(command.argv[1:])
    while words and words[0].startswith("-"):
        option = words.pop(0)
        if option in _GIT_VALUE_OPTIONS and words:
            words.pop(0)
    return (words[0], words[1:]) if words else None


def _options(words: list[str]) -> tuple[list[str], list[str]]:
    """Options and operands (everything after `--` is an operand)."""
    options: list[str] = []
    operands: list[str] = []
    for at, word in enumerate(words):
        if word == "--":
            operands.extend(words[at + 1 :])
            break
        (options if word.startswith("-") and word != "-" else operands).append(word)
    return options, operands


def recursive_delete(command: Command, root: str | None) -> str | None:
    """`rm -r` (or `find ... -delete`) of the home folder, the file system root, a system
    folder, the working tree or a folder above it, or anything outside the working tree
    (when it is known; scratch folders such as /tmp excepted)."""
    finds = command.program == "find"
    if finds and ("-delete" in command.argv or ("-exec" in command.argv and "rm" in command.argv)):
        options, operands = ["-r"], _start_points(command.argv[1:])
    elif command.program == "rm":
        options, operands = _options(list(command.argv[1:]))
    else:
        return None
    recursive = "--recursive" in options or any(
        not o.startswith("--") and ("r" in o or "R" in o) for o in options
    )
    if not recursive:
        return None
    for operand in operands:
        path = resolve(operand, command.cwd or root)
        why = wipes(path, root)
        if finds and why == "the working tree":  # find deletes what matches, inside it
            why = None
        if why is None and outside(path, root):
            why = "a folder outside the working tree"
        if why is not None:
            return f"deletes {operand!r} recursively ({why})"
    return None


def _start_points(words: tuple[str, ...]) -> list[str]:
    """find's starting points: the words before its first expression."""
    points: list[str] = []
    for word in words:
        if word.startswith(("-", "(", "!")):
            break
        points.append(word)
    return points or ["."]


def force_push(command: Command, protected: frozenset[str]) -> str | None:
    """`git push` with --force, --force-with-lease, -f or a `+` refspec to a protected
    branch named on the command line."""
    found = git_args(command)
    if found is None or found[0] != "push":
        return None
    options, operands = _options(found[1])
    forced = any(
        o.startswith(("--force", "--force-with-lease")) or (not o.startswith("--") and "f" in o)
        for o in options
    )
    for refspec in operands[1:]:
        target = refspec.rsplit(":", 1)[-1].lstrip("+").removeprefix("refs/heads/")
        if (forced or refspec.startswith("+")) and target in protected:
            return f"force-pushes to the protected branch '{target}'"
    return None


def hard_reset(command: Command) -> bool:
    found = git_args(command)
    return found is not None and found[0] == "reset" and "--hard" in found[1]


def saves_work(command: Command) -> bool:
    """A command after which no uncommitted work is left to lose (a commit, a stash)."""
    found = git_args(command)
    if found is None:
        return False
    sub, args = found
    return sub == "commit" or (sub == "stash" and (not args or args[0] in {"push", "save"}))


def disk_or_database_wipe(command: Command) -> str | None:
    """mkfs, dd onto a disk, wipefs, diskutil erase; dropping a database or schema,
    flushing Redis, `db:drop`."""
    program, argv = command.program, command.argv
    if program.startswith("mkfs") or program == "wipefs":
        return f"formats or wipes a disk ({program})"
    if program == "dd" and any(
        w.startswith("of=/dev/") and w[3:] not in _SAFE_DEVICES for w in argv
    ):
        return "writes raw data onto a device (dd)"
    if program == "diskutil" and len(argv) > 1 and argv[1].lower() in _DISKUTIL:
        return f"erases a disk (diskutil {argv[1]})"
    if any(_DISK.match(target) for target in command.writes):
        return "writes onto a disk device"
    if program == "dropdb":
        return "drops a database (dropdb)"
    if program == "redis-cli" and {"flushall", "flushdb"} & {w.lower() for w in argv}:
        return "flushes a Redis database"
    if program in _DB_CLIENTS:
        text = " ".join(argv[1:]) + " " + " ".join(command.piped_from or ())
        if _DROP.search(text):
            return f"drops a database or schema ({program})"
    if any(w.endswith(("db:drop", "db:drop:all")) for w in argv[1:3]):
        return "drops the database (db:drop)"
    return None


def piped_download(command: Command) -> str | None:
    """A download piped into a shell or an interpreter that reads its program from the
    pipe (`curl ... | sh`, `wget -O- ... | sudo bash`)."""
    before = command.piped_from
    if before is None or not before or command.program not in _INTERPRETERS:
        return None
    source = before[0].rsplit("/", 1)[-1]
    if source not in _DOWNLOADERS:
        return None
    options, operands = _options(list(command.argv[1:]))
    if command.program != "sudo" and not _reads_program_from_stdin(options, operands):
        return None  # `| python script.py`: the script, not the download, is run
    return f"pipes a download ({source}) into {command.program}"


def _reads_program_from_stdin(options: list[str], operands: list[str]) -> bool:
    """`sh`, `sh -s -- -y`, `python3 -`: the program comes from the pipe (not with -c,
    nor when a script file is named)."""
    short = "".join(o[1:] for o in options if not o.startswith("--"))
    if "c" in short:
        return False
    return "s" in short or not operands or operands[0] == "-"


def substituted_download(line: str) -> bool:
    """`bash <(curl ...)`, `sh -c "$(curl ...)"`, `eval "$(wget ...)"` in a raw line."""
    return _SUBSTITUTED.search(line) is not None


def reads_credentials(command: Command) -> str | None:
    """A program that shows a file's content (cat, grep, head...) given a credential
    file; macOS `security find-*-password` / `dump-keychain`; `secret-tool lookup`."""
    program, argv = command.program, command.argv
    if program == "security" and len(argv) > 1 and argv[1] in _KEYCHAIN_READS:
        return f"reads the keychain (security {argv[1]})"
    if program == "secret-tool" and "lookup" in argv:
        return "reads the keyring (secret-tool lookup)"
    if program not in _READERS or _shows_nothing(program, argv):
        return None
    for word in argv[1:]:
        if word.startswith("-"):
            continue
        what = credential_file(word)
        if what is not None:
            return f"reads {what} ({program} {word})"
    return None


def _shows_nothing(program: str, argv: tuple[str, ...]) -> bool:
    """`sed -i` edits in place, `grep -q/-l/-c` print no line of the file."""
    flags = "".join(w[1:] for w in argv[1:] if w.startswith("-") and not w.startswith("--"))
    if program == "sed":
        return "i" in flags or "--in-place" in argv
    if program in {"grep", "egrep", "fgrep", "rg"}:
        return any(f in flags for f in "qlLc") or "--quiet" in argv
    return False


def skips_hooks(command: Command) -> str | None:
    """git with --no-verify (or `commit -n`), hooks turned off by `core.hooksPath` or
    HUSKY=0 / HUSKY_SKIP_HOOKS / SKIP for a git command."""
    if command.program != "git":
        return None
    if any(w.startswith("core.hooksPath=") for w in command.argv):
        return "runs git with its hooks turned off (core.hooksPath)"
    found = git_args(command)
    if found is None:
        return None
    sub, args = found
    if sub == "config" and "core.hooksPath" in args:
        return "turns git hooks off (git config core.hooksPath)"
    if "--no-verify" in args:
        return f"skips git hooks (git {sub} --no-verify)"
    if sub == "commit" and any(_short_n(word) for word in args):
        return "skips git hooks (git commit -n)"
    hushed = [e for e in command.env if e.split("=", 1)[0] in {"HUSKY", "HUSKY_SKIP_HOOKS"}]
    if sub in {"commit", "push"} and hushed:
        return f"skips git hooks ({hushed[0]})"
    return None


def _short_n(word: str) -> bool:
    """Whether short options such as `-n`, `-an` include -n before a letter taking a value."""
    if not word.startswith("-") or word.startswith("--"):
        return False
    for letter in word[1:]:
        if letter in "mFcCtS":
            return False
        if letter == "n":
            return True
    return False
