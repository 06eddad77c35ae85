"""Coverage-guided fuzzing with atheris (optional: `pip install atheris`; the test suite
never needs it). One target per run, fed raw bytes: trace, policy, report or cli.

    python scripts/fuzz_atheris.py trace -max_total_time=3600

Anything but a documented refusal (InputError, PolicyError, ReportError) is a crash, and
atheris saves the input that caused it (see docs/fuzzing.md).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from collections.abc import Callable

from agent_reliability_harness.errors import InputError, PolicyError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE_POLICY = os.path.join(ROOT, "samples", "policy.json")


def trace(data: bytes) -> None:
    from agent_reliability_harness.inputs import RawUnit  # noqa: PLC0415
    from agent_reliability_harness.pipeline import Reader  # noqa: PLC0415

    for _ in Reader().items([RawUnit("fuzz.json", data)]):
        pass


def policy(data: bytes) -> None:
    from agent_reliability_harness.models.policy import load_policy  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "policy.json" if data[:1] == b"{" else "policy.yaml")
        with open(path, "wb") as handle:
            handle.write(data)
        with contextlib.suppress(PolicyError):
            load_policy(path)


def report(data: bytes) -> None:
    from agent_reliability_harness.models.baseline import read_report  # noqa: PLC0415

    with contextlib.suppress(InputError):
        read_report(data, "fuzz.json")


def cli(data: bytes) -> None:
    from agent_reliability_harness.cli import main  # noqa: PLC0415
    from agent_reliability_harness.cli.common import Streams  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "t.json")
        with open(path, "wb") as handle:
            handle.write(data)
        err = io.StringIO()
        code = main(
            ["validate", "--policy", SAMPLE_POLICY, path, "--json-out", os.devnull],
            Streams(io.StringIO(), err, io.BytesIO()),
        )
        if code not in (0, 1) or "internal error" in err.getvalue():
            raise AssertionError(err.getvalue())


TARGETS: dict[str, Callable[[bytes], None]] = {
    "trace": trace,
    "policy": policy,
    "report": report,
    "cli": cli,
}


def main() -> None:
    try:
        import atheris  # noqa: PLC0415 - optional
    except ImportError:
        sys.exit("atheris is not installed: pip install atheris")
    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        sys.exit(f"usage: fuzz_atheris.py {{{','.join(TARGETS)}}} [libFuzzer options]")
    target = TARGETS[sys.argv[1]]
    atheris.Setup([sys.argv[0], *sys.argv[2:]], target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
