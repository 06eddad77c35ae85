"""ARH-SAF-002: secrets in a tool call's arguments, output or error.

Known credential formats only (private key blocks with a body, cloud and model-provider
API keys, source-host tokens, credentials in URLs), so that a run that does not really
handle a secret has no finding: documentation placeholders (`AKIA...EXAMPLE`, `xxxx`,
`<token>`, `your-key`) and one-character runs are not secrets. A finding shows only the
secret's kind and a redacted form (its first and last characters), never the secret.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..models.common import Category, Severity
from ..models.trace import Step
from .base import Hit, Moment, RuleContext, RuleState, rule
from .safety import decided_before, text_blobs

# (name, pattern): each pattern is a literal prefix and bounded character classes
# (linear time on any text).
_FORMATS = (
    (
        "a private key",
        r"-----BEGIN (?:[A-Z]+ )?PRIVATE KEY(?: BLOCK)?-----\s*[A-Za-z0-9+/=\s:,-]{64}",
    ),
    ("an AWS access key ID", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("an Anthropic API key", r"\bsk-ant-(?:api|admin)[0-9]{2}-[A-Za-z0-9_-]{80,}"),
    (
        "an OpenAI API key",
        r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}",
    ),
    ("a Google API key", r"\bAIza[0-9A-Za-z_-]{35}\b"),
    ("a GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{80,})\b"),
    ("a GitLab token", r"\bglpat-[0-9A-Za-z_-]{20}\b"),
    ("a Slack token", r"\bxox[abposr]-[0-9]{6,}-[0-9A-Za-z-]{10,}"),
    ("a Stripe secret key", r"\b[sr]k_live_[0-9A-Za-z]{24,}\b"),
    ("a Hugging Face token", r"\bhf_[A-Za-z]{34}\b"),
    ("an npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    (
        "a password in a URL",
        r"\b[a-z][a-z0-9+.-]{1,20}://[^\s/:@\"'<>]{1,64}:[^\s/@\"'<>]{6,128}@[A-Za-z0-9.-]+",
    ),
    (
        "a token in a URL",
        r"[?&](?:access_token|api_key|apikey|token|private_token|client_secret)=[A-Za-z0-9._~%-]{20,}",
    ),
)
_PATTERN = re.compile("|".join(f"(?P<f{n}>{p})" for n, (_, p) in enumerate(_FORMATS)))
_PLACEHOLDER = re.compile(
    r"example|xxxx|\.\.\.|<|>|\{|\}|your|placeholder|redacted|dummy|changeme|\*\*\*|"
    r"password@|passwd@|secret@|pass@|:pw@",
    re.IGNORECASE,
)


def _secrets(text: str) -> Iterator[tuple[str, str]]:
    """(kind, value) of each credential-shaped value in a text that is not a placeholder."""
    for match in _PATTERN.finditer(text):
        value = match.group(0)
        if (
            _PLACEHOLDER.search(value)
            or _monotonous(value)
            or _PRESIGNED.search(text, max(0, match.start() - 40), match.start())
        ):
            continue
        kind = _FORMATS[int(str(match.lastgroup)[1:])][0]
        if kind == _URL_PASSWORD and _default_password(value):
            continue
        yield kind, value


_URL_PASSWORD = "a password in a URL"
# Passwords of local development databases and examples: not secrets anyone can leak.
_DEFAULTS = frozenset(
    [
        "postgres",
        "password",
        "passwd",
        "root",
        "admin",
        "secret",
        "test",
        "guest",
        "user",
        "pass",
        "changeme",
        "mysql",
        "redis",
        "example",
        "sa",
        "rabbitmq",
        "minioadmin",
    ]
)


def _default_password(url: str) -> bool:
    """Whether a URL's password is its user name or a well-known default."""
    credentials = url.split("://", 1)[1].rsplit("@", 1)[0]
    user, _, password = credentials.partition(":")
    return password == user or password.lower() in _DEFAULTS


# A presigned URL names the access key ID it was signed with: not a leaked secret.
_PRESIGNED = re.compile(r"(?:Credential|AWSAccessKeyId)=$", re.IGNORECASE)


def _monotonous(value: str) -> bool:
    """A run of one character (`AKIAAAAAAAAAAAAAAAAA`), not a real key."""
    body = value[-16:]
    return len(set(body)) <= 3


def redact(value: str) -> str:
    value = value.split("\n", 1)[0]
    return value[:6] + "..." + value[-2:] if len(value) > 12 else "..."


@rule(
    "ARH-SAF-002",
    Category.SAFETY,
    Severity.ERROR,
    title="Secret in a tool call",
    remediation="Rotate the secret, then keep secrets out of what the agent passes and "
    "reads: give tools their credentials outside the model's context, and redact outputs.",
    applies=lambda p: p.safety.secrets,
    since="1.3",
    moment=Moment.PREVENTIVE,
    decided_before=decided_before,
)
class SecretInCall(RuleState):
    """One check per tool call; a hit per call and secret kind found in its arguments,
    output or error (the first place it is found). `observed` is where and the redacted
    secret (`arguments: AKIAZ7...3B`): those in the arguments are known before the call."""

    def scan(self, ctx: RuleContext) -> None:
        result = self.result
        for index, step in ctx.facts.calls:
            result.checks += 1
            hits = _hits(index, step, with_results=True)
            result.failed += bool(hits)
            result.hits += hits

    def probe(self, ctx: RuleContext, index: int, step: Step) -> list[Hit]:
        """The hits on the tool call `step` if it came next (its arguments only)."""
        return _hits(index, step, with_results=False)


def _hits(index: int, step: Step, with_results: bool) -> list[Hit]:
    return [
        Hit(
            index,
            f"{kind} in the {where} of '{step.tool_name}'",
            observed=f"{where}: {redact(value)}",
            step_id=step.step_id,
        )
        for kind, (where, value) in _found(step, with_results).items()
    ]


def _found(step: Step, with_results: bool = True) -> dict[str, tuple[str, str]]:
    found: dict[str, tuple[str, str]] = {}
    for where, blob in text_blobs(step):
        if where == "text" or (not with_results and not where.startswith("arguments")):
            continue
        for kind, value in _secrets(blob):
            found.setdefault(kind, (where.split(".", 1)[0].split("[", 1)[0], value))
    return found
