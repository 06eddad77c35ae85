"""The binary-input hook through the pipeline (inputs/ walks the suffixes the adapters
declare, the reader decodes each file by its suffix): a directory of OTLP protobuf and
Inspect `.eval` files is judged alike by every executor, and a missing optional extra is
one error line per file, naming what to install, while every other input is judged."""

from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness.adapters import FILE_READERS, WALK_SUFFIXES
from agent_reliability_harness.adapters.harnesses import inspect_zip
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.inputs import iter_documents
from agent_reliability_harness.io import Document, Failure
from agent_reliability_harness.version import DISTRIBUTION

HERE = Path(__file__).resolve().parent
FIX = HERE / "fixtures"
BINARY = sorted(p for p in FIX.rglob("*") if p.suffix in FILE_READERS)
OTLP = "opentelemetry.proto.collector.trace.v1.trace_service_pb2"


def arh(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def _tree(tmp_path: Path, *extra: Path) -> Path:
    """The binary fixtures (and `extra` files) copied under one directory, by format."""
    root = tmp_path / "runs"
    for path in (*BINARY, *extra):
        (root / path.parent.name).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, root / path.parent.name / path.name)
    return root


def _validate(tmp_path: Path, root: Path, *options: str) -> tuple[int, str, dict[str, Any]]:
    policy, report = tmp_path / "policy.json", tmp_path / "report.json"
    policy.write_text('{"policy_id": "p"}', "utf-8")
    argv = ("validate", "--policy", str(policy), "--quiet", "--json-out", str(report))
    code, out, err = arh(*argv, *options, str(root))
    assert out == ""
    return code, err, json.loads(report.read_text("utf-8"))


def test_every_binary_suffix_is_walked_and_said_in_the_help(capsys: Any) -> None:
    assert {".pb", ".binpb", ".eval"} <= set(FILE_READERS) <= set(WALK_SUFFIXES)
    assert {p.suffix for p in BINARY} == {".pb", ".binpb", ".eval"}
    code, out, _ = arh("validate", "--help")  # argparse prints help on sys.stdout
    assert code == 0
    said = " ".join((out + capsys.readouterr().out).split())
    assert all(f"*{s}" in said for s in WALK_SUFFIXES), said


def test_a_directory_of_binary_files_is_judged_alike_by_every_executor(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    code, err, one = _validate(tmp_path, root, "--jobs", "1")
    assert (code, err, one["input_errors"]) == (1, "", [])  # the default policy fails them
    judged = {Path(r["source_path"]).name for r in one["reports"]}
    assert judged == {p.name for p in BINARY}
    _, _, two = _validate(tmp_path, root, "--jobs", "2")
    assert two == one


def test_missing_extras_are_one_line_per_file_and_the_rest_is_judged(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setitem(sys.modules, OTLP, None)
    monkeypatch.setattr(inspect_zip, "_stdlib_zstd", lambda: False)
    monkeypatch.setitem(sys.modules, "zstandard", None)
    root = _tree(tmp_path, FIX / "openai-chat" / "clean.json")
    code, err, report = _validate(tmp_path, root, "--jobs", "1")
    otlp = f"reading OTLP protobuf needs the 'otlp' extra: pip install '{DISTRIBUTION}[otlp]'"
    zstd = (
        "reading a zstd-compressed Inspect log needs Python 3.14 or the 'inspect' extra: "
        f"pip install '{DISTRIBUTION}[inspect]'"
    )
    wanted = {
        (root / p.parent.name / p.name).as_posix(): otlp for p in BINARY if p.suffix != ".eval"
    }
    wanted[(root / "inspect" / "refunds.eval").as_posix()] = zstd
    assert code == 1
    assert {e["source_path"]: e["message"] for e in report["input_errors"]} == wanted
    assert sorted(err.splitlines()) == sorted(f"error: {p}: {m}" for p, m in wanted.items())
    # A deflate archive needs no extra, and plain JSON never does.
    judged = {Path(r["source_path"]).name for r in report["reports"]}
    assert judged == {"epochs-deflate.eval", "clean.json"}


@pytest.mark.parametrize("path", BINARY, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_truncated_binary_file_is_an_input_error_and_the_others_are_judged(
    tmp_path: Path, path: Path
) -> None:
    root = _tree(tmp_path)
    broken = root / path.parent.name / path.name
    broken.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
    code, err, report = _validate(tmp_path, root, "--jobs", "1")
    assert code == 1
    assert [e["source_path"] for e in report["input_errors"]] == [broken.as_posix()]
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    judged = {Path(r["source_path"]).name for r in report["reports"]}
    assert judged == {p.name for p in BINARY if p != path}


def test_iter_documents_reads_binary_files_with_the_readers(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    (plain,) = iter_documents([str(root)])  # their suffixes are walked when asked for
    assert isinstance(plain, Failure) and "no *.json or *.jsonl files" in plain.message
    found = list(iter_documents([str(root)], suffixes=WALK_SUFFIXES, readers=FILE_READERS))
    assert all(isinstance(d, Document) for d in found)
    by_file = {Path(d.source_path).name for d in found}
    assert by_file == {p.name for p in BINARY}
