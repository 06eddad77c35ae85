"""Sweep `arh convert` and `arh validate` over a folder of real recorded runs.

    python benchmarks/real_runs.py ../shared/real-runs             # this build
    python benchmarks/real_runs.py ../shared/real-runs --src DIR   # the package in DIR/
    python benchmarks/real_runs.py ROOT --json-out sweep.json      # per-file figures too

For every file of the sources ARH claims (CLAIMED below, relative to ROOT; other files
and PROVENANCE/LICENSE files are left out) it runs `arh convert FILE` (with the source's
--format, FORMATS below, else auto) and `arh validate FILE` under a policy that allows
every tool and under samples/policy.json, in one process, and prints per source: files
read (exit 0 with at least one step), refused (no trace), traces, steps, tool calls (of
which status error), model responses, input and output tokens, ARH-SCH-013 notes,
convert's error lines, the files validate (permissive policy, --fail-under 0) exits 1 on
(an input error) and the files validate under samples/policy.json prints an error on.
No data is embedded: the folder is read where it lies.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

# Sources (folders under ROOT) whose formats ARH claims; each is globbed recursively.
CLAIMED = [
    "2026-11/agentdojo/raw_sample_command-r-plus.jsonl",
    "2026-11/agentdojo/traces",
    "2026-11/claude-code/raw",
    "2026-11/swe-agent/raw",
    "2026-11/tau-bench/raw_sample.json",
    "2026-11/tau-bench/traces",
    "2026-11/more/inspect-ai",
    "2026-11/more/langsmith",
    "2026-11/more/mini-swe-agent",
    "2026-11/more/otel-genai",
    "2026-11/more/tau2-bench",
    "2026-12/claude-code/raw",
    "2026-12/codex-cli/raw",
    "2026-12/gemini-cli/raw",
    "2026-12/inspect/raw",
    "2026-12/mcp/derived",
    "2026-12/autogen/raw",
    "2026-12/browser-use/raw",
    "2026-12/codex-exec-json/raw",
    "2026-12/gemini-cli-stream-json/raw",
    "2026-12/letta/raw",
    "2026-12/openhands/raw",
    "2026-12/smolagents/raw",
    "2026-12-06/agentops-trace-api/raw",
    "2026-12-06/autocoderover/raw",
    "2026-12-06/google-adk/raw",
    "2026-12-06/moatless/raw",
    "2026-12-06/claude-code-stream-json/raw",
    "2026-12-06/cursor-agent-stream-json/raw",
    "2026-12-06/cline-task-history/raw",
    "2026-12-06/cline-sdk-session/raw",
]
# Sources read with an explicit --format: the runs' message lists as OpenAI chat messages
# (a plain conversation is the same in several formats).
FORMATS = {"2026-11/agentdojo/traces": "openai-chat", "2026-11/tau-bench/traces": "openai-chat"}
SAMPLE_POLICY = Path(__file__).resolve().parents[1] / "samples" / "policy.json"
SKIP_NAMES = {"PROVENANCE.txt", "LICENSE", "LICENSE.agentdojo"}
POLICY = {"policy_id": "real-runs-sweep", "allow_unlisted_tools": True}
FIELDS = ["files", "read", "refused", "traces", "steps", "calls", "errors", "models"]
FIELDS += ["tokens_in", "tokens_out"]
FIELDS += ["sch013", "error_lines", "validate_rc1", "sample_errors"]


def claimed_files(root: Path) -> list[tuple[str, Path, str]]:
    """(source label, file, --format) for every claimed file under `root`, sorted."""
    found: list[tuple[str, Path, str]] = []
    for entry in CLAIMED:
        fmt = FORMATS.get(entry, "auto")
        path = root / entry
        label = entry.split("/raw")[0].split("/derived")[0]
        if label.endswith((".json", ".jsonl")):
            label = label.rsplit("/", 1)[0]
        if path.is_file():
            found.append((label, path, fmt))
        elif path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.is_file())
            found.extend((label, p, fmt) for p in files if p.name not in SKIP_NAMES)
    return found


def _run(argv: list[str]) -> tuple[int, str, str]:
    from agent_reliability_harness.cli import main  # noqa: PLC0415 (the --src package)
    from agent_reliability_harness.cli.common import Streams  # noqa: PLC0415

    out, err = io.StringIO(), io.StringIO()
    code = main(argv, Streams(out, err, io.StringIO()))
    return code, out.getvalue(), err.getvalue()


def _traces(text: str) -> list[dict[str, Any]]:
    if not text.strip():
        return []
    data = json.loads(text)
    return data if isinstance(data, list) else [data]


def measure(path: Path, policy: Path, fmt: str = "auto") -> dict[str, Any]:
    """The figures for one file."""
    code, out, err = _run(["convert", "--format", fmt, str(path)])
    traces = _traces(out)
    steps = [s for t in traces for s in t.get("steps", [])]
    calls = [s for s in steps if s.get("type") == "tool_call"]
    notes = sum(len(t.get("metadata", {}).get("adapter", {}).get("notes", [])) for t in traces)
    permissive = ["--policy", str(policy), "--fail-under", "0", "--quiet"]
    vcode, _, verr = _run(["validate", "--format", fmt, *permissive, str(path)])
    _, _, serr = _run(["validate", "--format", fmt, "--policy", str(SAMPLE_POLICY), str(path)])
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    verrors = [line for line in verr.splitlines() if line.startswith("error:")]
    return {
        "convert_rc": code,
        "validate_rc": vcode,
        "traces": len(traces),
        "steps": len(steps),
        "calls": len(calls),
        "errors": sum(1 for s in calls if s.get("status") == "error"),
        "models": sum(1 for s in steps if s.get("type") == "model_response"),
        "tokens_in": sum(s.get("input_tokens") or 0 for s in steps),
        "tokens_out": sum(s.get("output_tokens") or 0 for s in steps),
        "sch013": notes,
        "error_lines": len(errors),
        "validate_error_lines": len(verrors),
        "sample_error_lines": sum(1 for line in serr.splitlines() if line.startswith("error:")),
        "first_error": (errors or verrors or [""])[0],
    }


def sweep(root: Path) -> dict[str, Any]:
    """Per-file figures and per-source totals."""
    with tempfile.TemporaryDirectory() as tmp:
        policy = Path(tmp) / "policy.json"
        policy.write_text(json.dumps(POLICY), encoding="utf-8")
        files = {
            str(p.relative_to(root)): (label, measure(p, policy, fmt))
            for label, p, fmt in claimed_files(root)
        }
    sources: dict[str, dict[str, int]] = {}
    for label, figures in files.values():
        total = sources.setdefault(label, dict.fromkeys(FIELDS, 0))
        total["files"] += 1
        total["read"] += figures["convert_rc"] == 0 and figures["steps"] > 0
        total["refused"] += figures["convert_rc"] != 0 and not figures["traces"]
        total["validate_rc1"] += figures["validate_rc"] == 1
        total["sample_errors"] += figures["sample_error_lines"] > 0
        for key in FIELDS[3:-2]:
            total[key] += figures[key]
    return {"sources": sources, "files": {k: v for k, (_, v) in files.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--src", type=Path, help="run the package found in this src/ folder")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    if args.src is not None:  # rerun this script under the other package
        env = dict(os.environ, PYTHONPATH=str(args.src.resolve()))
        argv = [sys.executable, __file__, str(args.root)]
        if args.json_out is not None:
            argv += ["--json-out", str(args.json_out)]
        return subprocess.run(argv, env=env, check=False).returncode
    result = sweep(args.root.resolve())
    print("source".ljust(28) + "".join(f[:11].rjust(12) for f in FIELDS))
    for label, total in sorted(result["sources"].items()):
        print(label.ljust(28) + "".join(str(total[f]).rjust(12) for f in FIELDS))
    if args.json_out is not None:
        args.json_out.write_text(json.dumps(result, indent=1, sort_keys=True), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
