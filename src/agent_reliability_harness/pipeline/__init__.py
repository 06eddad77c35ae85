"""The evaluation pipeline: load -> adapt -> parse -> evaluate -> report, with pluggable
executors (in-process, a process pool, a Dask cluster) and sinks.

    result = run(paths, policies, sinks, options=RunOptions(), executor=ProcessPool(4))

Extension points: `register_section` (a run-level report section built by a mergeable
Accumulator fed per trace), `PieceSpec` in a sink's `needs` (a per-trace text made in
the workers), and `register_output` (a file output streamed through its own sink).
"""

from __future__ import annotations

from .documents import STREAM_MIN_BYTES, Loaded, Reader
from .executors import (
    CHUNK_BYTES,
    CHUNK_UNITS,
    Executor,
    InProcess,
    ProcessPool,
    chunked,
    default_jobs,
    make_executor,
)
from .exports import export_line, lines_joined
from .partial import Partial, PartialBuilder, RunResult, Sink, merge
from .plan import (
    CACHE_MAX_SIZE,
    Accumulator,
    CacheOptions,
    Needs,
    PieceSpec,
    SectionSpec,
    Summarised,
    TraceView,
    WorkPlan,
    register_section,
    registered_sections,
)
from .process import UnitProcessor
from .routing import Router, applies
from .run import RunOptions, input_units, make_plan, run, run_policy_id
from .sinks import (
    ConsoleSink,
    ErrorSink,
    JsonReportSink,
    Messages,
    OutputContext,
    RenderSink,
    ReportSink,
    output_sinks,
    register_output,
    write_output,
)
from .tasks import FORCED_TASKS, TASKS, TaskAccumulator

__all__ = [
    "CACHE_MAX_SIZE",
    "CHUNK_BYTES",
    "CHUNK_UNITS",
    "FORCED_TASKS",
    "STREAM_MIN_BYTES",
    "TASKS",
    "Accumulator",
    "CacheOptions",
    "ConsoleSink",
    "ErrorSink",
    "Executor",
    "InProcess",
    "JsonReportSink",
    "Loaded",
    "Messages",
    "Needs",
    "OutputContext",
    "Partial",
    "PartialBuilder",
    "PieceSpec",
    "ProcessPool",
    "Reader",
    "RenderSink",
    "ReportSink",
    "Router",
    "RunOptions",
    "RunResult",
    "SectionSpec",
    "Sink",
    "Summarised",
    "TaskAccumulator",
    "TraceView",
    "UnitProcessor",
    "WorkPlan",
    "applies",
    "chunked",
    "default_jobs",
    "export_line",
    "input_units",
    "lines_joined",
    "make_executor",
    "make_plan",
    "merge",
    "output_sinks",
    "register_output",
    "register_section",
    "registered_sections",
    "run",
    "run_policy_id",
    "write_output",
]
