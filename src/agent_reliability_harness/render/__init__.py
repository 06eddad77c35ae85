"""RENDERERS: output formats by kind ("run" or "compare") and name.

A new format is one module plus one entry here; the CLI builds its `--<name>-out`
flags from this registry. Modules are imported only when their format is rendered.
"""

from __future__ import annotations

from .base import Renderer, RenderOptions

_ALL: tuple[Renderer, ...] = (
    Renderer("console", ".txt", "run", "human-readable text", "console:render_run"),
    Renderer("json", ".json", "run", "JSON report (also the baseline format)", "json_:render_run"),
    Renderer(
        "md", ".md", "run", "Markdown summary for a pull-request comment", "markdown:render_run"
    ),
    Renderer(
        "junit", ".xml", "run", "JUnit XML report (one testcase per trace)", "junit:render_run"
    ),
    Renderer(
        "sarif",
        ".sarif",
        "run",
        "SARIF 2.1.0 log for code scanning",
        "sarif:render_run",
        needs_positions=True,
    ),
    Renderer(
        "console", ".txt", "compare", "human-readable comparison", "compare_console:render_compare"
    ),
    Renderer("json", ".json", "compare", "comparison as JSON", "compare_json:render_compare"),
    Renderer(
        "md",
        ".md",
        "compare",
        "comparison as Markdown (PR comment)",
        "compare_markdown:render_compare",
    ),
    # From a report alone the page has no trace bodies; a caller that has the traces
    # (needs_traces) streams them through html_report.HtmlReportWriter instead.
    Renderer(
        "html",
        ".html",
        "run",
        "HTML report (one self-contained page)",
        "html_report:render_run",
        needs_traces=True,
    ),
    # Made per trace in the workers (with the source's trace id) by pipeline/otlp_output.py;
    # from a report alone the events carry no source trace id.
    Renderer(
        "otlp",
        ".otlp.json",
        "run",
        "verdicts as OTLP/JSON logs (gen_ai.evaluation.result events)",
        "otlp:render_run",
    ),
    Renderer(
        "html",
        ".html",
        "compare",
        "comparison as HTML (one page)",
        "html_report:render_compare",
        needs_traces=True,
    ),
)

RENDERERS: dict[str, dict[str, Renderer]] = {}
for _renderer in _ALL:
    RENDERERS.setdefault(_renderer.kind, {})[_renderer.name] = _renderer


def get_renderer(kind: str, name: str) -> Renderer:
    """The renderer of this kind and name; KeyError if there is none."""
    return RENDERERS[kind][name]


def file_renderers(kind: str) -> tuple[Renderer, ...]:
    """Renderers of a kind that write files (`--<name>-out`), in registry order."""
    return tuple(r for r in RENDERERS.get(kind, {}).values() if r.name != "console")


__all__ = ["RENDERERS", "RenderOptions", "Renderer", "file_renderers", "get_renderer"]
