"""Value-level data flow (policy v1.1 section 6), pure and typed: value units, the
sources of a trace, and the questions ARH-FLW-004 (untrusted value to a sink) and
ARH-FLW-005 (ungrounded argument) ask of them."""

from .index import (
    INPUT_POSITION,
    DataflowOptions,
    GroundedResult,
    Resolution,
    SinkResult,
    SourceIndex,
    TaintedArgument,
    TaintedUnit,
)
from .screen import Screen, WindowScreen
from .sources import Marker, OutputTexts, Searcher, output_texts, taint_regions
from .store import SourceStore
from .units import (
    Unit,
    UnitKind,
    decimal_form,
    fold,
    grounded_leaves,
    number_unit,
    string_units,
    value_units,
)

__all__ = [
    "INPUT_POSITION",
    "DataflowOptions",
    "GroundedResult",
    "Marker",
    "OutputTexts",
    "Resolution",
    "Screen",
    "Searcher",
    "SinkResult",
    "SourceIndex",
    "SourceStore",
    "TaintedArgument",
    "TaintedUnit",
    "Unit",
    "UnitKind",
    "WindowScreen",
    "decimal_form",
    "fold",
    "grounded_leaves",
    "number_unit",
    "output_texts",
    "string_units",
    "taint_regions",
    "value_units",
]
