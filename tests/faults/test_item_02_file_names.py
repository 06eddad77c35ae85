"""Issue 18 item 2: a trace file whose name is not valid UTF-8. Every report format is
written (the run is not aborted), and the name has one representation everywhere: each
undecodable byte as the four characters `\\xNN`, in source paths, console lines, error
lines and the trace ids derived from the name, `arh convert` included (its output is a
trace ARH reads back)."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

from faultkit import OPEN, assert_clean, cli, write_json

from helpers import ROOT

TRANSCRIPT = ROOT / "tests" / "adapters" / "fixtures" / "openai-chat" / "clean.json"
SHOWN = "bad\\xff"  # b"bad\xff" as every output shows it


def _hostile_dir(tmp_path: Path) -> Path:
    """traces/ holding b"bad\\xff.json": a transcript, so its trace id comes from the name."""
    traces = tmp_path / "traces"
    traces.mkdir()
    raw = os.path.join(os.fsencode(traces), b"bad\xff.json")
    with open(raw, "wb") as handle:
        handle.write(TRANSCRIPT.read_bytes())
    return traces


def test_every_report_is_written_for_a_name_that_is_not_utf8(tmp_path: Path) -> None:
    traces = _hostile_dir(tmp_path)
    policy = write_json(tmp_path / "p.json", OPEN)
    outputs = {kind: tmp_path / f"out.{kind}" for kind in ("json", "md", "sarif", "junit", "html")}
    flags = [arg for kind, path in outputs.items() for arg in (f"--{kind}-out", str(path))]
    code, out, err = cli(["validate", "--policy", str(policy), str(traces), *flags])
    assert_clean(err, code, (0,))
    assert f"[PASS] {SHOWN}  score" in out and f"traces/{SHOWN}.json" in out
    report = json.loads(outputs["json"].read_text(encoding="utf-8"))
    [entry] = report["reports"]
    assert entry["trace_id"] == SHOWN
    assert entry["source_path"].endswith(f"traces/{SHOWN}.json")
    json.loads(outputs["sarif"].read_text(encoding="utf-8"))
    ET.fromstring(outputs["junit"].read_bytes())
    assert SHOWN in outputs["md"].read_text(encoding="utf-8")
    outputs["html"].read_text(encoding="utf-8")  # valid UTF-8 throughout


def test_an_unreadable_file_with_such_a_name_gets_one_clean_line(tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    traces.mkdir()
    with open(os.path.join(os.fsencode(traces), b"x\xfe\xff.json"), "wb") as handle:
        handle.write(b"{not json")
    policy = write_json(tmp_path / "p.json", OPEN)
    code, _, err = cli(["validate", "--policy", str(policy), str(traces), "--json-out", "-"])
    assert_clean(err, code)
    assert err.startswith(f"error: {traces}/x\\xfe\\xff.json: invalid JSON: ")


def test_convert_derives_the_same_trace_id_and_its_output_reads_back(tmp_path: Path) -> None:
    traces = _hostile_dir(tmp_path)
    [name] = os.listdir(traces)
    code, out, err = cli(["convert", str(traces / name)])
    assert (code, err) == (0, "")
    converted = json.loads(out)
    assert converted["trace_id"] == SHOWN
    assert "\udcff" not in out
    again = tmp_path / "converted.json"
    again.write_text(out, encoding="utf-8")
    policy = write_json(tmp_path / "p.json", OPEN)
    code, _, err = cli(["validate", "--policy", str(policy), str(again), "--quiet"])
    assert (code, err) == (0, "")


def test_labels_that_are_not_utf8_are_refused(tmp_path: Path) -> None:
    code, _, err = cli(["convert", "--trace-id", os.fsdecode(b"\xff"), str(TRANSCRIPT)])
    assert code == 2
    assert "argument --trace-id: not valid UTF-8" in err


def test_an_output_path_that_is_not_utf8_is_written(tmp_path: Path) -> None:
    policy = write_json(tmp_path / "p.json", OPEN)
    target = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"r\xff.json"))
    code, _, err = cli(["validate", "--policy", str(policy), str(TRANSCRIPT), "--json-out", target])
    assert (code, err) == (0, "")
    assert json.loads(Path(target).read_text())["summary"]["total_traces"] == 1
    missing = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"no\xff", b"r.json"))
    code, _, err = cli(["validate", "--policy", str(policy), str(TRANSCRIPT), "--md-out", missing])
    assert code == 1
    assert err == f"error: {tmp_path}/no\\xff/r.json: cannot write: No such file or directory\n"
