"""What a run reads: directory walks (order, names, symlinks, unreadable folders), name
hints when file stems collide, and runs that hold no trace at all."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from agent_reliability_harness import api
from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.errors import InputError
from agent_reliability_harness.inputs import Entry, expand_paths, walk
from agent_reliability_harness.io import Failure, display_path
from helpers import SAMPLES

TREE = [
    "a.json",
    "a/b.json",
    "a/c/d.jsonl",
    "a-b.json",
    "B.json",
    "z/x.jsonl",
    "z/y.txt",
    "é.json",
    ".hidden.json",
    "noext",
    "dir.json/inner.json",
]


def _tree(root: Path) -> None:
    for rel in TREE:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
    os.symlink(root / "a", root / "linked-dir")  # not entered (as rglob does not)
    os.symlink(root / "a.json", root / "linked.json")  # a symlinked file is kept


def _rglob(root: Path) -> list[str]:
    """The walk of the old pathlib code, as the reference for order and membership."""
    found = sorted(
        (p for p in root.rglob("*") if p.suffix in (".json", ".jsonl") and p.is_file()),
        key=lambda p: p.relative_to(root).parts,
    )
    return [display_path(p) for p in found]


@pytest.mark.parametrize("how", ["relative", "dot", "absolute", "outside"])
def test_walk_matches_the_pathlib_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    root = tmp_path / "runs"
    root.mkdir()
    _tree(root)
    cwd = {"relative": tmp_path, "dot": root, "absolute": tmp_path, "outside": root / "z"}[how]
    monkeypatch.chdir(cwd)
    arg = {"relative": "runs", "dot": ".", "absolute": str(root), "outside": str(root)}[how]
    entries = expand_paths([arg])
    assert all(isinstance(e, Entry) for e in entries)
    assert [e.name for e in entries if isinstance(e, Entry)] == _rglob(Path(arg))


def test_unreadable_subdirectory_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "d" / "locked").mkdir(parents=True)
    (tmp_path / "d" / "ok.json").write_text("{}")
    (tmp_path / "d" / "z.json").write_text("{}")
    real = os.scandir

    def scandir(path: str) -> object:
        if str(path).endswith("locked"):  # as chmod 0 does (the tests may run as root)
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(walk.os, "scandir", scandir)
    entries = expand_paths([str(tmp_path / "d")])
    assert entries == [
        Failure(f"{tmp_path}/d/locked", "cannot read: Permission denied"),
        Entry(f"{tmp_path}/d/ok.json", f"{tmp_path}/d/ok.json", "ok"),
        Entry(f"{tmp_path}/d/z.json", f"{tmp_path}/d/z.json", "z"),
    ]


def test_adapter_suffixes_are_walked(tmp_path: Path) -> None:
    (tmp_path / "x.traj").write_text("{}")
    (tmp_path / "y.json").write_text("{}")
    names = [e.name for e in expand_paths([str(tmp_path)], (".traj",)) if isinstance(e, Entry)]
    assert names == [f"{tmp_path}/x.traj", f"{tmp_path}/y.json"]
    (empty := tmp_path / "empty").mkdir()
    assert expand_paths([str(empty)], (".traj",)) == [
        Failure(str(empty), "directory contains no *.json, *.jsonl or *.traj files")
    ]


def _hints(paths: list[str]) -> dict[str, str]:
    return {e.name: e.hint for e in expand_paths(paths) if isinstance(e, Entry)}


def test_name_hints_when_stems_collide(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for rel in ("runs/a/run.json", "runs/b/run.jsonl", "runs/c/other.json", "x/run.json"):
        Path(rel).parent.mkdir(parents=True, exist_ok=True)
        Path(rel).write_text("{}")
    assert _hints(["runs"]) == {
        "runs/a/run.json": "a/run",
        "runs/b/run.jsonl": "b/run",
        "runs/c/other.json": "other",  # no collision: the stem, as before
    }
    # Relative paths collide across two directories: the paths shown, without suffix.
    assert _hints(["runs/a", "x"]) == {"runs/a/run.json": "runs/a/run", "x/run.json": "x/run"}
    assert _hints(["runs/a/run.json", "runs/a/run.json"]) == {"runs/a/run.json": "run"}


def _cli(args: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO(stdin)))
    return code, out.getvalue(), err.getvalue()


def test_colliding_transcripts_get_distinct_ids_and_compare_accepts_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    chat = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]}
    for folder in ("a", "b"):
        (tmp_path / "runs" / folder).mkdir(parents=True)
        (tmp_path / "runs" / folder / "run.json").write_text(json.dumps(chat))
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"policy_id": "p"}))
    base = ["--policy", str(policy), "runs", "--format", "openai-chat"]
    code, out, _ = _cli(["validate", *base, "--quiet", "--json-out", "baseline.json"])
    assert code == 0
    ids = [r["trace_id"] for r in json.loads(Path("baseline.json").read_text())["reports"]]
    assert ids == ["a/run", "b/run"]
    code, out, err = _cli(["compare", "--baseline", "baseline.json", *base])
    assert (code, err) == (0, "")
    assert out.startswith("GATE: PASS")


@pytest.mark.parametrize(("name", "content"), [("e.jsonl", ""), ("a.json", "[]"), ("d", None)])
def test_a_run_without_traces_fails_unless_allowed(
    tmp_path: Path, name: str, content: str | None
) -> None:
    target = tmp_path / name
    if content is None:
        target.mkdir()
    else:
        target.write_text(content)
    args = ["validate", "--policy", str(SAMPLES / "policy.json"), str(target)]
    code, out, err = _cli(args)
    assert code == 1
    if content is None:
        assert err.startswith(f"error: {target}: directory contains no *.json, *.jsonl")
    else:
        assert err == (
            "error: no traces found in the given paths "
            "(an empty run fails; pass --allow-empty to accept one)\n"
        )
    code, out, err = _cli([*args, "--allow-empty"])
    assert (code, err) == (0, "warning: no traces found in the given paths\n")
    assert out.startswith("0 traces: 0 passed")
    policy = api.load_policy(str(SAMPLES / "policy.json"))
    if content is not None:
        with pytest.raises(InputError, match="no traces found"):
            api.validate_paths([str(target)], policy)
    assert api.validate_paths([str(target)], policy, allow_empty=True).reports == ()
