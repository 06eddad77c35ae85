"""The comparison as JSON (`--json-out`): fixed key order, indent 2, trailing newline.

The shape is described by schemas/compare.schema.json.
"""

from __future__ import annotations

from ..compare.model import Comparison
from .base import RenderOptions
from .json_ import dumps


def render_compare(comparison: Comparison, options: RenderOptions) -> str:
    return dumps(comparison.to_dict())
