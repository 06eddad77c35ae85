"""Grounding rules (ARH-GRD-*): coverage scoring, severity by policy, citation validity."""

from __future__ import annotations

import pytest

from agent_reliability_harness.rules.grounding import citation_problem, valid_url
from helpers import findings, report, response


def _grounded(step_id: str, *citations: object) -> dict[str, object]:
    return response(step_id, requires_grounding=True, citations=list(citations))


def test_a_grounded_response_asks_for_citations_without_a_grounding_section() -> None:
    got = report([_grounded("a"), _grounded("b", {"source": "kb"})])
    assert [(f.rule_id, f.severity.value, f.step_id) for f in got.findings] == [
        ("ARH-GRD-001", "warning", "a")
    ]
    assert got.category_scores == {"grounding": 50.0} and got.citation_coverage == 0.5


def test_coverage_scores_against_the_minimum() -> None:
    steps = [_grounded("a"), _grounded("b", {"source": "kb"}), _grounded("c", {"source": "kb"})]
    policy = {"grounding": {"require_citations": True, "min_citation_coverage": 0.8}}
    got = report(steps, policy)
    assert [(f.rule_id, f.severity.value, f.step_id) for f in got.findings] == [
        ("ARH-GRD-001", "error", "a"),
        ("ARH-GRD-002", "error", None),
    ]
    assert got.category_scores["grounding"] == round(100 * (2 / 3) / 0.8, 2)
    policy = {"grounding": {"min_citation_coverage": 0.5}}
    assert report(steps, policy).category_scores["grounding"] == 100.0


def test_no_grounded_response_no_grounding_score() -> None:
    got = report([response("a")], {"grounding": {"require_citations": True}})
    assert got.findings == () and got.category_scores == {}


@pytest.mark.parametrize(
    ("citation", "problem"),
    [
        ({"url": "https://kb.example.com/a"}, None),
        ({"url": " http://x.y "}, None),
        ({"url": "ftp://files"}, "has a url that is not an http(s) URL with a host"),
        ({"url": "https://"}, "has a url that is not an http(s) URL with a host"),
        ({"url": 5}, "has a url that is not an http(s) URL with a host"),
        ({"source": "  "}, "has neither a url nor a non-blank source"),
        ({"url": None, "source": "kb"}, None),
        ("https://x.y", "is not an object"),
    ],
)
def test_citation_validity(citation: object, problem: str | None) -> None:
    assert citation_problem(citation) == problem


def test_invalid_citations_are_one_finding_each() -> None:
    policy = {"grounding": {"require_valid_citation_urls": True}}
    step = _grounded("a", {"url": "ftp://x"}, {"source": "kb"}, "raw")
    assert findings([step], policy) == [("ARH-GRD-003", "error", "a")] * 2
    assert valid_url("HTTPS://Example.com/path") and not valid_url("https://[::1")
