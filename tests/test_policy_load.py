"""Loading policy files: JSON and YAML, `extends` chains, directories, strict, and the
errors each refusal prints through the CLI."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_reliability_harness.cli import main
from agent_reliability_harness.cli.common import Streams
from agent_reliability_harness.errors import PolicyError
from agent_reliability_harness.models.policy import (
    LoadedPolicy,
    PolicyWarning,
    check_policy,
    load_policies,
    load_policy,
)
from helpers import SAMPLES, make_trace, tool_call


def run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, Streams(out, err, io.BytesIO()))
    return code, out.getvalue(), err.getvalue()


def write(path: Path, value: Any) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = value if isinstance(value, str) else json.dumps(value)
    path.write_text(text, encoding="utf-8")
    return str(path)


def refused(path: str | Path, strict: bool = False) -> str:
    with pytest.raises(PolicyError) as info:
        load_policy(path, strict)
    return str(info.value)


# ------------------------------------------------------------------ YAML


def test_yaml_policy_reads_as_its_json_twin(tmp_path: Path) -> None:
    twin = json.loads((SAMPLES / "policy.json").read_text())
    yaml = write(tmp_path / "p.yaml", json.dumps(twin))  # JSON is YAML 1.2
    assert load_policy(yaml).policy == load_policy(SAMPLES / "policy.json").policy


YAML_1_1_SURPRISES = """
policy_id: p
allowed_tools:
  t:
    required_arguments:
      answer: {type: str, enum: [yes, no, on, off, y, n]}
      clock: {type: str, enum: [1:20, 2001-12-14, 0o17x, 012]}
"""


def test_yaml_is_1_2_core_schema(tmp_path: Path) -> None:
    policy = load_policy(write(tmp_path / "p.yml", YAML_1_1_SURPRISES)).policy
    args = policy.allowed_tools["t"].required_arguments
    assert args["answer"].enum == ("yes", "no", "on", "off", "y", "n")
    # 1:20 is no sexagesimal, a date stays a string, 012 is decimal twelve.
    assert args["clock"].enum == ("1:20", "2001-12-14", "0o17x", 12)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "policy_id: p\npolicy_id: q\n",
            "invalid YAML: duplicate key 'policy_id' (line 2, column 1)",
        ),
        (
            "policy_id: !!str p\n",
            "invalid YAML: tags are not supported (found tag:yaml.org,2002:str)",
        ),
        ("policy_id: !custom p\n", "tags are not supported (found !custom)"),
        (
            "base: &b {max_steps: 3}\npolicy_id: p\ncompletion:\n  <<: *b\n",
            "merge keys ('<<') are YAML 1.1 and not supported; use extends (line 4, column 3)",
        ),
        ("policy_id: p\n1: x\n", "mapping keys must be strings (quote the key) (line 2, column 1)"),
        ("policy_id: p\nx-a: *nothing\n", "alias *nothing names no anchor before it"),
        ("policy_id: p\n---\npolicy_id: q\n", "holds one YAML document, this one holds more"),
        ("%YAML 1.1\n---\npolicy_id: p\n", "%YAML 1.1 is not supported (ARH reads YAML 1.2)"),
        ("policy_id: p\nx-n: .inf\n", ".inf is not allowed"),
        ("policy_id: p\nx-n: 1e999\n", "number 1e999 is out of range"),
        ('policy_id: p\nx-s: "\\ud800"\n', "lone surrogate"),
        ("policy_id: [p\n", "invalid YAML: "),
        ("- policy_id\n", "policy must be a YAML mapping (got array)"),
        ("", "policy must be a YAML mapping (got null)"),
    ],
)
def test_yaml_refusals_name_line_and_column(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path / "p.yaml", text)
    assert message in refused(path)


def test_yaml_aliases_are_plain_and_bounded(tmp_path: Path) -> None:
    shared = "policy_id: p\nx-list: &l [a, b]\nsequence:\n  required_tools: *l\n"
    assert load_policy(write(tmp_path / "a.yaml", shared)).policy.sequence.required_tools == (
        "a",
        "b",
    )
    laughs = ["policy_id: p", "x-0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    laughs += [f"x-{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 8)]
    message = refused(write(tmp_path / "b.yaml", "\n".join(laughs) + "\n"))
    assert "aliases expand the document beyond 1000000 values" in message


def test_yaml_without_the_extra_names_it(tmp_path: Path) -> None:
    """Through the CLI, in a fresh interpreter where `import yaml` fails."""
    policy = write(tmp_path / "p.yaml", "policy_id: p\n")
    trace = write(tmp_path / "t.json", make_trace())
    code = (
        "import sys; sys.modules['yaml'] = None; "
        "from agent_reliability_harness.cli import main; "
        f"sys.exit(main(['validate', '--policy', {policy!r}, {trace!r}]))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == (
        f"error: invalid policy {policy}: reading YAML policies needs the 'yaml' extra: "
        "pip install 'arh-harness[yaml]'\n"
    )


def test_json_that_fails_to_parse_says_so(tmp_path: Path) -> None:
    path = write(tmp_path / "p.json", "policy_id: p\n")
    assert refused(path) == (
        f"invalid policy {path}: invalid JSON: Expecting value (line 1, column 1)"
    )


def test_policy_reads_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "cannot read: a character device, not a regular file" in refused("/dev/zero")
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 2000 + b"{}")
    monkeypatch.setenv("ARH_MAX_INPUT_BYTES", "1K")  # the one input limit (io.py)
    assert "cannot read: larger than the input limit of 1024 bytes" in refused(big)


# ------------------------------------------------------------------ extends


def test_extends_merges_objects_and_replaces_lists(tmp_path: Path) -> None:
    write(
        tmp_path / "base.json",
        {
            "policy_id": "base",
            "allowed_tools": {"a": {"max_calls": 2, "side_effect": True}, "b": {}},
            "unsafe_patterns": ["one", "two"],
            "budgets": {"max_total_tokens": 100, "max_total_cost_usd": 1},
        },
    )
    child = write(
        tmp_path / "kids" / "child.json",
        {
            "policy_id": "child",
            "extends": "../base.json",
            "allowed_tools": {"a": {"max_calls": 5}},
            "unsafe_patterns": ["three"],
            "budgets": {"max_total_tokens": None},  # null: not set here, the base's stays
        },
    )
    policy = load_policy(child).policy
    assert policy.policy_id == "child"
    assert policy.allowed_tools["a"].max_calls == 5 and policy.allowed_tools["a"].side_effect
    assert set(policy.allowed_tools) == {"a", "b"}
    assert policy.unsafe_patterns.patterns == ("three",)
    assert policy.budgets.max_total_tokens == 100 and policy.budgets.max_total_cost_usd == 1


def test_extends_a_list_left_to_right_and_yaml_over_json(tmp_path: Path) -> None:
    write(tmp_path / "one.json", {"completion": {"max_steps": 1, "require_final_response": True}})
    write(tmp_path / "two.yaml", "completion:\n  max_steps: 2\n")
    child = write(tmp_path / "c.yaml", "policy_id: c\nextends: [one.json, two.yaml]\n")
    completion = load_policy(child).policy.completion
    assert completion.max_steps == 2 and completion.require_final_response


def test_child_must_name_itself(tmp_path: Path) -> None:
    write(tmp_path / "base.json", {"policy_id": "base"})
    child = write(tmp_path / "child.json", {"extends": "base.json"})
    assert refused(child) == f"invalid policy {child}: policy policy_id: is required"


def test_extends_cycles_and_missing_files_name_the_chain(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "a.json", {"policy_id": "a", "extends": "b.json"})
    write(tmp_path / "b.json", {"extends": ["c.json", "a.json"]})
    write(tmp_path / "c.json", {})
    assert (
        refused("a.json")
        == "invalid policy a.json: extends forms a cycle: a.json -> b.json -> a.json"
    )
    write(tmp_path / "d.json", {"policy_id": "d", "extends": "sub/e.json"})
    write(tmp_path / "sub" / "e.json", {"extends": "../missing.json"})
    assert refused("d.json") == (
        "invalid policy d.json: extends d.json -> sub/e.json -> missing.json: "
        "cannot read: No such file or directory"
    )
    write(tmp_path / "f.json", {"policy_id": "f", "extends": "bad.json"})
    write(tmp_path / "bad.json", "{oops")
    assert refused("f.json").startswith(
        "invalid policy f.json: extends f.json -> bad.json: invalid JSON"
    )
    write(tmp_path / "g.json", {"policy_id": "g", "extends": 3})
    assert refused("g.json") == (
        "invalid policy g.json: policy extends: must be a file path or a list of file paths "
        "(got number)"
    )


def test_a_policy_object_cannot_extend() -> None:
    with pytest.raises(PolicyError, match="only a policy file can extend"):
        check_policy({"policy_id": "p", "extends": "base.json"})


# ------------------------------------------------------------------ directories


def test_directories_load_in_sorted_order(tmp_path: Path) -> None:
    folder = tmp_path / "policies"
    write(folder / "b.yaml", "policy_id: b\n")
    write(folder / "a.json", {"policy_id": "a"})
    write(folder / "c.yml", "policy_id: c\n")
    write(folder / "notes.txt", "not a policy")
    write(folder / "bases" / "z.json", {"not": "a policy"})  # sub-directories are not walked
    extra = write(tmp_path / "first.json", {"policy_id": "first"})
    loaded = load_policies([extra, str(folder)])
    assert [p.policy.policy_id for p in loaded] == ["first", "a", "b", "c"]
    assert [p.source for p in loaded][1:] == [
        str(folder / n) for n in ("a.json", "b.yaml", "c.yml")
    ]


def test_directory_problems(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(PolicyError, match=r"directory contains no \*\.json, \*\.yaml or \*\.yml"):
        load_policies([str(tmp_path / "empty")])
    one = write(tmp_path / "one.json", {"policy_id": "same"})
    two = write(tmp_path / "two.json", {"policy_id": "same"})
    with pytest.raises(PolicyError) as info:
        load_policies([one, two])
    assert str(info.value) == f"invalid policy {two}: policy_id 'same' is already used by {one}"


def test_samples_policies_load() -> None:
    loaded = load_policies([str(SAMPLES / "policies")])
    assert [p.policy.policy_id for p in loaded] == [
        "support-refunds",
        "support-order-status",
        "support-default",
    ]
    assert all(not p.warnings for p in loaded)
    refunds, status, fallback = (p.policy for p in loaded)
    assert refunds.applies_to is not None and refunds.applies_to.matches("t", "a", "refund", None)
    assert status.applies_to is not None and not status.applies_to.matches(
        "t", "a", "refunds", None
    )
    assert fallback.applies_to is None
    assert refunds.budgets == fallback.budgets  # inherited from the base


# ------------------------------------------------------------------ strict and warnings


def test_warnings_come_back_with_the_policy_and_strict_refuses(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "base.json", {"budgets": {"max_total_cost": 1}})
    write(tmp_path / "p.json", {"policy_id": "p", "extends": "base.json", "completoin": {}})
    loaded = load_policy("p.json")
    assert loaded == LoadedPolicy(
        loaded.policy,
        (
            PolicyWarning("completoin", "unknown key (did you mean 'completion'?)", "p.json"),
            PolicyWarning(
                "budgets.max_total_cost",
                "unknown key (did you mean 'max_total_cost_usd'?)",
                "base.json",
            ),
        ),
        "p.json",
    )
    assert refused("p.json", strict=True) == (
        "invalid policy p.json: policy completoin: unknown key (did you mean 'completion'?); "
        "base.json: policy budgets.max_total_cost: unknown key (did you mean "
        "'max_total_cost_usd'?)"
    )


def test_json_duplicate_keys_warn(tmp_path: Path) -> None:
    path = write(
        tmp_path / "p.json",
        '{"policy_id": "p", "budgets": {"max_total_tokens": 1, "max_total_tokens": 2}}',
    )
    loaded = load_policy(path)
    assert loaded.policy.budgets.max_total_tokens == 2  # v1: the last one, as before
    assert [str(w) for w in loaded.warnings] == [
        "policy budgets.max_total_tokens: duplicate key (the last value is used)"
    ]


# ------------------------------------------------------------------ issue 18, items 3 and 4


def test_huge_argument_bound_is_an_invalid_policy(tmp_path: Path) -> None:
    text = '{"policy_id": "p", "allowed_tools": {"t": {"required_arguments": {"a": {"max": 1%s}}}}}'
    policy = write(tmp_path / "p.json", text % ("0" * 309))
    trace = write(tmp_path / "t.json", make_trace(tool_call("s1", "t", {"a": 1})))
    code, out, err = run(["validate", "--policy", policy, trace])
    assert (code, out) == (1, "")
    assert err == (
        f"error: invalid policy {policy}: policy tool 't' argument 'a'.max: must be a finite "
        "number (got an integer of 310 digits)\n"
    )


def test_many_large_unsafe_patterns_find_what_each_finds_alone(tmp_path: Path) -> None:
    patterns = [f"x{i}[a-z]{{1000}}" for i in range(20)]
    policy = write(
        tmp_path / "p.json",
        {"policy_id": "p", "allow_unlisted_tools": True, "unsafe_patterns": patterns},
    )
    texts = ["x3" + "a" * 1000, "nothing", "x17" + "b" * 999 + " x0" + "c" * 1000]
    trace = make_trace(*(tool_call(f"s{i}", "t", {"q": text}) for i, text in enumerate(texts)))
    out = tmp_path / "r.json"
    code, _, err = run(
        [
            "validate",
            "--policy",
            policy,
            write(tmp_path / "t.json", trace),
            "--json-out",
            str(out),
            "--quiet",
        ]
    )
    assert err == "" and code == 1
    found = [
        (f["step_id"], f["message"].split("'")[1])
        for f in json.loads(out.read_text())["reports"][0]["findings"]
    ]
    assert found == [("s0", "x3[a-z]{1000}"), ("s2", "x0[a-z]{1000}")]


def test_cli_loads_yaml_policies() -> None:
    code, _, err = run(
        [
            "validate",
            "--policy",
            str(SAMPLES / "policies" / "base" / "support.yaml"),
            "--quiet",
            str(SAMPLES / "traces" / "refund-ok.json"),
        ]
    )
    assert err == "" and code in (0, 1)


def test_loading_json_policies_never_imports_yaml() -> None:
    code = (
        "import sys; from agent_reliability_harness.models.policy import load_policy; "
        f"load_policy({str(SAMPLES / 'policy.json')!r}); print('yaml' in sys.modules)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "False"
