"""What every fuzz target shares: the `fuzz` settings (brief in `make test`, as long as
you like with ARH_FUZZ_SECONDS), seed inputs from the repository, hostile values, byte and
JSON mutations, and the CLI's promises as one check.

    ARH_FUZZ_SECONDS=600 .venv/bin/pytest tests/fuzz -k trace_bytes -p no:randomly

runs one target for ten minutes (rounds of FUZZ_ROUND examples, new ones each round);
`make fuzz` runs every target for ARH_FUZZ_SECONDS each (default 60).
"""

from __future__ import annotations

import copy
import io
import json
import os
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "adapters" / "fixtures"
SECONDS = float(os.environ.get("ARH_FUZZ_SECONDS") or 0)
BRIEF = int(os.environ.get("ARH_FUZZ_EXAMPLES") or 20)
FUZZ_ROUND = 400

F = TypeVar("F", bound=Callable[..., None])
_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


def fuzz(examples: int = BRIEF) -> Callable[[F], F]:
    """Settings of a fuzz target (put above @given): `examples` examples, derandomized in
    CI by the suite's profile; with ARH_FUZZ_SECONDS set, rounds of new examples until
    that many seconds have passed (a failure stops it and is shrunk as usual)."""

    def wrap(test: F) -> F:
        if not SECONDS:
            return settings(max_examples=examples, suppress_health_check=_QUIET)(test)
        long = settings(
            max_examples=FUZZ_ROUND,
            derandomize=False,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )(test)

        # Count what really ran (hypothesis may stop a round early, and replays saved
        # examples first): the figure docs/fuzzing.md records.
        inner = long.hypothesis.inner_test  # type: ignore[attr-defined]
        executions = [0]

        def counted(*args: Any, **kwargs: Any) -> None:
            executions[0] += 1
            inner(*args, **kwargs)

        long.hypothesis.inner_test = counted  # type: ignore[attr-defined]

        def run() -> None:
            start = time.monotonic()
            end = start + SECONDS
            rounds = 0
            while rounds == 0 or time.monotonic() < end:
                long()
                rounds += 1
            print(
                f"{test.__name__}: {executions[0]} executions in {rounds} rounds, "
                f"{time.monotonic() - start:.0f} s, no finding"
            )

        run.__name__ = test.__name__
        run.__doc__ = test.__doc__
        return run  # type: ignore[return-value]

    return wrap


# ------------------------------------------------------------------ hostile values

EXTREME_NUMBERS: list[Any] = [
    0,
    -0.0,
    5e-324,
    1.7976931348623157e308,
    -1.7976931348623157e308,
    2**63 - 1,
    2**63,
    2**64,
    -(2**63),
    10**309,
    2**1024,
    0.1,
    1e-300,
    3.0,
]
HOSTILE_TEXT = [
    "",
    "\x00",
    "\x1b[31m",
    "\n::error::x",
    "\u202e",
    "@here",
    "#1",
    "\ud7ff\ue000",
    "😀",
    "a" * 300,
    "ORD-1234",
    "{",
    "null",
    "\\u0000",
]
KEYS = st.one_of(
    st.text(max_size=6),
    st.sampled_from(
        [
            "trace_id",
            "agent_name",
            "workflow",
            "steps",
            "step_id",
            "type",
            "tool_name",
            "arguments",
            "text",
            "output",
            "status",
            "error",
            "latency_ms",
            "cost_usd",
            "input_tokens",
            "output_tokens",
            "citations",
            "metadata",
            "schema_version",
            "task_id",
            "outcome",
            "inputs",
            "role",
            "content",
            "data",
            "object",
            "resourceSpans",
        ]
    ),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**320), max_value=10**320),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(EXTREME_NUMBERS),
    st.text(max_size=12),
    st.sampled_from(HOSTILE_TEXT),
    st.sampled_from(["tool_call", "model_response", "ok", "error", "1", "1.1", "2", "user"]),
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=25,
)
# Byte sequences that each break a different promise of the decoders.
HOSTILE_BYTES = [
    b"NaN",
    b"-Infinity",
    b"1e999",
    b"-0.0",
    b"5e-324",
    b"1.7976931348623157e308",
    b"18446744073709551616",
    b"9" * 4400,
    b'"\\ud800"',
    b'"\\udc00\\ud800"',
    b"[" * 520,
    b"]" * 520,
    b"{" * 300,
    b"\xff",
    b"\xc3\x28",
    b"\xef\xbb\xbf",
    b"\x00",
    b"\r",
    b"\n",
    b"\r\n",
    b'"',
    b"\\",
    b",",
    b":",
    b"{}",
    b"[]",
    b"null",
    b'"steps"',
    b'"steps":[',
    b"},{",
    b'{"data":[],"object":"list"}',
    b'{"resourceSpans":[]}',
]


# ------------------------------------------------------------------ seeds


def _files(*patterns: str) -> list[Path]:
    return sorted(p for pattern in patterns for p in ROOT.glob(pattern) if p.is_file())


@cache
def seed_files(kind: str) -> tuple[Path, ...]:
    """Real inputs of one kind from the repository (fixtures are never generated here)."""
    globs = {
        "traces": ("samples/traces/*", "tests/data/samples/traces/*", "tests/data/mixed/*"),
        "transcripts": ("tests/adapters/fixtures/*/*",),
        "policies": (
            "samples/policy.json",
            "samples/policies/*.json",
            "samples/policies/*.yaml",
            "samples/policies/base/*",
            "tests/data/policies/*.json",
            "tests/compare/data/policy.json",
        ),
        "reports": ("tests/compare/data/baseline/*.json", "tests/compare/data/candidate/*.json"),
    }
    return tuple(_files(*globs[kind]))


@cache
def seed_bytes(kind: str) -> tuple[bytes, ...]:
    return tuple(path.read_bytes() for path in seed_files(kind))


@cache
def seed_values(kind: str) -> tuple[Any, ...]:
    """The decoded JSON documents (and JSONL lines) among the seeds of `kind`."""
    found: list[Any] = []
    for data in seed_bytes(kind):
        for chunk in [data, *data.splitlines()]:
            try:
                found.append(json.loads(chunk))
            except ValueError:
                continue
    return tuple(found)


# ------------------------------------------------------------------ mutations


@st.composite
def mutated_bytes(draw: st.DrawFn, seeds: tuple[bytes, ...]) -> bytes:
    """A seed with a few byte-level edits: flips, hostile insertions, deletions,
    duplicated spans, truncation."""
    data = bytearray(draw(st.sampled_from(seeds)) if seeds else b"")
    for _ in range(draw(st.integers(0, 4))):
        op = draw(st.sampled_from(("flip", "insert", "delete", "duplicate", "truncate")))
        at = draw(st.integers(0, len(data)))
        if op == "flip" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif op == "insert":
            piece = draw(st.one_of(st.sampled_from(HOSTILE_BYTES), st.binary(max_size=8)))
            data[at:at] = piece
        elif op == "delete":
            del data[at : at + draw(st.integers(1, 64))]
        elif op == "duplicate":
            span = data[at : at + draw(st.integers(1, 200))]
            data[at:at] = span
        elif op == "truncate":
            del data[at:]
    return bytes(data)


def _slots(value: Any, limit: int = 400) -> list[tuple[Any, Any]]:
    """(container, key) of up to `limit` nodes of a JSON value, breadth first."""
    slots: list[tuple[Any, Any]] = []
    pending = [value]
    while pending and len(slots) < limit:
        item = pending.pop(0)
        children = (
            list(item.items())
            if isinstance(item, dict)
            else list(enumerate(item))
            if isinstance(item, list)
            else []
        )
        for key, child in children:
            slots.append((item, key))
            pending.append(child)
    return slots


@st.composite
def edited_json(draw: st.DrawFn, seeds: tuple[Any, ...]) -> Any:
    """A seed document with a few structural edits: a node replaced by a hostile value,
    removed, duplicated, or given another type."""
    value = copy.deepcopy(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 4))):
        slots = _slots(value)
        if not slots:
            return draw(JSON_VALUES)
        container, key = draw(st.sampled_from(slots))
        op = draw(st.sampled_from(("replace", "delete", "duplicate", "wrap", "extreme")))
        if op == "replace":
            container[key] = draw(JSON_VALUES)
        elif op == "delete":
            del container[key]
        elif op == "duplicate" and isinstance(container, list):
            container.insert(key, copy.deepcopy(container[key]))
        elif op == "wrap":
            container[key] = draw(st.sampled_from(([container[key]], {"x": container[key]})))
        else:
            container[key] = draw(st.sampled_from([*EXTREME_NUMBERS, *HOSTILE_TEXT]))
    return value


def to_json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")


# ------------------------------------------------------------------ the CLI's promises


def cli(args: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    """`arh ARGS` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO(stdin)))
    return code, out.getvalue(), err.getvalue()


def check_promises(code: int, err: str, codes: tuple[int, ...] = (0, 1)) -> None:
    """No traceback, no internal error; every stderr line one `error:` or `warning:` line."""
    assert code in codes, (code, err)
    assert "internal error" not in err and "Traceback" not in err, err
    for line in err.splitlines():
        assert line.startswith(("error: ", "warning: ")), line
