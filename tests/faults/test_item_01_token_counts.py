"""Issue 18 item 1: a transcript with a token count of 10^309 (a valid JSON integer far
beyond the float range) must not crash its adapter: the file gets one clean error line
(or is read), and the good trace beside it is still validated and reported."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from faultkit import assert_clean, cli, good_trace, open_policy

from helpers import ROOT

FIXTURES = ROOT / "tests" / "adapters" / "fixtures"
HUGE = 10**309
_TOKEN_KEY = re.compile(r"token", re.IGNORECASE)


def _is_count(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int | float) or (isinstance(value, str) and value.isdigit())


def _poison(value: Any) -> int:
    """Set every token count in a transcript to 10^309 (a numeric string stays a string;
    everything under a key that names tokens counts); returns how many were set."""
    count = 0
    pending: list[tuple[Any, bool]] = [(value, False)]
    while pending:
        item, counts = pending.pop()
        if isinstance(item, list):
            pending.extend((child, counts) for child in item)
            continue
        if not isinstance(item, dict):
            continue
        if isinstance(item.get("key"), str) and _TOKEN_KEY.search(item["key"]):
            pending.append((item.get("value"), True))  # an OTLP attribute's value
        for key, child in item.items():
            inside = counts or bool(_TOKEN_KEY.search(key))
            if inside and _is_count(child):
                item[key] = str(HUGE) if isinstance(child, str) else HUGE
                count += 1
            else:
                pending.append((child, inside))
    return count


def _poisoned_fixture(fmt: str) -> tuple[str, bytes] | None:
    """The first fixture of a format that records token counts, with all of them 10^309."""
    for path in sorted((FIXTURES / fmt).iterdir()):
        if path.suffix not in (".json", ".jsonl"):
            continue  # binary twins (.eval, .pb, .binpb) of JSON fixtures
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".jsonl":
            lines = [json.loads(line) for line in text.splitlines() if line.strip()]
            if sum(_poison(line) for line in lines):
                return path.name, "".join(json.dumps(line) + "\n" for line in lines).encode()
        else:
            value = json.loads(text)
            if _poison(value):
                return path.name, json.dumps(value).encode()
    return None


FORMATS = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())


@pytest.mark.parametrize("fmt", FORMATS)
def test_huge_token_counts_never_crash_an_adapter(fmt: str, tmp_path: Path) -> None:
    found = _poisoned_fixture(fmt)
    if found is None:
        pytest.skip(f"{fmt} fixtures record no token counts")
    name, data = found
    traces = tmp_path / "traces"
    traces.mkdir()
    (traces / name).write_bytes(data)
    good_trace(traces)
    report = tmp_path / "report.json"
    code, _, err = cli(
        [
            "validate",
            "--policy",
            str(open_policy(tmp_path)),
            str(traces),
            "--quiet",
            "--json-out",
            str(report),
        ]
    )
    assert_clean(err, code, (0, 1))
    written = json.loads(report.read_text())
    assert "good" in [r["trace_id"] for r in written["reports"]]
    # The transcript was either read or refused with one error line naming it.
    assert len(err.splitlines()) <= 1
    assert not err or name in err
