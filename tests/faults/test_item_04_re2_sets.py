"""Issue 18 item 4: twenty valid unsafe_patterns like `x0[a-z]{1000}` compile alone but not
as one RE2 set: the policy still works (each pattern matches what it matches alone), never
an internal error."""

from __future__ import annotations

import json
from pathlib import Path

from faultkit import assert_clean, cli, write_json

from helpers import make_trace, response


def test_patterns_too_big_for_one_set_still_match(tmp_path: Path) -> None:
    patterns = [f"x{i}[a-z]{{1000}}" for i in range(20)]
    policy = write_json(
        tmp_path / "p.json",
        {"policy_id": "p", "allow_unlisted_tools": True, "unsafe_patterns": patterns},
    )
    hit = write_json(
        tmp_path / "hit.json", make_trace(response("s1", "x17" + "q" * 1000), trace_id="hit")
    )
    clean = write_json(
        tmp_path / "clean.json", make_trace(response("s1", "x17short"), trace_id="ok")
    )
    code, out, err = cli(
        ["validate", "--policy", str(policy), str(hit), str(clean), "--quiet", "--json-out", "-"]
    )
    assert_clean(err, code)
    assert err == ""
    reports = {r["trace_id"]: r for r in json.loads(out)["reports"]}
    assert [f["rule_id"] for f in reports["hit"]["findings"]] == ["ARH-SAF-001"]
    assert reports["ok"]["findings"] == [] and reports["ok"]["passed"]
