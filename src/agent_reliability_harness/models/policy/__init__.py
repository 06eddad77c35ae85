"""Policies (format 1.x): the compiled model, the parser, and loading files into it.

`load_policy` / `load_policies` read JSON or YAML files (with `extends`) into
`LoadedPolicy` (policy, warnings, source); `parse_policy` compiles a decoded object.
"""

from __future__ import annotations

from ..types import KNOWN_TYPES, TYPE_NAMES, canonical_type
from .claims_model import Claim, ClaimValues, FalseSuccess
from .load import POLICY_SUFFIXES, LoadedPolicy, check_policy, load_policies, load_policy
from .model import (
    BLOB_KINDS,
    AppliesTo,
    ArgSpec,
    Budgets,
    Completion,
    Dataflow,
    ErrorHandling,
    FailedWhen,
    Grounding,
    Policy,
    Precondition,
    ScopedPatterns,
    SequenceRules,
    ToolSchema,
    UnsafePattern,
)
from .notes import PolicyWarning
from .parse import parse_policy
from .trajectory_model import ArgumentsMatch, ExpectedCall, MatchMode, Trajectory

__all__ = [
    "BLOB_KINDS",
    "KNOWN_TYPES",
    "POLICY_SUFFIXES",
    "TYPE_NAMES",
    "AppliesTo",
    "ArgSpec",
    "ArgumentsMatch",
    "Budgets",
    "Claim",
    "ClaimValues",
    "Completion",
    "Dataflow",
    "ErrorHandling",
    "ExpectedCall",
    "FailedWhen",
    "FalseSuccess",
    "Grounding",
    "LoadedPolicy",
    "MatchMode",
    "Policy",
    "PolicyWarning",
    "Precondition",
    "ScopedPatterns",
    "SequenceRules",
    "ToolSchema",
    "Trajectory",
    "UnsafePattern",
    "canonical_type",
    "check_policy",
    "load_policies",
    "load_policy",
    "parse_policy",
]
