"""`--dask ADDRESS`: chunks of input units as tasks on a Dask cluster, Partials back in
input order. Dask (`pip install 'arh[dask]'`) is imported only here, only when used.

Workers read the inputs themselves: local paths must be visible to them (a shared
filesystem, or a LocalCluster on this machine); URLs (s3://, gs://, ...) are read
through fsspec wherever the worker runs."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import Any

from ..errors import ArhError
from ..inputs import Unit
from ..version import DISTRIBUTION
from .partial import Partial
from .plan import WorkPlan
from .process import make_processor

IN_FLIGHT_PER_THREAD = 3
CONNECT_TIMEOUT_S = 30


class DaskUnavailable(ArhError):
    """Dask is not installed, or the scheduler cannot be reached."""


def _distributed() -> Any:
    try:
        import distributed  # noqa: PLC0415 - optional
    except ImportError:
        raise DaskUnavailable(f"--dask needs Dask: pip install '{DISTRIBUTION}[dask]'") from None
    return distributed


class DaskExecutor:
    """Runs on the cluster whose scheduler is at `address` (or on a given Client). The
    plan (policies included) is sent to every worker once; each chunk is one task."""

    ranges = True

    def __init__(self, address: str | None = None, client: Any = None) -> None:
        if address is None and client is None:
            raise ValueError("give the scheduler address or a distributed.Client")
        self.address = address
        self.client = client

    def _connect(self) -> Any:
        try:
            return _distributed().Client(
                self.address, set_as_default=False, timeout=CONNECT_TIMEOUT_S
            )
        except (OSError, TimeoutError) as exc:
            raise DaskUnavailable(
                f"cannot reach the Dask scheduler at {self.address}: {exc}"
            ) from None

    def map(self, plan: WorkPlan, chunks: Iterator[list[Unit]]) -> Iterator[Partial]:
        client = self.client if self.client is not None else self._connect()
        try:
            yield from self._run(client, plan, chunks)
        finally:
            if self.client is None:
                client.close()

    def _run(self, client: Any, plan: WorkPlan, chunks: Iterator[list[Unit]]) -> Iterator[Partial]:
        [shared] = client.scatter([plan], broadcast=True, hash=False)
        threads = sum(client.nthreads().values()) or 1
        limit = max(2, threads * IN_FLIGHT_PER_THREAD)
        pending: deque[Any] = deque()
        for chunk in chunks:
            pending.append(client.submit(_work, shared, chunk, pure=False))
            while len(pending) >= limit:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def _work(plan: WorkPlan, chunk: list[Unit]) -> Partial:
    # A processor per task: building one (an Evaluator per policy) costs microseconds,
    # and tasks of one worker may run in parallel threads.
    return make_processor(plan).process_all(chunk)
