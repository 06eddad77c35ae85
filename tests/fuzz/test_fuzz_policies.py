"""Fuzz targets: policy loading from JSON and YAML. A policy either loads or is refused
with PolicyError; one that loads is then run against the sample traces, which must give
reports (a strange but valid policy value must not crash a rule)."""

from __future__ import annotations

import os
import tempfile
from functools import cache
from typing import Any

import yaml
from fuzzing import (
    JSON_VALUES,
    edited_json,
    fuzz,
    mutated_bytes,
    seed_bytes,
    seed_files,
    seed_values,
    to_json,
)
from hypothesis import given
from hypothesis import strategies as st

from agent_reliability_harness.api import report_json, validate
from agent_reliability_harness.errors import InputError, PolicyError
from agent_reliability_harness.models.policy import Policy, check_policy, load_policy
from agent_reliability_harness.models.trace import Trace, parse_trace


@cache
def _sample_traces() -> tuple[Trace, ...]:
    found: list[Trace] = []
    for value in seed_values("traces"):
        for item in value if isinstance(value, list) else [value]:
            try:
                found.append(parse_trace(item))
            except InputError:  # the seeds hold malformed traces on purpose
                continue
    return tuple(found)


def _evaluate(policy: Policy) -> None:
    traces = _sample_traces()
    run = validate(traces, policy)
    assert len(run.reports) + len(run.input_errors) == len(traces)
    assert all(0 <= report.score <= 100 for report in run.reports)
    report_json(run)


def _load(data: bytes, suffix: str) -> Policy | None:
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "policy" + suffix)
        with open(path, "wb") as handle:
            handle.write(data)
        try:
            return load_policy(path).policy
        except PolicyError:
            return None


def _json_seeds() -> tuple[bytes, ...]:
    return tuple(
        data
        for path, data in zip(seed_files("policies"), seed_bytes("policies"), strict=True)
        if path.suffix == ".json"
    )


def _yaml_seeds() -> tuple[bytes, ...]:
    return tuple(
        data
        for path, data in zip(seed_files("policies"), seed_bytes("policies"), strict=True)
        if path.suffix in (".yaml", ".yml")
    )


def _policy_values() -> tuple[Any, ...]:
    return tuple(v for v in seed_values("policies") if isinstance(v, dict))


@fuzz()
@given(
    source=st.one_of(
        mutated_bytes(_json_seeds()),
        st.builds(to_json, edited_json(_policy_values())),
    ),
    value=st.one_of(edited_json(_policy_values()), JSON_VALUES),
)
def test_fuzz_policy_json(source: bytes, value: Any) -> None:
    loaded = _load(source, ".json")
    if loaded is not None:
        _evaluate(loaded)
    try:
        compiled = check_policy(value).policy
    except PolicyError:
        return
    _evaluate(compiled)


def _yaml_text(value: Any) -> bytes:
    try:
        return yaml.safe_dump(value, allow_unicode=True).encode("utf-8", "surrogatepass")
    except yaml.YAMLError:
        return b"policy_id: p\n"


@fuzz()
@given(
    source=st.one_of(
        mutated_bytes(_yaml_seeds()),
        st.builds(_yaml_text, edited_json(_policy_values())),
        mutated_bytes(tuple(_yaml_text(v) for v in _policy_values())),
    )
)
def test_fuzz_policy_yaml(source: bytes) -> None:
    loaded = _load(source, ".yaml")
    if loaded is not None:
        _evaluate(loaded)
