"""The registry table (adapters/core/registry.py) says what each adapter module declares, and a
run over canonical traces imports no transcript adapter module."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys

import pytest

from agent_reliability_harness import adapters
from agent_reliability_harness.adapters.core.registry import TRANSCRIPTS, Declared, declared_adapter

ROWS = {row.name: row for row in TRANSCRIPTS}


@pytest.mark.parametrize("row", TRANSCRIPTS, ids=lambda row: row.name)
def test_each_row_is_what_its_module_declares(row: Declared) -> None:
    real = declared_adapter(row.module)
    assert (real.name, real.description, real.suffixes) == (
        row.name,
        row.description,
        row.suffixes,
    )
    assert (real.detect_line is not None, real.convert_lines is not None) == (
        row.session,
        row.session,
    )
    assert (real.read_file is not None, real.markers is not None) == (
        row.reads_files,
        row.marked,
    )


def test_the_registry_holds_every_adapter_module_once_in_table_order() -> None:
    assert [a.name for a in adapters.ADAPTERS] == ["arh", *ROWS]
    assert len({row.module for row in TRANSCRIPTS}) == len(TRANSCRIPTS)
    assert set(adapters.FILE_READERS) == {".pb", ".binpb", ".eval"}


def test_a_deferred_function_is_the_modules_and_pickles_by_name() -> None:
    chat = adapters.BY_NAME["openai-chat"]
    value = {"messages": [{"role": "user", "content": "hi"}]}
    assert chat.detect(value) is declared_adapter("providers.openai_chat").detect(value)
    shipped = pickle.loads(pickle.dumps(chat))
    assert shipped == chat
    assert shipped.convert(value, "t") == declared_adapter("providers.openai_chat").convert(
        value, "t"
    )


# Imported by a canonical run's process: the adapters package, the canonical adapter,
# the declaration, the registry and its one-pass detection (and the refusal rules it uses).
_EAGER = {
    "",
    ".core",
    ".core.base",
    ".core.canonical",
    ".core.claims",
    ".core.detect",
    ".core.exports",
    ".core.plugins",
    ".core.read",
    ".core.registry",
    ".core.table",  # the registry's rows (data)
    ".core.select",
}
_PROBE = """
import json, sys
from agent_reliability_harness.cli import main
code = main(sys.argv[1:])
names = sorted(m for m in sys.modules if m.startswith("agent_reliability_harness.adapters"))
print(json.dumps([code, names]))
"""


def test_a_canonical_run_imports_no_transcript_adapter(tmp_path) -> None:
    trace = {
        "trace_id": "t",
        "agent_name": "a",
        "workflow": "w",
        "steps": [{"step_id": "s1", "type": "model_response", "text": "ok"}],
    }
    (tmp_path / "t.json").write_text(json.dumps(trace))
    (tmp_path / "p.json").write_text(json.dumps({"policy_id": "p"}))
    argv = ["validate", "--policy", "p.json", "--quiet", "--jobs", "1", "t.json"]
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    code, names = json.loads(done.stdout.splitlines()[-1])
    assert code == 0
    assert {name.removeprefix("agent_reliability_harness.adapters") for name in names} == _EAGER
