"""Exception types shared by every stage.

Each error carries a message that already says where in the input it happened;
the CLI only prefixes the file name. Nothing here prints or exits.
"""

from __future__ import annotations


class ArhError(Exception):
    """Base class of every error ARH raises on purpose."""


class InputError(ArhError):
    """An input file (trace, transcript, report) could not be read or parsed."""


class TraceError(InputError):
    """A trace object does not follow TRACE-SPEC.md."""


class PolicyError(ArhError):
    """A policy does not follow the v1 policy contract."""


class PluginError(ArhError):
    """A plugin's rule raised while a trace was evaluated (docs/plugins.md)."""


class ReportError(InputError):
    """A report (baseline or candidate) does not have the report shape."""


class AdapterError(InputError):
    """A transcript could not be converted to a canonical trace."""
