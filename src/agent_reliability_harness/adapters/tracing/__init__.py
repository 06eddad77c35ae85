"""Tracing exports: OpenTelemetry GenAI and OpenInference spans (OTLP/JSON, protobuf, console),
Langfuse trace exports, the OpenAI Agents SDK tracing export."""
