"""Expected-trajectory matching (policy v1.1 section 5), pure and typed: rules build a
TrajectorySpec from the policy and feed the considered calls to a TrajectoryMatcher."""

from .matcher import (
    MissingCall,
    NearestCall,
    TrajectoryMatcher,
    TrajectoryResult,
    match_trajectory,
)
from .model import (
    ArgumentsMatch,
    ExpectedCall,
    MatchMode,
    ToolFilter,
    TrajectorySpec,
    json_equal,
    strip_arguments,
)

__all__ = [
    "ArgumentsMatch",
    "ExpectedCall",
    "MatchMode",
    "MissingCall",
    "NearestCall",
    "ToolFilter",
    "TrajectoryMatcher",
    "TrajectoryResult",
    "TrajectorySpec",
    "json_equal",
    "match_trajectory",
    "strip_arguments",
]
