"""Codex CLI rollout values: the text parts of a message and what a call's output says
about how the call ended."""

from __future__ import annotations

import re
from typing import Any

from ...errors import InputError
from ...io import decode_json
from ..core.common import opt_amount

TEXT_PARTS = ("input_text", "output_text", "text", "summary_text", "reasoning_text")
_EXIT_CODE = re.compile(r"^(?:Exit code: |Process exited with code )(-?\d{1,10})\s*$", re.MULTILINE)
_WALL_TIME = re.compile(r"^Wall time: ([0-9]{1,9}(?:\.[0-9]{1,9})?) seconds\s*$", re.MULTILINE)
# The texts codex-rs (core/src/codex.rs, 0.2x-0.4x) answers a call it could not run with:
# the output payload's `success` flag is not written to the rollout, only this text.
_REFUSED = re.compile(
    r"failed in sandbox \w{1,40} with execution error: .*|execution error: .*"
    r"|patch rejected by user|exec command rejected by user"
    r"|command timed out after \d{1,12} milliseconds",
    re.DOTALL,
)


def texts(parts: Any) -> list[str]:
    """The text of the text parts of a message content (a string is its own text)."""
    if isinstance(parts, str):
        return [parts] if parts else []
    if not isinstance(parts, list):
        return []
    return [
        p["text"]
        for p in parts
        if isinstance(p, dict) and p.get("type") in TEXT_PARTS and isinstance(p.get("text"), str)
    ]


def parse_output(raw: Any) -> tuple[Any, bool | None, str | None, float | None]:
    """(output, failed, error, seconds) of a call output. Codex wrote shell results as a
    JSON string {output, metadata: {exit_code, duration_seconds}}, later as text that
    starts with "Exit code: N" and "Wall time: S seconds"; a call Codex could not run
    (sandbox denial, spawn failure, rejected patch, timeout) is answered with its own text."""
    if isinstance(raw, list):
        parts = texts(raw)
        return ("\n".join(parts) if len(parts) == len(raw) else raw), None, None, None
    if isinstance(raw, dict):
        failed = raw.get("success") is False if "success" in raw else None
        content = raw.get("content", raw)
        return content, failed, ("tool reported failure" if failed else None), None
    if not isinstance(raw, str):
        return raw, None, None, None
    if raw.startswith("{"):
        try:
            decoded = decode_json(raw)
        except InputError:
            decoded = None
        meta = decoded.get("metadata") if isinstance(decoded, dict) else None
        if isinstance(meta, dict) and "output" in decoded:
            code = meta.get("exit_code")
            seconds = opt_amount(meta, "duration_seconds", "output.metadata")
            if isinstance(code, int) and not isinstance(code, bool):
                failed = code != 0
                return decoded["output"], failed, f"exit code {code}" if failed else None, seconds
            return decoded["output"], None, None, seconds
    head = raw[:2000]
    found = _EXIT_CODE.search(head)
    wall = _WALL_TIME.search(head)
    seconds = float(wall.group(1)) if wall else None
    if found:
        code = int(found.group(1))
        return raw, code != 0, f"exit code {code}" if code != 0 else None, seconds
    if _REFUSED.fullmatch(raw):
        return raw, True, raw.split("\n", 1)[0][:500], None
    return raw, None, None, seconds
