"""`arh infer`: a policy v1.1 learned from runs known to be good, every constraint with its
evidence; checked on the runs it was learned from (all pass) and on the others (counted).

    learned = learn(["runs/"], InferOptions(policy_id="support"), messages)
    learned.inferred.policy          # the base policy document
    learned.inferred.children        # task_id -> child policy (with trajectories=True)
    learned.inferred.evidence.lines  # (path, statement) behind every constraint
"""

from __future__ import annotations

from .build import Evidence
from .collect import Checker, Learner
from .document import Inferred
from .good import GoodIf, Selection, parse_good_if
from .report import explain_lines, summary_lines, tools_summary_lines
from .run import (
    BASE_FILE,
    DEFAULT_FILE,
    Check,
    InferOptions,
    Learned,
    Result,
    check,
    directory_documents,
    from_tools_only,
    infer_paths,
    learn,
    policies_of,
    write_directory,
    write_policy,
)

__all__ = [
    "BASE_FILE",
    "DEFAULT_FILE",
    "Check",
    "Checker",
    "Evidence",
    "GoodIf",
    "InferOptions",
    "Inferred",
    "Learned",
    "Learner",
    "Result",
    "Selection",
    "check",
    "directory_documents",
    "explain_lines",
    "from_tools_only",
    "infer_paths",
    "learn",
    "parse_good_if",
    "policies_of",
    "summary_lines",
    "tools_summary_lines",
    "write_directory",
    "write_policy",
]
