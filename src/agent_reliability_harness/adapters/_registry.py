"""The adapter registry as data: each format's name, module and capabilities, so a run
imports an adapter's module only when it calls one of its functions (a run over canonical
traces imports none of the transcript adapters).
tests/adapters/test_adapter_registry.py holds each row to what its module declares."""

from __future__ import annotations

from importlib import import_module
from typing import Any

import msgspec

from . import canonical
from .base import Adapter


class Declared(msgspec.Struct, frozen=True):
    """One transcript format: what detection, the directory walk and `--help` need to know
    before (or without) importing its module."""

    name: str
    module: str  # under agent_reliability_harness.adapters; it declares ADAPTER
    description: str
    session: bool = False  # declares detect_line and convert_lines (session JSONL)
    suffixes: tuple[str, ...] = ()
    reads_files: bool = False  # declares read_file (a binary container format)
    marked: bool = False  # declares markers (broader than detect under --format)
    # The claim's gate, what `detect` needs before it can claim a document (checked
    # without importing the module; tests/adapters/test_detect_pass.py holds each
    # `detect` to it): "object" or "array" for the only shape it claims ("": any), and
    # for an object document, keys of which it needs one at the top ((): none).
    shape: str = ""
    keys: tuple[str, ...] = ()


# In detection order after the canonical format (the order and why: adapters/__init__.py).
TRANSCRIPTS: tuple[Declared, ...] = (
    Declared(
        "claude-code",
        "claude_code",
        "Claude Code session JSONL and the Claude Agent SDK message stream",
        session=True,
        shape="array",
    ),
    Declared(
        "codex-cli", "codex_cli", "Codex CLI rollout JSONL sessions", session=True, shape="array"
    ),
    Declared(
        "codex-exec",
        "codex_exec",
        "codex exec --json event streams (thread / turn / item events)",
        session=True,
        shape="array",
    ),
    Declared(
        "gemini-cli",
        "gemini_cli",
        "gemini-cli chat recordings (conversation JSON or session JSONL)",
        session=True,
        keys=("sessionId",),
    ),
    Declared(
        "gemini-stream",
        "gemini_stream",
        "gemini-cli headless --output-format stream-json event streams",
        session=True,
        shape="array",
    ),
    Declared(
        "swe-agent",
        "swe_agent",
        "SWE-agent .traj trajectories and mini-swe-agent trajectories",
        suffixes=(".traj",),
        marked=True,
        shape="object",
        keys=("trajectory", "history", "messages"),
    ),
    Declared(
        "atif",
        "atif",
        "ATIF agent trajectories (Harbor, Terminal-Bench; ATIF-v1.x JSON)",
        shape="object",
        keys=("schema_version",),
    ),
    Declared(
        "autogen",
        "autogen",
        "AutoGen AgentChat messages, TaskResult and TeamState dumps",
        keys=("type", "messages"),
    ),
    Declared(
        "tau-bench",
        "tau_bench",
        "tau-bench result files and tau2-bench simulation results (one trace per run)",
        keys=("simulations", "task_id"),
    ),
    Declared(
        "openhands",
        "openhands",
        "OpenHands event trajectories and evaluation output.jsonl records",
        keys=("history",),
    ),
    Declared(
        "smolagents",
        "smolagents",
        "smolagents runs: memory messages and steps, benchmark output records",
        keys=("intermediate_steps",),
    ),
    Declared(
        "browser-use",
        "browser_use",
        "browser-use AgentHistoryList dumps (agent history JSON)",
        shape="object",
        keys=("history",),
    ),
    Declared(
        "letta",
        "letta",
        "Letta agent files (.af): each agent's message history",
        suffixes=(".af",),
        shape="object",
        keys=("agents", "agent_type"),
    ),
    Declared(
        "openinference",
        "openinference",
        "Arize Phoenix / OpenInference spans as OTLP/JSON or binary OTLP",
        suffixes=(".pb", ".binpb"),
        reads_files=True,
    ),
    Declared(
        "otel-genai",
        "otel_genai",
        "OpenTelemetry GenAI spans as OTLP/JSON (semantic conventions v1.44.0)",
        suffixes=(".pb", ".binpb"),
        reads_files=True,
    ),
    Declared(
        "openai-agents",
        "openai_agents",
        "OpenAI Agents SDK tracing export (trace and span objects)",
        keys=("data", "object"),
    ),
    Declared(
        "inspect",
        "inspect_log",
        "Inspect AI eval logs (.eval archives and .json)",
        suffixes=(".eval",),
        reads_files=True,
        shape="object",
        keys=("eval",),
    ),
    Declared(
        "langchain",
        "langchain",
        "LangChain / LangGraph messages and state, LangSmith run exports",
    ),
    Declared(
        "langfuse",
        "langfuse",
        "Langfuse trace exports and observation lists",
        keys=("data", "observations", "type"),
    ),
    Declared(
        "mlflow",
        "mlflow_traces",
        "MLflow traces (Trace.to_dict: info and data.spans)",
        shape="object",
        keys=("info",),
    ),
    Declared(
        "mcp",
        "mcp_session",
        "Model Context Protocol session logs (JSON-RPC messages, array or JSONL)",
        session=True,
        keys=("jsonrpc", "message"),
    ),
    Declared(
        "pydantic-ai",
        "pydantic_ai",
        "Pydantic AI message history (ModelMessagesTypeAdapter JSON)",
        keys=("messages",),
    ),
    Declared(
        "google-genai",
        "google_genai",
        "Google Gen AI (Gemini) contents and GenerateContentResponse dumps",
    ),
    Declared(
        "anthropic-messages",
        "anthropic_messages",
        "Anthropic Messages API conversations and Message dumps",
    ),
    Declared(
        "openai-responses",
        "openai_responses",
        "OpenAI Responses API input item lists and Response dumps",
    ),
    Declared(
        "cohere-chat",
        "cohere_chat",
        "Cohere Chat v2 message lists and chat response dumps",
    ),
    Declared(
        "openai-chat",
        "openai_chat",
        "OpenAI Chat Completions message lists and ChatCompletion dumps",
    ),
)


def declared_adapter(module: str) -> Adapter:
    """The Adapter a format's module declares (importing it)."""
    adapter: Adapter = import_module(f"{__package__}.{module}").ADAPTER
    return adapter


class _Late:
    """One function of a format's Adapter, called through this stand-in: the module is
    imported at the first call, then every call goes straight to the real function.
    Pickled by name (module, function), so a stand-in ships to worker processes."""

    __slots__ = ("attr", "module", "target")

    def __init__(self, module: str, attr: str) -> None:
        self.module = module
        self.attr = attr
        self.target: Any = None

    def __call__(self, *args: Any) -> Any:
        if self.target is None:
            self.target = getattr(declared_adapter(self.module), self.attr)
        return self.target(*args)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Late):
            return NotImplemented
        return (self.module, self.attr) == (other.module, other.attr)

    def __hash__(self) -> int:
        return hash((self.module, self.attr))

    def __reduce__(self) -> tuple[type[_Late], tuple[str, str]]:
        return (_Late, (self.module, self.attr))

    def __repr__(self) -> str:
        return f"<{self.attr} of adapters.{self.module}, imported when first called>"


def deferred(row: Declared) -> Adapter:
    """The registry's Adapter of a format: its declared data, its functions stand-ins."""
    module = row.module
    return Adapter(
        name=row.name,
        description=row.description,
        detect=_Late(module, "detect"),
        convert=_Late(module, "convert"),
        detect_line=_Late(module, "detect_line") if row.session else None,
        convert_lines=_Late(module, "convert_lines") if row.session else None,
        suffixes=row.suffixes,
        read_file=_Late(module, "read_file") if row.reads_files else None,
        markers=_Late(module, "markers") if row.marked else None,
    )


# Every format in detection order: canonical traces first (the common case, read by a
# module imported up front), then the transcript formats above (imported when called).
ADAPTERS: tuple[Adapter, ...] = (canonical.ADAPTER, *(deferred(row) for row in TRANSCRIPTS))
BY_NAME: dict[str, Adapter] = {a.name: a for a in ADAPTERS}

# Formats recognised by the envelope their tool writes around the messages: a document
# (or a session line) in one of these envelopes is read by that format only; under any
# other explicit format it is an input error that names it. In this order an envelope is
# looked for (its `detect`, then its `detect_line`), which is how sure each claim is:
# an envelope's claim outranks every other format's (adapters/_detect.py).
# The last six are formats whose markers no other format writes: Cohere's tool_plan,
# document tool content, billed_units (what OpenAI never sends), Inspect's `eval` +
# `samples`, LangChain's message types (`human`/`ai`, `lc` constructors) and LangSmith run
# types, Langfuse's capitalised observation types, JSON-RPC 2.0, Pydantic AI's
# `part_kind`. (Not openinference: otel-genai claims every OTLP export too, and coverage
# decides.)
ENVELOPE_ORDER: tuple[str, ...] = (
    "claude-code",
    "codex-cli",
    "codex-exec",
    "gemini-cli",
    "gemini-stream",
    "swe-agent",
    "atif",
    "autogen",
    "tau-bench",
    "openhands",
    "smolagents",
    "browser-use",
    "letta",
    "cohere-chat",
    "inspect",
    "langchain",
    "langfuse",
    "mlflow",
    "mcp",
    "pydantic-ai",
)
ENVELOPES: tuple[Adapter, ...] = tuple(BY_NAME[name] for name in ENVELOPE_ORDER)
