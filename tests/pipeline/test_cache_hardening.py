"""Issue 31, the cache: integers beyond 64 bits, special files in the cache directory,
entries keyed by a line's content (not its number)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from helpers import ROOT, make_trace, response, tool_call


def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def _policy(tmp: Path) -> Path:
    policy = tmp / "policy.json"
    policy.write_text(json.dumps({"policy_id": "p", "allow_unlisted_tools": True}))
    return policy


def _reports(tmp: Path, traces: Path, *how: str) -> tuple[int, str, bytes, bytes]:
    json_out, sarif_out = tmp / "r.json", tmp / "r.sarif"
    policy = () if "--policy" in how else ("--policy", str(_policy(tmp)))
    args = ["validate", *policy, str(traces), "--show", "summary", "--json-out", str(json_out)]
    code, out, err = _cli([*args, "--sarif-out", str(sarif_out), *how])
    assert "internal error" not in err, err
    return code, out, json_out.read_bytes(), sarif_out.read_bytes()


def _hits(console: str) -> int:
    [line] = [x for x in console.splitlines() if x.startswith("cache: ")]
    return int(line.split()[1])


def test_integers_beyond_64_bits_are_judged_with_the_cache(tmp_path: Path) -> None:
    big = 2**70
    trace = make_trace(tool_call("c1", "lookup", {"id": big}, output={"n": -big}))
    trace["outcome"] = {"success": True, "reward": big}
    traces = tmp_path / "t.jsonl"
    traces.write_text(json.dumps(trace) + "\n" + json.dumps(make_trace(response("r1"))) + "\n")
    plain = _reports(tmp_path, traces)
    cache = ("--cache", str(tmp_path / "cache"))
    for _ in range(2):
        code, out, *reports = _reports(tmp_path, traces, *cache)
        assert (code, *reports) == (plain[0], *plain[2:])
    assert _hits(out) == 1  # the other trace's entry is reused; the big one judged again


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("as_url", [False, True], ids=["path", "file-url"])
def test_a_fifo_in_the_cache_is_a_miss_not_a_hang(tmp_path: Path, as_url: bool) -> None:
    """A FIFO in place of an entry: on a local path, and behind a `file://` URL (which
    is read as the local path it names, not through fsspec)."""
    traces = tmp_path / "t.jsonl"
    lines = [json.dumps(make_trace(response(f"r{n}"), trace_id=f"t{n}")) for n in range(3)]
    traces.write_text("\n".join(lines) + "\n")
    cache = tmp_path / "my cache"
    where = cache.as_uri() if as_url else str(cache)
    args = ["validate", "--policy", str(_policy(tmp_path)), str(traces), "--cache", where]
    args += ["--show", "summary"]
    first = _cli(args)
    entries = [p for p in (cache / "v1").glob("*/*") if p.is_file()]
    assert entries
    for entry in [*entries, cache / "v1" / "size"]:
        entry.unlink(missing_ok=True)
        os.mkfifo(entry)
    # In a child process: a hang fails the test by its timeout, not the whole suite.
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-m", "agent_reliability_harness", *args],
        capture_output=True, text=True, timeout=60, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == first[0], done.stderr
    assert "cache: 0 of 3" in done.stdout


def test_a_line_inserted_above_keeps_every_later_entry(
    tmp_path: Path, bench_corpus: tuple[Path, Path]
) -> None:
    """Entries are keyed by a line's bytes, not its number: a trace moved down a line is
    taken from the cache, its line positions (SARIF) moved with it."""
    policy, traces = bench_corpus
    lines = traces.read_text().splitlines()[:60]
    store = tmp_path / "store.jsonl"
    store.write_text("\n".join(lines) + "\n")
    cache = ("--cache", str(tmp_path / "cache"))
    base = ("--policy", str(policy), "--show", "all")
    _reports(tmp_path, store, *base, *cache)
    new = json.loads(lines[0])
    new["trace_id"] = "inserted"
    store.write_text("\n".join([json.dumps(new), *lines]) + "\n")
    code, out, *reports = _reports(tmp_path, store, *base, *cache)
    assert _hits(out) == 60
    plain = _reports(tmp_path, store, *base)
    assert (code, *reports) == (plain[0], *plain[2:])
    assert out.replace("cache: 60 of 61 traces from the cache\n", "") == plain[1]
