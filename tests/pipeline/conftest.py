"""Dask clusters for the executor tests: a `LocalCluster` of two single-threaded workers,
its scheduler on a real local port, started only when a test asks for one.

`scheduler` lives in a child process for the whole session, as a remote cluster would:
in this process its event loop would keep running beside every later test of the xdist
worker (hypothesis then sees the `random` module move under its strategies).
`local_scheduler` runs in this process for one module, for the tests whose workers must
see what the test registered in this process (a toy adapter, an extension)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

# Two workers as threads of the cluster's process; the scheduler's HTTP server (its
# dashboard is off) on a free port, so the two xdist workers' clusters never clash.
OPTIONS = {
    "n_workers": 2,
    "threads_per_worker": 1,
    "processes": False,
    "protocol": "tcp://",
    "host": "127.0.0.1",
    "dashboard_address": None,
    "scheduler_kwargs": {"dashboard_address": "127.0.0.1:0"},
}
SERVE = f"""\
import sys
from distributed import LocalCluster

with LocalCluster(**{OPTIONS!r}) as cluster:
    print(cluster.scheduler_address, flush=True)
    sys.stdin.read()  # until the test session closes the pipe
"""


@pytest.fixture(scope="session")
def scheduler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("distributed")
    log = tmp_path_factory.mktemp("dask") / "cluster.log"
    with open(log, "wb") as err:
        child = subprocess.Popen(
            [sys.executable, "-c", SERVE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
    assert child.stdin is not None and child.stdout is not None
    try:
        address = child.stdout.readline().strip()
        if not address.startswith("tcp://"):
            pytest.fail(f"the LocalCluster did not start: {log.read_text('utf-8')[-2000:]}")
        yield address
    finally:
        child.stdin.close()
        try:
            child.wait(timeout=120)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


@pytest.fixture(scope="module")
def local_scheduler() -> Iterator[str]:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(**OPTIONS) as cluster:
        yield cluster.scheduler_address
