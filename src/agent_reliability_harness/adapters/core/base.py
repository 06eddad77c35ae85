"""The adapter declaration: a named, pure converter from a recorded format to canonical traces."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec


class Evidence(msgspec.Struct, frozen=True):
    """What claims a document for a format, declared so that detection can read it without
    importing the format (docs/adapters.md, "How a format is detected").

    The gate: `shape` is the only shape of document it claims ("object", "array"; "": any)
    and `keys` the top-level keys an object needs one of (empty: none). `marks` are the
    format's own markers (a key such as `payload`, or a key with its values such as
    `type=session_meta|response_item`), found in the document, its items and one level
    below: a refusal names the format a document has most of. `against` are markers of
    what the format never writes (another tool's line kinds or fields, or a text
    convention `key~regex` such as Cline's `text~^\\[[^\\]]+\\] Result:`): a document
    that shows one is not this format's, whatever its `detect` says. `own`: the format's
    claim rests on evidence no other format writes (an envelope), so it outranks claims on
    a wire shape formats share; two such claims on one document are ambiguous."""

    shape: str = ""
    keys: tuple[str, ...] = ()
    marks: tuple[str, ...] = ()
    against: tuple[str, ...] = ()
    own: bool = False


class Adapter(msgspec.Struct, frozen=True):
    """`detect(value)` says whether a decoded document is in this format; `convert(value,
    name_hint)` returns the canonical trace objects it holds (dicts, parsed later).

    Formats written as JSON Lines where a whole file is one session (coding-agent
    session logs) also declare `detect_line`, which claims a file by the decoded value
    of its first non-blank line, and `convert_lines`, which takes every line of the
    file as (line number, decoded value) pairs in order, consumed one at a time, and
    returns the traces the session holds. `suffixes` are file suffixes (".traj")
    that a directory walk picks up for this format besides *.json and *.jsonl.

    Binary container formats (Inspect `.eval` zip archives, OTLP protobuf) also declare
    `read_file`: it turns the bytes of a file whose suffix is in `suffixes` into the
    decoded documents (JSON-shaped values) that `convert` and detection take, in place
    of JSON decoding; it raises InputError (naming the problem) for bytes it cannot read.

    `markers(value)` is what an explicit `--format` takes for the format's own markers
    (default: `detect`): broader than `detect` where a shape is this format's only when
    the user says so (a bare mini-swe-agent message list). A document without them that
    other formats claim is read only as they read it (see `core/select.py`, `explicit`).

    `family` is where the format belongs (coding, providers, tracing, frameworks,
    harnesses; a plugin's own word otherwise) and `evidence` what claims a document for it
    (see Evidence); both are listed by `arh formats`.
    """

    name: str
    description: str
    detect: Callable[[Any], bool]
    convert: Callable[[Any, str], list[Any]]
    detect_line: Callable[[Any], bool] | None = None
    convert_lines: Callable[[Iterable[tuple[int, Any]], str], list[Any]] | None = None
    suffixes: tuple[str, ...] = ()
    read_file: Callable[[bytes], list[Any]] | None = None
    markers: Callable[[Any], bool] | None = None
    family: str = ""
    evidence: Evidence = Evidence()

    def owns(self, value: Any) -> bool:
        """Whether the document carries this format's own markers (see `markers`)."""
        return (self.markers or self.detect)(value)
