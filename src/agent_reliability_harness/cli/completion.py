"""Shell completion scripts (bash, zsh) built from the argparse parser itself, so every
subcommand, flag and choice the parser knows is completed and nothing else is.

`commands(parser)` reads the parser into plain data; `bash_script` and `zsh_script`
write it out. A flag whose metavar names a file (FILE, POLICY, REPORT, PATH) and the
positional paths complete file names; flags with choices complete their choices.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass

# Metavars whose values are files or directories.
_FILE_METAVARS = frozenset({"FILE", "POLICY", "REPORT", "PATH"})


@dataclass(frozen=True, slots=True)
class Flag:
    """One option: its spellings, whether it takes a value, and how the value completes
    ("file", "choice", or "" for free text); `repeat` when it may be given again."""

    names: tuple[str, ...]
    help: str
    value: str | None  # the metavar, or None for a switch
    kind: str = ""
    choices: tuple[str, ...] = ()
    repeat: bool = False


@dataclass(frozen=True, slots=True)
class Command:
    """One subcommand: its flags and what its positionals complete (files or choices)."""

    name: str
    help: str
    flags: tuple[Flag, ...]
    positional: str = ""  # "file", "choice" or ""
    choices: tuple[str, ...] = ()
    many: bool = False  # positionals take several words


def _first_sentence(text: str | None, limit: int = 80) -> str:
    """The help text's first clause, without asides in parentheses, at most `limit` long."""
    text = re.sub(r"\s*\([^)]*\)", "", " ".join((text or "").split()))
    text = re.split(r"(?<=\w)[.;:]\s", text, maxsplit=1)[0].rstrip(".;:")
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def _flag(action: argparse.Action) -> Flag:
    names = tuple(action.option_strings)
    help_text = _first_sentence(action.help)
    repeat = isinstance(action, argparse._AppendAction)
    if action.nargs == 0:
        return Flag(names, help_text, None, repeat=repeat)
    metavar = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
    if action.choices:
        return Flag(names, help_text, metavar, "choice", tuple(map(str, action.choices)), repeat)
    kind = "file" if metavar in _FILE_METAVARS else ""
    return Flag(names, help_text, metavar, kind, repeat=repeat)


def _command(name: str, help_text: str, parser: argparse.ArgumentParser) -> Command:
    flags: list[Flag] = []
    positional, many = "", False
    choices: tuple[str, ...] = ()
    for action in parser._actions:
        if action.option_strings:
            flags.append(_flag(action))
        elif action.choices:
            positional, choices = "choice", tuple(map(str, action.choices))
        else:
            positional = "file" if action.metavar in _FILE_METAVARS else ""
            many = action.nargs in ("+", "*")
    return Command(name, help_text, tuple(flags), positional, choices, many)


def commands(parser: argparse.ArgumentParser) -> tuple[Command, ...]:
    """Every subcommand of `parser` (built in full), in the order `arh --help` lists them."""
    found: list[Command] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                found.append(_command(name, helps.get(name, ""), sub))
    return tuple(found)


def top_flags(parser: argparse.ArgumentParser) -> tuple[Flag, ...]:
    """The options of `arh` itself (--help, --version)."""
    return tuple(_flag(a) for a in parser._actions if a.option_strings)


def _words(items: tuple[str, ...]) -> str:
    return " ".join(items)


def _bash_case(command: Command) -> list[str]:
    lines = [f"        {command.name})", '            case "$prev" in']
    for flag in command.flags:
        if flag.value is None:
            continue
        pattern = "|".join(flag.names)
        if flag.kind == "choice":
            action = f'COMPREPLY=($(compgen -W "{_words(flag.choices)}" -- "$cur"))'
        elif flag.kind == "file":
            action = 'COMPREPLY=($(compgen -f -- "$cur"))'
        else:
            action = "COMPREPLY=()"
        lines.append(f"                {pattern}) {action}; return ;;")
    options = _words(tuple(n for f in command.flags for n in f.names))
    lines += [
        "            esac",
        '            if [[ "$cur" == -* ]]; then',
        f'                COMPREPLY=($(compgen -W "{options}" -- "$cur"))',
    ]
    if command.positional == "choice":
        lines += [
            "            else",
            f'                COMPREPLY=($(compgen -W "{_words(command.choices)}" -- "$cur"))',
        ]
    elif command.positional == "file":
        lines += ["            else", '                COMPREPLY=($(compgen -f -- "$cur"))']
    lines += ["            fi", "            ;;"]
    return lines


def bash_script(parser: argparse.ArgumentParser) -> str:
    """A bash completion script: `source <(arh completion bash)`."""
    found = commands(parser)
    top = _words((*(c.name for c in found), *(n for f in top_flags(parser) for n in f.names)))
    lines = [
        "# bash completion for arh (generated by `arh completion bash`; regenerate after",
        "# an upgrade). Load it with: source <(arh completion bash)",
        "_arh() {",
        "    local cur prev cmd i",
        '    cur="${COMP_WORDS[COMP_CWORD]}"',
        '    prev="${COMP_WORDS[COMP_CWORD-1]}"',
        '    cmd=""',
        "    for ((i = 1; i < COMP_CWORD; i++)); do",
        '        case "${COMP_WORDS[i]}" in',
        "            -*) ;;",
        '            *) cmd="${COMP_WORDS[i]}"; break ;;',
        "        esac",
        "    done",
        '    case "$cmd" in',
        f'        "") COMPREPLY=($(compgen -W "{top}" -- "$cur")) ;;',
    ]
    for command in found:
        lines += _bash_case(command)
    lines += [
        "        *) COMPREPLY=() ;;",
        "    esac",
        "}",
        "complete -o filenames -o bashdefault -F _arh arh",
        "",
    ]
    return "\n".join(lines)


def _zq(text: str) -> str:
    """Text inside a single-quoted zsh word, with _arguments' specials escaped."""
    text = re.sub(r"([\[\]:\\])", r"\\\1", text)
    return text.replace("'", "'\\''")


def _zsh_flag(flag: Flag) -> list[str]:
    if flag.value is None:
        value = ""
    elif flag.kind == "choice":
        value = f":{_zq(flag.value)}:({' '.join(flag.choices)})"
    elif flag.kind == "file":
        value = f":{_zq(flag.value)}:_files"
    else:
        value = f":{_zq(flag.value)}: "
    eq = "" if flag.value is None else "="
    star = "*" if flag.repeat else ""
    return [f"'{star}{name}{eq}[{_zq(flag.help)}]{value}'" for name in flag.names]


def _zsh_case(command: Command) -> list[str]:
    specs = [spec for flag in command.flags for spec in _zsh_flag(flag)]
    if command.positional == "choice":
        specs.append(f"'1:{command.name}:({' '.join(command.choices)})'")
    elif command.positional == "file":
        specs.append("'*:path:_files'" if command.many else "'1:path:_files'")
    body = " \\\n            ".join(specs)
    return [
        f"        {command.name})",
        f"          _arguments -s \\\n            {body} && ret=0",
        "          ;;",
    ]


def zsh_script(parser: argparse.ArgumentParser) -> str:
    """A zsh completion script: save it as `_arh` in a directory on $fpath, or
    `source <(arh completion zsh)` after compinit."""
    found = commands(parser)
    described = [f"    '{_zq(c.name)}:{_zq(c.help)}'" for c in found]
    lines = [
        "#compdef arh",
        "# zsh completion for arh (generated by `arh completion zsh`; regenerate after",
        "# an upgrade). Save it as _arh on $fpath, or: source <(arh completion zsh)",
        "_arh() {",
        '  local curcontext="$curcontext" state line ret=1',
        "  typeset -A opt_args",
        "  _arguments -C \\",
        "    '(- *)--version[show the version]' \\",
        "    '(- *)'{-h,--help}'[show help]' \\",
        "    '1: :->command' \\",
        "    '*:: :->args' && ret=0",
        "  case $state in",
        "    command)",
        "      local -a commands",
        "      commands=(",
        *described,
        "      )",
        "      _describe -t commands 'arh command' commands && ret=0",
        "      ;;",
        "    args)",
        '      curcontext="${curcontext%:*:*}:arh-$line[1]:"',
        "      case $line[1] in",
    ]
    for command in found:
        lines += _zsh_case(command)
    lines += [
        "      esac",
        "      ;;",
        "  esac",
        "  return ret",
        "}",
        "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then",
        '  _arh "$@"',
        "else",
        "  compdef _arh arh",
        "fi",
        "",
    ]
    return "\n".join(lines)


SCRIPTS = {"bash": bash_script, "zsh": zsh_script}
