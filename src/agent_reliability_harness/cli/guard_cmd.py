"""`arh guard hook | serve | mcp`: the policy applied while the agent runs (docs/guard.md).
Parsing and exit codes only; the guard package does the rest, imported when used."""

from __future__ import annotations

import argparse
from typing import Any

from .common import EXIT_INPUT, EXIT_OK, EXIT_USAGE, Streams

DIALECTS = ("claude-code", "codex", "gemini")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "guard",
        help="apply a policy before each tool call (hooks, daemon, MCP proxy)",
        description="Apply a policy while the agent runs: allow or deny each tool call "
        "before it runs, from the session so far (docs/guard.md).",
    )
    modes = parser.add_subparsers(dest="mode", metavar="MODE", prog="arh guard")
    hook = modes.add_parser("hook", help="answer one hook event read on stdin")
    _common(hook)
    hook.add_argument(
        "--dialect",
        choices=DIALECTS,
        help="the agent's hook protocol (default: detected from the event)",
    )
    hook.add_argument(
        "--fail",
        choices=("closed", "open"),
        default="closed",
        help="on a fault: deny the call (closed, default) or allow it (open)",
    )
    hook.add_argument(
        "--timeout-ms",
        type=int,
        default=1000,
        metavar="MS",
        help="longest a decision may take before the fail rule (default 1000)",
    )
    hook.add_argument(
        "--approve",
        action="store_true",
        help="answer an allowed call with an explicit allow (Claude Code)",
    )
    hook.add_argument("--server", metavar="URL", help="ask a running `arh guard serve`")
    serve = modes.add_parser("serve", help="answer hook events over loopback HTTP")
    _common(serve)
    serve.add_argument("--port", type=int, default=8787, help="port on 127.0.0.1 (0: any free)")
    serve.add_argument(
        "--approve",
        action="store_true",
        help="answer an allowed call with an explicit allow (Claude Code)",
    )
    mcp = modes.add_parser("mcp", help="run a stdio MCP server behind the guard")
    _common(mcp)
    mcp.add_argument(
        "server",
        nargs=argparse.REMAINDER,
        metavar="-- COMMAND ...",
        help="the MCP server's command line, after --",
    )
    parser.set_defaults(handler=run)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--policy", required=True, metavar="FILE", help="the policy file")
    parser.add_argument(
        "--state", metavar="DIR", help="session state folder (default: ~/.cache/arh/guard)"
    )
    parser.add_argument(
        "--record",
        metavar="DIR",
        help="write each session as a canonical trace, DIR/<session>.jsonl",
    )


def run(args: argparse.Namespace, io: Streams) -> int:
    if args.mode == "hook":
        return _hook(args, io)
    if args.mode == "serve":
        from ..guard.hook import HookOptions  # noqa: PLC0415
        from ..guard.serve import serve  # noqa: PLC0415

        options = HookOptions(
            args.policy, state=args.state, record=args.record, approve=args.approve
        )
        return serve(options, args.port, io.err)
    if args.mode == "mcp":
        command = list(args.server)
        if command[:1] == ["--"]:
            command = command[1:]
        if not command:
            io.error("arh guard mcp: give the MCP server's command after --")
            return EXIT_USAGE
        from ..guard.mcp import proxy  # noqa: PLC0415

        return proxy(args.policy, command, args.record, io.err)
    io.error("arh guard: choose a mode: hook, serve or mcp")
    return EXIT_USAGE


def _hook(args: argparse.Namespace, io: Streams) -> int:
    from ..guard.hook import HookOptions, run_hook  # noqa: PLC0415

    options = HookOptions(
        policy=args.policy,
        dialect=args.dialect,
        state=args.state,
        fail_closed=args.fail == "closed",
        timeout_ms=max(1, args.timeout_ms),
        record=args.record,
        approve=args.approve,
    )
    text = io.stdin.read() if io.stdin is not None else b""
    reply = run_hook(options, text, args.server)
    io.out.write(reply.stdout)
    io.err.write(reply.stderr)
    return reply.code


__all__ = ["EXIT_INPUT", "EXIT_OK", "add_parser", "run"]
