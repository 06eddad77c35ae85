"""`--cache DIR`: reports byte-identical to a run without cache (every format, every
executor), reuse of unchanged traces, invalidation, and a cache that is damaged, shared
by concurrent runs, read-only or full."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_reliability_harness import api, version
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.pipeline import executors
from agent_reliability_harness.pipeline.cache_store import open_store
from agent_reliability_harness.render import file_renderers
from helpers import ROOT, SAMPLES, make_trace, response

FIX = ROOT / "tests" / "adapters" / "fixtures"
CACHE_LINE = "cache: "


def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def _outputs(
    policy: Path, paths: list[str], how: list[str], out_dir: Path
) -> tuple[int, str, str, dict[str, bytes]]:
    """Exit code, console, stderr and every report format of one run."""
    out_dir.mkdir()
    targets = [(f"--{r.name}-out", out_dir / f"report.{r.name}") for r in file_renderers("run")]
    args = ["validate", "--policy", str(policy), *paths, *how]
    for flag, target in targets:
        args += [flag, str(target)]
    code, out, err = _cli(args)
    return code, out, err, {flag: target.read_bytes() for flag, target in targets}


def _hits(console: str) -> tuple[int, int]:
    """(traces from the cache, traces) from the console's cache line."""
    [line] = [x for x in console.splitlines() if x.startswith(CACHE_LINE)]
    words = line.split()
    return int(words[1]), int(words[3])


def _without_cache_line(console: str) -> str:
    return "".join(x for x in console.splitlines(keepends=True) if not x.startswith(CACHE_LINE))


def _split_export(target: Path) -> None:
    """The otel-genai retry export, one span per JSONL line (batches joined by the reader),
    with a truncated line inside and a canonical trace after it."""
    export = json.loads((FIX / "otel-genai/retry.json").read_text(encoding="utf-8"))
    rs = export["resourceSpans"][0]
    scope = rs["scopeSpans"][0]
    lines = [
        json.dumps({"resourceSpans": [dict(rs, scopeSpans=[dict(scope, spans=[span])])]})
        for span in scope["spans"]
    ]
    whole = [*lines, json.dumps(make_trace(response("s1"), trace_id="plain"))]
    broken = [*lines[:2], lines[2][:30], *lines[2:]]
    target.write_text("\n".join([*whole, *broken, *whole]) + "\n")


@pytest.fixture
def inputs(tmp_path: Path, bench_corpus: tuple[Path, Path]) -> list[str]:
    """The generated corpus, the samples, split span exports and broken inputs."""
    _, traces = bench_corpus
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "nan.json").write_text('{"trace_id": NaN}')
    lines = traces.read_text().splitlines()
    (bad / "mixed.jsonl").write_text("\n".join([*lines[:20], "{oops", *lines[20:40]]) + "\n")
    _split_export(bad / "spans.jsonl")
    return [str(traces), str(SAMPLES / "traces"), str(bad), str(tmp_path / "missing.json")]


def test_a_cached_run_writes_the_bytes_of_a_run_without_cache(
    inputs: list[str], bench_corpus: tuple[Path, Path], tmp_path: Path
) -> None:
    policy, _ = bench_corpus
    cache = ["--cache", str(tmp_path / "cache")]
    plain = _outputs(policy, inputs, [], tmp_path / "plain")
    first = _outputs(policy, inputs, cache, tmp_path / "first")
    again = _outputs(policy, inputs, cache, tmp_path / "again")
    code, console, err, reports = plain
    assert code == 1 and "error: " in err and CACHE_LINE not in console
    for run in (first, again):
        assert run[0] == code and run[2] == err and run[3] == reports
        assert _without_cache_line(run[1]) == console
    total = json.loads(reports["--json-out"])["summary"]["total_traces"]
    assert _hits(first[1]) == (0, total)
    assert _hits(again[1]) == (total, total)


def test_every_executor_reads_and_writes_one_cache(
    inputs: list[str],
    bench_corpus: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    policy, _ = bench_corpus
    cache = ["--cache", str(tmp_path / "cache")]
    monkeypatch.setattr(executors, "CHUNK_BYTES", 50_000)  # many chunks, many ranges
    monkeypatch.setattr(executors, "CHUNK_UNITS", 7)
    plain = _outputs(policy, inputs, ["--jobs", "2"], tmp_path / "plain")
    pooled = _outputs(policy, inputs, ["--jobs", "2", *cache], tmp_path / "pooled")
    alone = _outputs(policy, inputs, ["--jobs", "1", *cache], tmp_path / "alone")
    pooled_again = _outputs(policy, inputs, ["--jobs", "2", *cache], tmp_path / "again")
    total = json.loads(plain[3]["--json-out"])["summary"]["total_traces"]
    for run, hits in ((pooled, 0), (alone, total), (pooled_again, total)):
        assert (run[0], run[2], run[3]) == (plain[0], plain[2], plain[3])
        assert _without_cache_line(run[1]) == plain[1]
        assert _hits(run[1]) == (hits, total)


def _corpus_copy(bench_corpus: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path]:
    policy, traces = bench_corpus
    mine = tmp_path / "traces.jsonl"
    mine.write_bytes(traces.read_bytes())
    own = tmp_path / "policy.json"
    own.write_bytes(policy.read_bytes())
    return own, mine


def _run(policy: Path, traces: Path, cache: Path) -> tuple[tuple[int, int], bytes]:
    code, out, _ = _cli(
        [
            *("validate", "--policy", str(policy), str(traces), "--show", "summary"),
            *("--cache", str(cache), "--json-out", str(cache.parent / "r.json")),
        ]
    )
    assert code in (0, 1)
    return _hits(out), (cache.parent / "r.json").read_bytes()


def _plain(policy: Path, traces: Path) -> bytes:
    _, out, _ = _cli(
        ["validate", "--policy", str(policy), str(traces), "--json-out", "-", "--quiet"]
    )
    return out.encode()


def test_a_changed_trace_is_evaluated_again(
    bench_corpus: tuple[Path, Path], tmp_path: Path
) -> None:
    policy, traces = _corpus_copy(bench_corpus, tmp_path)
    cache = tmp_path / "cache"
    assert _run(policy, traces, cache)[0] == (0, 300)
    lines = traces.read_text().splitlines()
    changed = json.loads(lines[7])
    changed["steps"][0]["output"] = "My SSN is 123-45-6789"
    lines[7] = json.dumps(changed)
    traces.write_text("\n".join(lines) + "\n")
    hits, report = _run(policy, traces, cache)
    assert hits == (299, 300)
    assert report == _plain(policy, traces)


def test_policy_edits_whitespace_keeps_the_cache_a_verdict_change_does_not(
    bench_corpus: tuple[Path, Path], tmp_path: Path
) -> None:
    policy, traces = _corpus_copy(bench_corpus, tmp_path)
    cache = tmp_path / "cache"
    _run(policy, traces, cache)
    data = json.loads(policy.read_text())
    policy.write_text(json.dumps(data, indent=7) + "\n\n")
    assert _run(policy, traces, cache)[0] == (300, 300)
    before = _plain(policy, traces)
    data["budgets"]["max_total_cost_usd"] = 0.0001  # fails traces that passed
    policy.write_text(json.dumps(data))
    hits, report = _run(policy, traces, cache)
    assert hits == (0, 300)
    assert report == _plain(policy, traces) != before


def test_an_arh_upgrade_invalidates(
    bench_corpus: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    policy, traces = _corpus_copy(bench_corpus, tmp_path)
    cache = tmp_path / "cache"
    _run(policy, traces, cache)
    monkeypatch.setattr(version, "__version__", "99.0.0")
    assert _run(policy, traces, cache)[0] == (0, 300)
    assert _run(policy, traces, cache)[0] == (300, 300)


def _entries(cache: Path) -> list[Path]:
    """The entry files (in the shard directories; not the size tally beside them)."""
    return [p for p in (cache / "v1").glob("*/*") if p.is_file()]


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty"])
def test_a_damaged_entry_is_a_miss(
    bench_corpus: tuple[Path, Path], tmp_path: Path, damage: str
) -> None:
    policy, traces = _corpus_copy(bench_corpus, tmp_path)
    cache = tmp_path / "cache"
    _, expected = _run(policy, traces, cache)
    entries = sorted(_entries(cache))
    for entry in entries[::3]:
        data = entry.read_bytes()
        if damage == "flip":
            data = data[:-5] + bytes([data[-5] ^ 0x20]) + data[-4:]
        entry.write_bytes(
            data[: len(data) // 2] if damage == "truncate" else b"" if damage == "empty" else data
        )
    hits, report = _run(policy, traces, cache)
    assert hits == (300 - len(entries[::3]), 300)
    assert report == expected
    assert _run(policy, traces, cache)[0] == (300, 300)  # rewritten


def test_two_concurrent_runs_share_one_cache(
    bench_corpus: tuple[Path, Path], tmp_path: Path
) -> None:
    policy, traces = _corpus_copy(bench_corpus, tmp_path)
    cache = tmp_path / "cache"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    runs = [
        subprocess.Popen(
            [
                *(sys.executable, "-m", "agent_reliability_harness", "validate", "--policy"),
                *(str(policy), str(traces), "--cache", str(cache), "--quiet"),
                *("--json-out", str(tmp_path / f"r{n}.json")),
            ],
            env=env,
        )
        for n in range(2)
    ]
    assert [run.wait(timeout=300) for run in runs] == [1, 1]
    expected = _plain(policy, traces)
    assert (tmp_path / "r0.json").read_bytes() == expected
    assert (tmp_path / "r1.json").read_bytes() == expected
    assert not list((cache / "v1").rglob(".tmp-*"))
    hits, report = _run(policy, traces, cache)
    assert hits == (300, 300) and report == expected


def test_a_cache_that_cannot_be_written_is_one_warning(
    bench_corpus: tuple[Path, Path], tmp_path: Path
) -> None:
    policy, traces = _corpus_copy(bench_corpus, tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    cache = blocker / "cache"
    args = ["validate", "--policy", str(policy), str(traces), "--json-out", "-", "--quiet"]
    code, out, err = _cli([*args, "--cache", str(cache)])
    assert (code, out.encode()) == (1, _plain(policy, traces))  # the verdict's exit code
    assert (
        err == f"warning: cache {cache}: cannot write: Not a directory; running without the cache\n"
    )
    with pytest.warns(RuntimeWarning, match="running without the cache"):
        report = api.validate_paths([str(traces)], api.load_policy(str(policy)), cache=str(cache))
    assert report.summary.total_traces == 300


def test_a_cache_url_that_cannot_be_opened_is_one_warning() -> None:
    args = ["validate", "--policy", str(SAMPLES / "policy.json"), str(SAMPLES / "traces")]
    args += ["--json-out", "-", "--quiet"]
    code, out, _ = _cli(args)
    why = "cannot open: Protocol not known: nosuch"
    assert _cli([*args, "--cache", "nosuch://cache"]) == (
        code,
        out,
        f"warning: cache nosuch://cache: {why}; running without the cache\n",
    )
    assert _cli(["cache", "stats", "nosuch://cache"]) == (1, "", f"error: {why}\n")


def test_the_cache_stays_within_its_size_least_recently_used_out(
    bench_corpus: tuple[Path, Path], tmp_path: Path
) -> None:
    policy, traces = _corpus_copy(bench_corpus, tmp_path)
    cache = tmp_path / "cache"
    _run(policy, traces, cache)
    code, out, _ = _cli(["cache", "stats", str(cache)])
    entries, size = (int(line.split()[1]) for line in out.splitlines())
    assert (code, entries) == (0, 300)
    for entry in _entries(cache):  # every entry last used long ago
        os.utime(entry, (1_000_000, 1_000_000))
    lines = traces.read_text().splitlines()
    for number in range(100):  # 100 new traces: 200 entries used again, 100 not
        changed = json.loads(lines[number])
        changed["trace_id"] += "-new"
        lines[number] = json.dumps(changed)
    traces.write_text("\n".join(lines) + "\n")
    args = ["validate", "--policy", str(policy), str(traces), "--show", "summary"]
    code, out, _ = _cli([*args, "--cache", str(cache), "--cache-max-size", str(size)])
    assert _hits(out) == (200, 300)
    left = _entries(cache)
    assert sum(p.stat().st_size for p in left) <= size
    recent = [p for p in left if p.stat().st_mtime > 1_000_000]
    assert len(recent) == 300  # 200 used again and 100 new: kept; the unused went first
    assert len(left) < 400
    assert _run(policy, traces, cache)[0] == (300, 300)
    count = len(_entries(cache))
    assert _cli(["cache", "clear", str(cache)])[:2] == (0, f"removed {count} entries\n")
    assert _cli(["cache", "stats", str(cache)])[1] == "entries: 0\nbytes: 0\n"


def test_api_cache_on_an_fsspec_url(bench_corpus: tuple[Path, Path]) -> None:
    pytest.importorskip("fsspec")
    policy_path, traces = bench_corpus
    policy = api.load_policy(str(policy_path))
    plain = api.report_json(api.validate_paths([str(traces)], policy))
    url = "memory://arh-cache-test"
    first = api.validate_paths([str(traces)], policy, cache=url)
    again = api.validate_paths([str(traces)], policy, cache=api.CacheOptions(url))
    assert api.report_json(first) == api.report_json(again) == plain
    args = ["validate", "--policy", str(policy_path), str(traces), "--show", "summary"]
    assert _hits(_cli([*args, "--cache", url])[1]) == (300, 300)
    assert open_store(url).stats().entries == 300
    assert open_store(url).clear() == 300


def test_dask_workers_read_and_write_the_cache(
    scheduler: str,
    inputs: list[str],
    bench_corpus: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("distributed")
    policy, _ = bench_corpus
    cache = ["--cache", str(tmp_path / "cache")]
    monkeypatch.setattr(executors, "CHUNK_BYTES", 50_000)
    monkeypatch.setattr(executors, "CHUNK_UNITS", 7)
    plain = _outputs(policy, inputs, ["--jobs", "1"], tmp_path / "plain")
    on_dask = _outputs(policy, inputs, ["--dask", scheduler, *cache], tmp_path / "dask")
    here = _outputs(policy, inputs, ["--jobs", "1", *cache], tmp_path / "here")
    again = _outputs(policy, inputs, ["--dask", scheduler, *cache], tmp_path / "again")
    total = json.loads(plain[3]["--json-out"])["summary"]["total_traces"]
    for run, hits in ((on_dask, 0), (here, total), (again, total)):
        assert (run[0], run[2], run[3]) == (plain[0], plain[2], plain[3])
        assert _without_cache_line(run[1]) == plain[1]
        assert _hits(run[1]) == (hits, total)


def _pool() -> list[str]:
    """JSONL lines of every kind: traces, batches of one span export, unreadable lines."""
    export = json.loads((FIX / "otel-genai/retry.json").read_text(encoding="utf-8"))
    rs = export["resourceSpans"][0]
    scope = rs["scopeSpans"][0]
    batches = [
        json.dumps({"resourceSpans": [dict(rs, scopeSpans=[dict(scope, spans=[span])])]})
        for span in scope["spans"]
    ]
    traces = [json.dumps(make_trace(response(f"s{n}"), trace_id=f"t{n}")) for n in range(3)]
    return [*traces, *batches[:3], "{oops", batches[0][:25]]


POOL = _pool()
LINES = st.lists(st.integers(0, len(POOL) - 1), min_size=1, max_size=12)


@settings(max_examples=15, deadline=None)
@given(LINES, st.lists(st.tuples(st.integers(0, 11), st.integers(0, len(POOL) - 1)), max_size=4))
def test_any_mix_of_lines_gives_the_uncached_bytes(
    first: list[int], edits: list[tuple[int, int]]
) -> None:
    """Whatever the lines and whatever a previous run left in the cache, a cached run
    writes what a run without cache writes."""
    second = list(first)
    for at, line in edits:
        if at < len(second):
            second[at] = line
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        policy = work / "policy.json"
        policy.write_text(json.dumps({"policy_id": "p", "allow_unlisted_tools": True}))
        traces = work / "mix.jsonl"
        base = ["validate", "--policy", str(policy), str(traces), "--json-out", "-"]
        cache = ["--cache", str(work / "cache"), "--show", "all"]
        for chosen in (first, second):
            traces.write_text("".join(POOL[n] + "\n" for n in chosen))
            plain = _cli([*base, "--show", "all"])
            cached = _cli([*base, *cache])
            assert (cached[0], _without_cache_line(cached[1]), cached[2]) == plain


def test_a_cache_size_without_a_cache_is_misuse(bench_corpus: tuple[Path, Path]) -> None:
    policy, traces = bench_corpus
    args = ["validate", "--policy", str(policy), str(traces), "--cache-max-size", "1M"]
    assert _cli(args) == (2, "", "error: --cache-max-size needs --cache DIR\n")


def test_the_size_tally_follows_the_entries_without_a_scan(
    bench_corpus: tuple[Path, Path], tmp_path: Path
) -> None:
    policy, traces = _corpus_copy(bench_corpus, tmp_path)
    cache = tmp_path / "cache"
    _run(policy, traces, cache)  # no tally yet: entries scanned, tally written
    store = open_store(str(cache))
    tally = cache / "v1" / "size"
    assert int(tally.read_bytes()) == store.stats().size
    lines = traces.read_text().splitlines()
    lines[3] = lines[3].replace('"trace_id":"', '"trace_id":"x', 1)
    traces.write_text("\n".join(lines) + "\n")
    assert _run(policy, traces, cache)[0] == (299, 300)
    assert int(tally.read_bytes()) == store.stats().size  # one entry more, counted
    assert store.clear() == 301 and not tally.exists()
