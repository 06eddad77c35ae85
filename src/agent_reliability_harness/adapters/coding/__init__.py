"""Coding-agent CLI formats: Claude Code, Codex CLI / codex exec, gemini-cli (session JSONL and
stream-json event streams)."""
