"""The adapters machinery: the Adapter declaration, the format registry, detection (one pass over
each format's declared evidence), selection and refusals, and the TraceBuilder every format maps
with (with its value, totals and agent helpers). Imports no format family."""
