"""ARH-GRD-*: citations on model responses that must be grounded."""

from __future__ import annotations

import re
from typing import Any

from ..models.common import Category, Severity
from ..models.policy import Policy
from .base import Counts, Hit, Moment, RuleContext, RuleResult, RuleState, rule

GROUNDING = Category.GROUNDING


def _grd001_severity(policy: Policy) -> Severity:
    return Severity.ERROR if policy.grounding.require_citations else Severity.WARNING


@rule(
    "ARH-GRD-001",
    GROUNDING,
    Severity.ERROR,
    moment=Moment.AFTER,
    title="Grounded response has no citations",
    remediation="Attach the sources the response relies on as citations.",
    severity_for=_grd001_severity,
    severity_note="error when grounding.require_citations is true, else warning",
    counts=Counts.COVERAGE,
)
class MissingCitations(RuleState):
    """One check per grounded response (the category's coverage); a hit per uncited one."""

    __slots__ = ()

    def __init__(self, policy: Policy) -> None:
        super().__init__(policy)
        self.result.target = policy.grounding.min_citation_coverage

    def scan(self, ctx: RuleContext) -> None:
        result = self.result
        for index, step in ctx.facts.grounded:
            result.checks += 1
            if not step.citations:
                result.failed += 1
                result.hits.append(
                    Hit(
                        index,
                        "response requires grounding but has no citations",
                        step_id=step.step_id,
                    )
                )


@rule(
    "ARH-GRD-002",
    GROUNDING,
    Severity.ERROR,
    moment=Moment.CLOSING,
    title="Citation coverage below minimum",
    remediation="Cite sources on more of the grounded responses, or lower min_citation_coverage.",
    applies=lambda p: bool(p.grounding.min_citation_coverage),
    counts=Counts.NONE,
)
def low_coverage(ctx: RuleContext) -> RuleResult:
    minimum = ctx.policy.grounding.min_citation_coverage
    coverage = ctx.facts.citation_coverage
    result = RuleResult()
    if coverage is not None and minimum is not None and coverage < minimum:
        cited, grounded = ctx.facts.cited_grounded, ctx.facts.grounded_count
        result.hits.append(
            Hit(
                None,
                f"citation coverage {cited}/{grounded} ({round(coverage, 4)}) is below "
                f"min_citation_coverage {minimum}",
                expected=minimum,
                observed=round(coverage, 4),
            )
        )
    return result


# The common valid URL, accepted without urlsplit: a lower-case http(s) scheme, `//`, a
# non-empty host of letters, digits, dots and dashes, an optional `:digits` port, then
# nothing or a `/`, `?` or `#` followed by printable ASCII (no space, no control
# character). For such a string the general check below finds (Python 3.11's urllib.parse):
# - nothing to strip: it starts with `h` and ends in a printable non-space ASCII character
#   (str.strip), and holds no C0 control, space, tab, CR or LF (what urlsplit removes);
# - the first `:` ends "http"/"https", which starts with a letter and holds only scheme
#   characters, so the scheme is http or https;
# - the netloc (from after `//` up to the first `/`, `?` or `#`) is exactly host[:port]:
#   no `[` or `]` (so no IPv6 checks or errors), ASCII (so no NFKC check), no `@`
#   (so no userinfo), and the hostname, before the first `:`, is the non-empty host.
#   The port is not checked (only SplitResult.port would); what follows the netloc only
#   goes to the path, query and fragment, which raise nothing.
# So the general check accepts it. Anything else (upper-case schemes, userinfo, IPv6,
# non-ASCII, whitespace, ...) takes the general check.
_SIMPLE_URL = re.compile(r"https?://[A-Za-z0-9.-]+(?::[0-9]*)?(?:[/?#][!-~]*)?")


def valid_url(url: Any) -> bool:
    """A string with an http or https scheme and a host."""
    if type(url) is str and _SIMPLE_URL.fullmatch(url) is not None:
        return True
    return _valid_url_general(url)


def _valid_url_general(url: Any) -> bool:
    if not isinstance(url, str):
        return False
    from urllib.parse import urlsplit  # noqa: PLC0415 - only past the common case above

    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(host)


def citation_problem(citation: Any) -> str | None:
    """Why a citation is unusable, or None when it is fine."""
    if not isinstance(citation, dict):
        return "is not an object"
    url = citation.get("url")
    if url is not None:
        return None if valid_url(url) else "has a url that is not an http(s) URL with a host"
    source = citation.get("source")
    if isinstance(source, str) and source.strip():
        return None
    return "has neither a url nor a non-blank source"


@rule(
    "ARH-GRD-003",
    GROUNDING,
    Severity.ERROR,
    moment=Moment.AFTER,
    title="Citation is not valid",
    remediation="Give each citation an http(s) url with a host, or a non-blank source.",
    applies=lambda p: p.grounding.require_valid_citation_urls,
    counts=Counts.NONE,
)
class InvalidCitation(RuleState):
    """A hit per unusable citation of a cited grounded response."""

    __slots__ = ()

    def scan(self, ctx: RuleContext) -> None:
        _invalid_citations(ctx, self.result)


def _invalid_citations(ctx: RuleContext, result: RuleResult) -> None:
    for index, step in ctx.facts.grounded:
        for position, citation in enumerate(step.citations):
            problem = citation_problem(citation)
            if problem is not None:
                shown = citation.get("url") if isinstance(citation, dict) else citation
                result.hits.append(
                    Hit(
                        index,
                        f"citation [{position}] {problem}",
                        observed=shown if isinstance(shown, str | int | float) else None,
                        step_id=step.step_id,
                    )
                )
