"""Report-level invariances of policies v1.1 (issue 14): what the loader-level properties of
test_policy_properties.py promise holds for the reports themselves.

- v1 semantics spelled in v1.1 syntax (JSON Schema type names, one chain as a list of
  chains, bare patterns as unscoped objects) give byte-identical reports;
- `extends` by an empty child changes no report;
- YAML and JSON spellings of one policy give identical reports;
- a typo in any key gives exactly one report warning, naming that key.
"""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_reliability_harness import api
from agent_reliability_harness.models.policy import load_policy
from agent_reliability_harness.models.policy_warnings import policy_warnings
from policy_strategies import ARG_NAMES, JSON_VALUES, NAMES, to_yaml, valid_policies
from test_policy_properties import V1_POLICIES, one_typo

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Traces in the policies' vocabulary (tool and argument names), so that every rule has
# something to judge: calls with values, errors, outputs that may read as errors.
OUTPUTS = st.one_of(
    st.none(),
    JSON_VALUES,
    st.sampled_from(["Error: not found", "ok", {"status": "failed"}, ["x", "ORD-1234"]]),
)


@st.composite
def steps(draw: st.DrawFn, index: int) -> dict[str, Any]:
    step: dict[str, Any] = {"step_id": f"s{index}"}
    if draw(st.booleans()):
        step.update(type="tool_call", tool_name=draw(NAMES | st.sampled_from(["a", "b", "zz"])))
        step["arguments"] = draw(st.dictionaries(ARG_NAMES, JSON_VALUES, max_size=3))
        step["output"] = draw(OUTPUTS)
        if draw(st.booleans()):
            step["error"] = draw(st.sampled_from(["timeout", "secret"]))
    else:
        step.update(type="model_response", text=draw(st.sampled_from(["done", " ", "secret"])))
    return step


@st.composite
def traces(draw: st.DrawFn) -> list[dict[str, Any]]:
    out = []
    for n in range(draw(st.integers(1, 3))):
        count = draw(st.integers(0, 6))
        out.append(
            {
                "trace_id": f"t{n}",
                "agent_name": "agent",
                "workflow": draw(st.sampled_from(["wf-1", "refund", "other"])),
                "steps": [draw(steps(i)) for i in range(count)],
            }
        )
    return out


def _report(run_traces: list[dict[str, Any]], policy: Any) -> str:
    return api.report_json(api.validate(run_traces, policy))


# ------------------------------------------------------------------ v1 in v1.1 spelling

_SPELLINGS = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}
_SPELLINGS |= {"list": "array", "dict": "object"}


def _respell_spec(spec: Any) -> Any:
    if isinstance(spec, str):
        return _SPELLINGS.get(spec, spec)
    if isinstance(spec, dict) and isinstance(spec.get("type"), str):
        return {**spec, "type": _SPELLINGS.get(spec["type"], spec["type"])}
    return spec


def _respelled(policy: dict[str, Any]) -> dict[str, Any]:
    """The same v1 policy in v1.1 syntax that means exactly the same."""
    out = copy.deepcopy(policy)
    for tool in (out.get("allowed_tools") or {}).values():
        for key in ("required_arguments", "optional_arguments"):
            if isinstance(tool, dict) and isinstance(tool.get(key), dict):
                tool[key] = {name: _respell_spec(s) for name, s in tool[key].items()}
    sequence = out.get("sequence")
    order = sequence.get("call_order") if isinstance(sequence, dict) else None
    if isinstance(order, list) and order and all(isinstance(t, str) for t in order):
        sequence["call_order"] = [order]
    patterns = out.get("unsafe_patterns")
    if isinstance(patterns, list) and all(isinstance(p, str) for p in patterns):
        every = ["text", "arguments", "output", "error"]
        out["unsafe_patterns"] = [
            {"pattern": p} if i % 2 else {"pattern": p, "in": every} for i, p in enumerate(patterns)
        ]
    return out


def _v1_valid(value: dict[str, Any]) -> bool:
    try:
        api.policy_from_dict(value)
    except Exception:
        return False
    return True


@SETTINGS
@given(V1_POLICIES.filter(_v1_valid), traces())
def test_v1_policies_spelled_in_v11_syntax_give_identical_reports(
    value: dict[str, Any], run_traces: list[dict[str, Any]]
) -> None:
    value = {k: v for k, v in value.items() if k != "future_section"}
    assert _report(run_traces, _respelled(value)) == _report(run_traces, value)


# ------------------------------------------------------------------ extends, YAML


def _loaded_reports(
    run_traces: list[dict[str, Any]], files: dict[str, str], names: list[str]
) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        for name, text in files.items():
            (Path(folder) / name).write_text(text, encoding="utf-8")
        loaded = [load_policy(Path(folder) / name) for name in names]
        reports = []
        for item in loaded:
            # The warning section names files: compare what they say, not where they are.
            report = json.loads(_report(run_traces, item))
            for entry in report.get("policy_warnings", []):
                entry["source"] = Path(entry["source"]).name
            reports.append(json.dumps(report))
        return reports


@SETTINGS
@given(valid_policies(), traces())
def test_extending_by_an_empty_child_changes_no_report(
    value: dict[str, Any], run_traces: list[dict[str, Any]]
) -> None:
    child = f"policy_id: {json.dumps(value['policy_id'])}\nextends: base.json\n"
    base, extended = _loaded_reports(
        run_traces,
        {"base.json": json.dumps(value), "child.yaml": child},
        ["base.json", "child.yaml"],
    )
    assert extended == base


@SETTINGS
@given(valid_policies(), st.booleans(), traces())
def test_yaml_and_json_spellings_give_identical_reports(
    value: dict[str, Any], plain: bool, run_traces: list[dict[str, Any]]
) -> None:
    files = {
        "p.json": json.dumps(value, indent=2),
        "p.yaml": to_yaml(value, plain) + "\n",
        "p.yml": json.dumps(value),
    }
    reports = _loaded_reports(run_traces, files, ["p.json", "p.yaml", "p.yml"])
    assert reports[0] == reports[1] == reports[2]


# ------------------------------------------------------------------ one typo, one warning


@SETTINGS
@given(one_typo(), traces())
def test_a_typo_in_any_key_is_exactly_one_report_warning_naming_it(
    case: tuple[dict[str, Any], str], run_traces: list[dict[str, Any]]
) -> None:
    value, path = case
    run = api.validate(run_traces, value)
    unknown = [e for e in policy_warnings(run.sections) if e["message"].startswith("unknown key")]
    assert [e["path"] for e in unknown] == [path]
    assert sum(1 for e in policy_warnings(run.sections) if e["path"] == path) == 1
    assert json.loads(api.report_json(run))["policy_warnings"] == policy_warnings(run.sections)
