"""`arh guard`: the policy applied while the agent runs (docs/guard.md).

`Guard` (api.py) is the Python API over the engine's Session (session.py); the hook
command (hook.py, dialects.py, state.py), the daemon (serve.py) and the MCP proxy
(mcp.py) are its front ends. Each module is imported only when it is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .api import Decision, DecisionFinding, Guard

__all__ = ["Decision", "DecisionFinding", "Guard"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import api  # noqa: PLC0415

        return getattr(api, name)
    raise AttributeError(name)
