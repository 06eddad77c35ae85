"""The built-in formats as data: each format's name, module (`family.module`),
capabilities and evidence, in detection order, and the envelope formats (adapters/core/
registry.py builds the adapters from these rows; tests/adapters/test_adapter_registry.py
holds each row to what its module declares)."""

from __future__ import annotations

import msgspec


class Declared(msgspec.Struct, frozen=True):
    """One transcript format: what detection, the directory walk and `--help` need to know
    before (or without) importing its module."""

    name: str
    module: str  # under agent_reliability_harness.adapters (family.module); it declares ADAPTER
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
    # The format's own markers (a refusal names the format a document has most of), and
    # the markers of what it never writes (Evidence in core/base.py).
    marks: tuple[str, ...] = ()
    against: tuple[str, ...] = ()

    @property
    def family(self) -> str:
        """The subpackage of adapters/ that holds the format (coding, providers, ...)."""
        return self.module.partition(".")[0]


# In detection order after the canonical format. Order settles equal readings only (a
# document claimed by two formats on their own evidence is ambiguous), so more specific
# formats come first: Anthropic precedes the Responses API (both use `type: "message"`);
# Cohere precedes OpenAI Chat (Cohere v2 shares OpenAI's wire shape and is recognised only
# by what OpenAI never sends: tool_plan, documents, billed_units); OpenInference spans are
# OTLP exports recognised by `openinference.span.kind` before otel-genai; Pydantic AI's
# `parts` look like Gemini contents (its `kind` and `part_kind` tell them apart).
TRANSCRIPTS: tuple[Declared, ...] = (
    Declared(
        "claude-code",
        "coding.claude_code",
        "Claude Code session JSONL and the Claude Agent SDK message stream",
        session=True,
        shape="array",
        marks=("sessionId", "parentUuid", "uuid", "type=user|assistant"),
        against=("type=tool_call|thinking",),
    ),
    Declared(
        "cursor-agent",
        "coding.cursor_agent",
        "cursor-agent --output-format stream-json runs",
        session=True,
        shape="array",
        marks=("type=tool_call|thinking", "call_id", "model_call_id", "timestamp_ms"),
    ),
    Declared(
        "codex-cli",
        "coding.codex_cli",
        "Codex CLI rollout JSONL sessions",
        session=True,
        shape="array",
        marks=("payload", "type=session_meta|response_item|event_msg|turn_context"),
    ),
    Declared(
        "codex-exec",
        "coding.codex_exec",
        "codex exec --json event streams (thread / turn / item events)",
        session=True,
        shape="array",
        marks=("type=thread.started|turn.started|turn.completed|item.completed", "item"),
    ),
    Declared(
        "gemini-cli",
        "coding.gemini_cli",
        "gemini-cli chat recordings (conversation JSON or session JSONL)",
        session=True,
        keys=("sessionId",),
        marks=("sessionId", "projectHash", "messages"),
    ),
    Declared(
        "gemini-stream",
        "coding.gemini_stream",
        "gemini-cli headless --output-format stream-json event streams",
        session=True,
        shape="array",
        marks=("type=init|tool_use|tool_result|result", "timestamp"),
    ),
    Declared(
        "qwen-code",
        "coding.qwen_code",
        "Qwen Code chat recordings (session JSONL of ChatRecord lines)",
        session=True,
        keys=("uuid",),
        marks=("uuid", "parentUuid", "sessionId", "parts", "type=tool_result"),
    ),
    Declared(
        "goose",
        "coding.goose",
        "Goose sessions (goose session export --format json, and the older JSONL files)",
        session=True,
        keys=("working_dir", "created"),
        marks=("working_dir", "message_count", "conversation", "type=toolRequest|toolResponse"),
    ),
    Declared(
        "opencode",
        "coding.opencode",
        "OpenCode runs (opencode run --format json streams, opencode export sessions)",
        session=True,
        keys=("messages",),
        marks=("sessionID", "part", "type=step_start|tool_use|step_finish", "messages"),
    ),
    Declared(
        "copilot-cli",
        "coding.copilot_cli",
        "GitHub Copilot CLI session event logs (events.jsonl) and SDK session events",
        session=True,
        keys=("data",),
        marks=("data", "parentId", "type=session.start|assistant.message|tool.execution_complete"),
    ),
    Declared(
        "cline",
        "coding.cline",
        "Cline task histories (also Roo Code, Kilo Code) and Cline SDK session messages",
        keys=("messages",),
        marks=("metrics", "modelInfo", "sessionId", "system_prompt"),
    ),
    Declared(
        "swe-agent",
        "harnesses.swe_agent",
        "SWE-agent .traj trajectories and mini-swe-agent trajectories",
        suffixes=(".traj",),
        marked=True,
        shape="object",
        keys=("trajectory", "history", "messages"),
        marks=("trajectory", "history", "trajectory_format", "info"),
    ),
    Declared(
        "atif",
        "harnesses.atif",
        "ATIF agent trajectories (Harbor, Terminal-Bench; ATIF-v1.x JSON)",
        shape="object",
        keys=("schema_version",),
        marks=("schema_version", "steps", "agent"),
    ),
    Declared(
        "autogen",
        "frameworks.autogen",
        "AutoGen AgentChat messages, TaskResult and TeamState dumps",
        keys=("type", "messages"),
        marks=("source", "type=TextMessage|ToolCallRequestEvent|TeamState", "models_usage"),
    ),
    Declared(
        "tau-bench",
        "harnesses.tau_bench",
        "tau-bench result files and tau2-bench simulation results (one trace per run)",
        keys=("simulations", "task_id"),
        marks=("task_id", "traj", "reward"),
    ),
    Declared(
        "openhands",
        "frameworks.openhands",
        "OpenHands event trajectories and evaluation output.jsonl records",
        keys=("history",),
        marks=("action", "observation", "source", "id"),
    ),
    Declared(
        "smolagents",
        "frameworks.smolagents",
        "smolagents runs: memory messages and steps, benchmark output records",
        keys=("intermediate_steps",),
        marks=("role=tool-call|tool-response", "step_number", "intermediate_steps"),
    ),
    Declared(
        "browser-use",
        "frameworks.browser_use",
        "browser-use AgentHistoryList dumps (agent history JSON)",
        shape="object",
        keys=("history",),
        marks=("history", "model_output", "result", "state"),
    ),
    Declared(
        "letta",
        "frameworks.letta",
        "Letta agent files (.af): each agent's message history",
        suffixes=(".af",),
        shape="object",
        keys=("agents", "agent_type"),
        marks=("agents", "agent_type", "llm_config", "messages"),
    ),
    Declared(
        "agentops",
        "tracing.agentops",
        "AgentOps trace exports (the AgentOps API's trace: spans with span_attributes)",
        shape="object",
        keys=("spans",),
        marks=("spans", "span_attributes", "span_type", "trace_id"),
    ),
    Declared(
        "google-adk",
        "frameworks.google_adk",
        "Google ADK sessions (Session JSON: authored events, content parts)",
        shape="object",
        keys=("events",),
        marks=("events", "author", "invocation_id", "usage_metadata"),
    ),
    Declared(
        "moatless",
        "harnesses.moatless",
        "Moatless Tools search trees (SearchTree.persist JSON: nodes, actions)",
        shape="object",
        keys=("root",),
        marks=("root", "node_id", "action_steps", "selector"),
    ),
    Declared(
        "autocoderover",
        "harnesses.autocoderover",
        "AutoCodeRover run output (agent threads, tool_call_sequence.json)",
        shape="array",
        marks=("func_name", "call_ok"),
    ),
    Declared(
        "openinference",
        "tracing.openinference",
        "Arize Phoenix / OpenInference spans as OTLP/JSON or binary OTLP",
        suffixes=(".pb", ".binpb"),
        reads_files=True,
        marks=("resourceSpans", "scopeSpans", "openinference.span.kind"),
    ),
    Declared(
        "otel-genai",
        "tracing.otel_genai",
        "OpenTelemetry GenAI spans as OTLP/JSON (semantic conventions v1.44.0)",
        suffixes=(".pb", ".binpb"),
        reads_files=True,
        marks=("resourceSpans", "scopeSpans", "spans"),
    ),
    Declared(
        "openai-agents",
        "tracing.openai_agents",
        "OpenAI Agents SDK tracing export (trace and span objects)",
        keys=("data", "object"),
        marks=("object=trace|trace.span", "span_data", "trace_id"),
    ),
    Declared(
        "inspect",
        "harnesses.inspect_log",
        "Inspect AI eval logs (.eval archives and .json)",
        suffixes=(".eval",),
        reads_files=True,
        shape="object",
        keys=("eval",),
        marks=("eval", "samples", "status", "version"),
    ),
    Declared(
        "langchain",
        "frameworks.langchain",
        "LangChain / LangGraph messages and state, LangSmith run exports",
        marks=("type=human|ai|tool", "lc", "run_type", "child_runs"),
    ),
    Declared(
        "langfuse",
        "tracing.langfuse",
        "Langfuse trace exports and observation lists",
        keys=("data", "observations", "type"),
        marks=("observations", "type=GENERATION|SPAN|TOOL|EVENT", "startTime"),
    ),
    Declared(
        "mlflow",
        "tracing.mlflow_traces",
        "MLflow traces (Trace.to_dict: info and data.spans)",
        shape="object",
        keys=("info",),
        marks=("info", "trace_id", "spans", "mlflow.spanType"),
    ),
    Declared(
        "mcp",
        "providers.mcp_session",
        "Model Context Protocol session logs (JSON-RPC messages, array or JSONL)",
        session=True,
        keys=("jsonrpc", "message"),
        marks=("jsonrpc=2.0", "method", "result"),
    ),
    Declared(
        "pydantic-ai",
        "frameworks.pydantic_ai",
        "Pydantic AI message history (ModelMessagesTypeAdapter JSON)",
        keys=("messages",),
        marks=("kind=request|response", "parts", "part_kind"),
    ),
    Declared(
        "google-genai",
        "providers.google_genai",
        "Google Gen AI (Gemini) contents and GenerateContentResponse dumps",
        marks=("parts", "candidates", "usageMetadata"),
    ),
    Declared(
        "anthropic-messages",
        "providers.anthropic_messages",
        "Anthropic Messages API conversations and Message dumps",
        marks=("type=tool_use|tool_result|thinking|message", "stop_reason"),
        against=(
            "metrics",
            "modelInfo",
            "text~^\\[[^\\]\\n]+\\] Result:",
            "text~^<environment_details>",
            "system_prompt",
        ),
    ),
    Declared(
        "openai-responses",
        "providers.openai_responses",
        "OpenAI Responses API input item lists and Response dumps",
        marks=("object=response", "type=function_call|function_call_output"),
    ),
    Declared(
        "cohere-chat",
        "providers.cohere_chat",
        "Cohere Chat v2 message lists and chat response dumps",
        marks=("tool_plan", "billed_units", "finish_reason"),
    ),
    Declared(
        "openai-chat",
        "providers.openai_chat",
        "OpenAI Chat Completions message lists and ChatCompletion dumps",
        marks=("role=tool|function|developer", "tool_calls", "choices"),
    ),
)


# Formats recognised by the envelope their tool writes around the messages (their claims
# rest on their own evidence, `Evidence.own`): a document (or a session line) in one of
# these envelopes is read by that format only; under any other explicit format it is an
# input error that names it. An envelope's claim outranks every claim on a shared wire
# shape; two envelopes claiming one document are ambiguous (adapters/core/detect.py). In
# this order a session line's envelope is looked for (its `detect`, then `detect_line`).
# The last six are formats whose markers no other format writes: Cohere's tool_plan,
# document tool content, billed_units (what OpenAI never sends), Inspect's `eval` +
# `samples`, LangChain's message types (`human`/`ai`, `lc` constructors) and LangSmith run
# types, Langfuse's capitalised observation types, JSON-RPC 2.0, Pydantic AI's
# `part_kind`. (Not openinference: otel-genai claims every OTLP export too, and coverage
# decides.)
ENVELOPE_ORDER: tuple[str, ...] = (
    "claude-code",
    "cursor-agent",
    "codex-cli",
    "codex-exec",
    "gemini-cli",
    "gemini-stream",
    "qwen-code",
    "goose",
    "opencode",
    "copilot-cli",
    "cline",
    "swe-agent",
    "atif",
    "autogen",
    "tau-bench",
    "openhands",
    "smolagents",
    "browser-use",
    "letta",
    "agentops",
    "google-adk",
    "moatless",
    "autocoderover",
    "cohere-chat",
    "inspect",
    "langchain",
    "langfuse",
    "mlflow",
    "mcp",
    "pydantic-ai",
)
