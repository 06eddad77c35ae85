"""Measuring helpers for the benchmark runner: timed subprocesses with peak RSS,
JSON decoder baselines, in-process throughput and the metamorphic transforms.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ARH = [sys.executable, "-m", "agent_reliability_harness"]


@dataclass(frozen=True)
class Run:
    """One finished process: exit code, wall and CPU seconds, peak RSS in bytes."""

    code: int
    wall: float
    cpu: float
    peak_rss: int
    stderr: str


def run_arh(args: list[str], cwd: Path | None = None) -> Run:
    """`arh ARGS` in a child process; peak RSS covers its worker processes too.

    Started through a small launcher (this file run as a script): a child's peak
    RSS counts the memory of the process that forked it, and the runner itself
    holds whole corpora at times.
    """
    launcher = [sys.executable, __file__, str(cwd or Path.cwd()), *ARH, *args]
    done = subprocess.run(launcher, capture_output=True, text=True, check=True)
    return Run(**json.loads(done.stdout))


def _launch(cwd: str, command: list[str]) -> dict[str, Any]:
    start = time.perf_counter()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(
            command, cwd=cwd, stdout=null, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
        )
        assert proc.stderr is not None
        err = proc.stderr.read().decode("utf-8", "replace")
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {
        "code": proc.returncode,
        "wall": time.perf_counter() - start,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak_rss": usage.ru_maxrss * 1024,
        "stderr": err[-2000:],
    }


def decoders() -> dict[str, Callable[[bytes], Any]]:
    """The JSON decoders to compare: stdlib json and whichever fast ones are installed."""
    found: dict[str, Callable[[bytes], Any]] = {"json (stdlib)": json.loads}
    try:
        import orjson  # noqa: PLC0415

        found["orjson"] = orjson.loads
    except ImportError:
        pass
    try:
        import msgspec  # noqa: PLC0415

        found["msgspec"] = msgspec.json.Decoder().decode
    except ImportError:
        pass
    return found


def decode_times(path: Path, repeat: int = 3) -> dict[str, float]:
    """Best-of-`repeat` seconds for each decoder to decode every line of a JSONL file."""
    lines = path.read_bytes().splitlines()
    times: dict[str, float] = {}
    for name, decode in decoders().items():
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            for line in lines:
                decode(line)
            best = min(best, time.perf_counter() - start)
        times[name] = best
    return times


def in_process(policy_path: Path, corpus: Path) -> tuple[float, float, int]:
    """Wall and CPU seconds to evaluate a JSONL file in this process (JSON text built,
    nothing written), and the number of traces."""
    from agent_reliability_harness import pipeline  # noqa: PLC0415
    from agent_reliability_harness.api import load_policy  # noqa: PLC0415

    needs = pipeline.Needs(pieces=(pipeline.sinks.JSON_PIECE,))
    plan = pipeline.WorkPlan((load_policy(str(policy_path)),), needs=needs)
    start, cpu = time.perf_counter(), time.process_time()
    units = pipeline.input_units([str(corpus)], pipeline.RunOptions())
    partials = pipeline.InProcess().map(plan, pipeline.chunked(units))
    count = sum(p.traces for p in partials)
    return time.perf_counter() - start, time.process_time() - cpu, count


def profile_by_module(policy_path: Path, corpus: Path) -> list[tuple[str, float]]:
    """cProfile of the in-process run: own time summed per source module, largest first."""
    import cProfile  # noqa: PLC0415
    import pstats  # noqa: PLC0415

    profiler = cProfile.Profile()
    profiler.runcall(in_process, policy_path, corpus)
    totals: dict[str, float] = {}
    raw: dict[Any, Any] = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    for (filename, _line, name), (_cc, _nc, own, _cum, _callers) in raw.items():
        if "agent_reliability_harness" in filename:
            key = "arh/" + filename.split("agent_reliability_harness/")[-1]
        elif filename == "~":
            key = f"C: {name}" if "decode" in name or "Match" in name else "C: other builtins"
        else:
            key = "stdlib: " + Path(filename).name
        totals[key] = totals.get(key, 0.0) + own
    return sorted(totals.items(), key=lambda kv: -kv[1])


def phase_times(policy_path: Path, corpus: Path, count: int = 3000) -> dict[str, float]:
    """CPU microseconds per trace of each phase over the first `count` lines of a JSONL
    corpus, without a profiler's distortion: best of 3 passes per phase. Keys: the plain
    decode, the decode into Trace, the whole evaluation, each rule (and "facts"), and the
    report fragment."""
    import gc  # noqa: PLC0415

    import msgspec  # noqa: PLC0415

    from agent_reliability_harness.api import load_policy  # noqa: PLC0415
    from agent_reliability_harness.engine import Evaluator  # noqa: PLC0415
    from agent_reliability_harness.models.trace import decode_trace_json  # noqa: PLC0415
    from agent_reliability_harness.render.json_ import report_element  # noqa: PLC0415
    from agent_reliability_harness.rules import (  # noqa: PLC0415
        RuleContext,
        TraceFacts,
        all_rules,
    )

    with corpus.open("rb") as handle:
        lines = [line for _, line in zip(range(count), handle, strict=False)]
    policy = load_policy(str(policy_path))
    evaluator = Evaluator(policy)
    plain = msgspec.json.Decoder().decode
    traces = [decode_trace_json(line) for line in lines]
    assert all(t is not None for t in traces)
    reports = [evaluator.evaluate(t) for t in traces]  # type: ignore[arg-type]

    def best(work: Callable[[], object]) -> float:
        times = []
        for _ in range(3):
            start = time.process_time()
            work()
            times.append(time.process_time() - start)
        return min(times) * 1e6 / len(lines)

    out: dict[str, float] = {}
    enabled = gc.isenabled()
    gc.disable()
    try:
        out["decode (msgspec, dicts)"] = best(lambda: [plain(line) for line in lines])
        out["decode into Trace"] = best(lambda: [decode_trace_json(line) for line in lines])
        out["evaluate (all rules, scoring, report)"] = best(
            lambda: [evaluator.evaluate(t) for t in traces]  # type: ignore[arg-type]
        )
        out["render JSON fragment"] = best(lambda: [report_element(r) for r in reports])
        out["facts"] = best(lambda: [TraceFacts(t) for t in traces])  # type: ignore[arg-type]
        # Rules in evaluation order over fresh facts, so a table that several rules share
        # is charged to the first rule that builds it, as in a real run.
        for _ in range(3):
            contexts = [RuleContext(t, policy, TraceFacts(t)) for t in traces]  # type: ignore[arg-type]
            for rule in (r for r in all_rules() if r.applies(policy)):
                compiled = rule.compile(policy) if rule.compile else policy
                start = time.process_time()
                for ctx in contexts:
                    if rule.check is not None:
                        rule.check(ctx)
                    elif rule.state is not None:
                        state = rule.state(compiled)
                        state.scan(ctx)
                        state.finish(ctx)
                spent = (time.process_time() - start) * 1e6 / len(lines)
                out[rule.rule_id] = min(out.get(rule.rule_id, spent), spent)
    finally:
        if enabled:
            gc.enable()
    return out


# Metamorphic transforms: each maps a trace (dict) to one that must get the same verdict.


def reorder_arguments(trace: dict[str, Any]) -> dict[str, Any]:
    out = dict(reversed(list(trace.items())))
    out["steps"] = [
        {**step, "arguments": dict(reversed(list(step["arguments"].items())))}
        if isinstance(step.get("arguments"), dict)
        else step
        for step in trace["steps"]
    ]
    return out


def rename_trace(trace: dict[str, Any]) -> dict[str, Any]:
    return {**trace, "trace_id": "renamed-" + trace["trace_id"]}


def extra_metadata(trace: dict[str, Any]) -> dict[str, Any]:
    steps = [{**s, "metadata": {**s.get("metadata", {}), "host": "h1"}} for s in trace["steps"]]
    metadata = {**trace.get("metadata", {}), "region": "eu", "run": {"attempt": 2}}
    return {**trace, "metadata": metadata, "x_unknown": [1, 2], "steps": steps}


def reorder_keys(value: Any) -> Any:
    """Every object's keys in reverse order, at every depth (lists keep their order)."""
    if isinstance(value, dict):
        return {k: reorder_keys(v) for k, v in reversed(list(value.items()))}
    if isinstance(value, list):
        return [reorder_keys(v) for v in value]
    return value


def comparable(report: dict[str, Any], drop: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """The per-trace reports of a JSON report, without the named keys."""
    return [{k: v for k, v in r.items() if k not in drop} for r in report["reports"]]


def rss_mb(value: int) -> str:
    return f"{value / 2**20:,.1f} MB"


if __name__ == "__main__":  # the launcher: python measure.py CWD COMMAND...
    print(json.dumps(_launch(sys.argv[1], sys.argv[2:])))
