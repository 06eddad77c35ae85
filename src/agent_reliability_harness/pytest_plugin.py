"""The pytest plugin (entry point `pytest11`): the `arh` fixture, and trace files as test items.

`pytest --arh-policy P --arh-traces DIR` adds one item per trace found under DIR
(named by its trace_id; an unreadable input is a failing item too). Loaded by
pytest wherever ARH is installed, so importing it costs nothing until used.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

    from .engine import Evaluator
    from .models.policy import Policy
    from .models.report import InputFailure, TraceReport
    from .models.trace import Trace
    from .testing import PolicyInput, TraceInput

_SUFFIXES = (".json", ".jsonl")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("arh", "ARH: agent traces against a policy")
    group.addoption("--arh-policy", metavar="POLICY", help="policy for --arh-traces and `arh`")
    group.addoption(
        "--arh-traces",
        action="append",
        default=[],
        metavar="PATH",
        help="collect every trace in PATH (file or directory; repeatable) as a test item",
    )
    group.addoption(
        "--arh-fail-under", type=float, default=None, metavar="N", help="minimum score (70)"
    )
    group.addoption("--arh-format", default=None, metavar="F", help="input format (auto)")
    parser.addini("arh_policy", "default policy file of the `arh` fixture and --arh-traces")


class _Settings:
    """The options of a run and the policy, compiled once per process."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self._policy: Policy | None = None
        self._evaluator: Evaluator | None = None

    @property
    def policy_path(self) -> str | None:
        value = self.config.getoption("arh_policy") or self.config.getini("arh_policy")
        return str(value) if value else None

    @property
    def fail_under(self) -> float:
        from .scoring import DEFAULT_FAIL_UNDER  # noqa: PLC0415

        value = self.config.getoption("arh_fail_under")
        return DEFAULT_FAIL_UNDER if value is None else float(value)

    @property
    def format(self) -> str:
        return str(self.config.getoption("arh_format") or "auto")

    def policy(self) -> Policy:
        if self._policy is None:
            from .errors import ArhError  # noqa: PLC0415
            from .testing import policy_of  # noqa: PLC0415

            if self.policy_path is None:
                raise pytest.UsageError("ARH: give --arh-policy POLICY (or arh_policy in the ini)")
            try:
                self._policy = policy_of(self.policy_path)
            except ArhError as exc:
                raise pytest.UsageError(f"ARH: {exc}") from None
        return self._policy

    def evaluator(self) -> Evaluator:
        if self._evaluator is None:
            from .engine import Evaluator  # noqa: PLC0415

            self._evaluator = Evaluator(self.policy(), self.fail_under)
        return self._evaluator


_KEY = pytest.StashKey[_Settings]()


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_KEY] = _Settings(config)


class Arh:
    """The `arh` fixture: `arh.assert_trace(trace)` with the run's policy and options."""

    def __init__(self, settings: _Settings) -> None:
        self._settings = settings

    def assert_trace(
        self,
        trace_or_transcript: TraceInput,
        policy: PolicyInput | None = None,
        *,
        format: str | None = None,
        fail_under: float | None = None,
    ) -> TraceReport:
        """testing.assert_trace, defaulting to --arh-policy / arh_policy and the options."""
        __tracebackhide__ = True
        from .testing import assert_trace  # noqa: PLC0415

        return assert_trace(
            trace_or_transcript,
            self._settings.policy() if policy is None else policy,
            format=format or self._settings.format,
            fail_under=self._settings.fail_under if fail_under is None else fail_under,
        )

    def check_trace(
        self, trace_or_transcript: TraceInput, policy: PolicyInput | None = None
    ) -> TraceReport:
        """The TraceReport, without asserting."""
        from .testing import check_trace  # noqa: PLC0415

        return check_trace(
            trace_or_transcript,
            self._settings.policy() if policy is None else policy,
            format=self._settings.format,
            fail_under=self._settings.fail_under,
        )


@pytest.fixture
def arh(request: pytest.FixtureRequest) -> Arh:
    """Check agent traces against a policy: `arh.assert_trace(trace_or_path)`."""
    return Arh(request.config.stash[_KEY])


def _trace_files(paths: Iterable[str]) -> Iterator[Path]:
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*") if p.suffix in _SUFFIXES and p.is_file())
        else:
            yield path


class TraceFile(pytest.File):
    """One trace file: an item per trace, in input order."""

    def collect(self) -> Iterator[pytest.Item]:
        from .api import LoadedTrace, iter_traces  # noqa: PLC0415

        settings = self.config.stash[_KEY]
        seen: dict[str, int] = {}
        for item in iter_traces([str(self.path)], settings.format):
            if isinstance(item, LoadedTrace):
                name = item.trace.trace_id
                seen[name] = seen.get(name, 0) + 1
                if seen[name] > 1:  # node ids must be unique (xdist relies on it)
                    name = f"{name}[{seen[name]}]"
                yield TraceItem.from_parent(self, name=name, trace=item.trace, failure=None)
            else:
                where = item.location().removeprefix(item.source_path).lstrip(": ") or "file"
                yield TraceItem.from_parent(self, name=f"<{where}>", trace=None, failure=item)


class TraceFailed(Exception):
    """Raised by a TraceItem; its text is the whole failure report."""


class TraceItem(pytest.Item):
    """One trace checked against the policy; fails with the findings by severity and rule."""

    def __init__(self, *, trace: Trace | None, failure: InputFailure | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.trace = trace
        self.failure = failure

    def runtest(self) -> None:
        from .testing import failure_text  # noqa: PLC0415

        if self.failure is not None:
            raise TraceFailed(f"{self.failure.location()}: {self.failure.message}")
        assert self.trace is not None
        settings = self.config.stash[_KEY]
        report = settings.evaluator().evaluate(self.trace, _display(self.path))
        if not report.passed:
            raise TraceFailed(failure_text(report, settings.fail_under))

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, TraceFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"arh trace {self.name}"


def _display(path: Path) -> str:
    try:
        return path.resolve().relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Trace items join the collected tests before -k/-m selection and xdist see them."""
    paths = config.getoption("arh_traces")
    if not paths:
        return
    config.stash[_KEY].policy()  # a missing or invalid policy is a usage error, up front
    for path in _trace_files(paths):
        items.extend(TraceFile.from_parent(session, path=path.resolve()).collect())
