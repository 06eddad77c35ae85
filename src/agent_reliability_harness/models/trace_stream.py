"""One canonical trace read from a binary file a chunk of steps at a time.

`TraceStream` decodes the document `{..., "steps": [s1, s2, ...], ...}` without
holding its bytes or all its Steps: the text before the steps array (the prefix),
then regions of whole steps, then the last steps and the text after the array (the
suffix). Whatever it accepts, `decode_trace_json` accepts too, with an equal Trace;
anything it cannot prove that of raises `StreamDeclined`, and the caller then reads
the file the ordinary way. Every byte of the file is decoded by msgspec exactly once
in the piece it falls in, with the same types as the whole decode (`Step`, and the
fields of `Trace`), so only the cut points need an argument:

The cuts are found by searching the raw bytes (a search cannot tell a string or a
nested value from array level) and then proved by decoding: a JSON parser reads a
prefix of a text the same way whatever follows it, and a decode that succeeds fixes
the structural role of the last bytes of its input.

* Prefix. A candidate is `"steps"`, whitespace, `:`, whitespace, `[` (not after a
  backslash). The prefix P up to and including that `[` is accepted when `P + "]}"`
  decodes as an object of Trace's fields with `steps == ()`. The final `}` then
  closes the top-level object and the `]` before it is structural (a string holding
  it would be unterminated), so it closes an array that is the value of a top-level
  member; the `[` just before it is structural for the same reason and opens that
  array. Its key is exactly "steps": the `"` opening the match is not escaped (no
  backslash before it) and cannot close an earlier string (`steps` would then be bare
  text). So after P the parser of the whole file is inside the top-level steps array,
  expecting its first element or `]`.

* Regions. The buffer always starts right after that `[` or right after a `,` at the
  steps array's level. A candidate cut is a `}` followed by whitespace, `,`,
  whitespace and `{`. The region X up to and including the `}` is accepted when
  `"[" + X + "]"` decodes as an array of Steps. Its last `]` closes the outermost
  array and the `}` before it is structural, so that `}` closes an element of the
  outermost array: X is a sequence of whole elements separated by commas (the
  artificial `[` also allows an immediate `]`, but X ends with `}`, so an early `]`
  would leave trailing characters). Read from the buffer's starting state in the whole
  file, X is the same sequence of whole steps, and the parser then stands at array
  level, where the whitespace and `,` after the `}` are the separator: the invariant
  holds again after the comma. A cut inside a string leaves that string unterminated
  and a cut inside a nested value leaves it unclosed; both fail to decode, and the
  next candidate (or more data) is tried.

* End. At the end of the file the rest R of the buffer is `rest of the steps] suffix`.
  `"[" + R` is decoded; msgspec refuses it with "trailing characters (byte n)", n
  being just past the suffix's first byte, and the text up to the last `]` before
  that must then decode as an array of Steps: that `]` closes the steps array, by the
  argument above, and the suffix follows it. (If msgspec ever
  words that error differently, the last few `]` are tried instead.) Just after a
  comma, an empty rest would be a trailing comma and is declined. The suffix must be
  whitespace, `}` and whitespace, or whitespace, `,` and members: `"{" + members`
  must then decode as an object of Trace's fields without "steps" (a second "steps"
  key would replace the streamed array in the whole decode, where the last duplicate
  wins).

The top-level fields are those of the prefix overridden by those of the suffix (the
last of duplicate keys wins, as in the whole decode); required fields and the schema
version are checked as `decode_trace_json` checks them.

Nesting depth is checked on every piece against the one limit (nesting.MAX_DEPTH), a
region and the last steps one level less (they lack the top-level object), so the
stream refuses exactly the depths the whole decode refuses.

Time and memory are bounded: the buffer holds the unfinished data (at most about
`max_pending` bytes, the prefix and the suffix included) plus one read; a failed
search for a cut point tries at most `MAX_FAILED` candidates and then waits until the
pending data has doubled, so the bytes decoded stay within a constant factor of the
file's size whatever the file holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, BinaryIO, get_type_hints

import msgspec
from msgspec import UNSET, UnsetType

from ..io import start_line
from ..nesting import MAX_DEPTH, within
from .trace import Step, Trace

__all__ = ["MAX_FAILED", "StreamDeclined", "TraceStream"]

# Candidate cut points tried before reading more (prefix, regions and end alike).
MAX_FAILED = 8
_WS = b" \t\n\r"
_STEPS_KEY = re.compile(rb'"steps"[ \t\n\r]*:[ \t\n\r]*\[')
_CUT = re.compile(rb"\}[ \t\n\r]*,[ \t\n\r]*\{")
_FIRST_KEY = re.compile(rb'[ \t\n\r]*\{[ \t\n\r]*("(?:[^"\\]|\\.){1,64}")', re.DOTALL)
_TRAILING = re.compile(r"trailing characters \(byte (\d+)\)")
_FIRST_WINDOW = 4096  # bytes searched back from the end for a cut, then 4x more

# Trace's top-level fields, each optional (UNSET when absent): the prefix and the
# suffix are decoded into this, with Trace's own types and no unknown keys.
_TRACE_TYPES = get_type_hints(Trace, include_extras=True)
_Head: Any = msgspec.defstruct(
    "_Head",
    [(name, _TRACE_TYPES[name] | UnsetType, UNSET) for name in Trace.__struct_fields__],
    forbid_unknown_fields=True,
)
_HEAD_DECODER = msgspec.json.Decoder(_Head)
_STEPS_DECODER = msgspec.json.Decoder(tuple[Step, ...])
_REQUIRED = tuple(f.name for f in msgspec.structs.fields(Trace) if f.required)
_HEAD_FIELDS = tuple(name for name in Trace.__struct_fields__ if name != "steps")
# The depth allowed within `[steps]`: one less than the document's (the top-level object).
_IN_STEPS = MAX_DEPTH - 1


class StreamDeclined(Exception):
    """This input must take the whole-document path (decode_trace_json / general parser)."""


class TraceStream:
    """Decodes one canonical trace from `handle` in chunks of about `chunk_steps` steps.

    Reads `read_size` bytes at a time and declines when more than about `max_pending`
    bytes must be held (one step, or the text around the steps array) or when the steps
    array does not start within `max_prefix` bytes (a file of another shape, such as a
    span export, is then given up early).
    """

    def __init__(
        self,
        handle: BinaryIO,
        chunk_steps: int = 4096,
        read_size: int = 1 << 20,
        max_pending: int = 64 << 20,
        max_prefix: int = 1 << 20,
    ) -> None:
        if min(chunk_steps, read_size, max_pending, max_prefix) < 1:
            raise ValueError("chunk_steps, read_size, max_pending and max_prefix must be positive")
        self._handle = handle
        self._chunk_steps = chunk_steps
        self._read_size = read_size
        self._max_pending = max_pending
        self._max_prefix = min(max_prefix, max_pending)
        self._buf = bytearray()
        self._eof = False
        self._started = False
        self._head: Trace | None = None
        self._start_line = 0
        self._cut_pattern: re.Pattern[bytes] | None = None
        # The agent_name written before the steps array, once chunks() has read that far
        # (None: not there); a key repeated after the array wins in `head`.
        self.agent_name: str | None = None
        # Work done, which tests bound: msgspec calls, those refused, bytes decoded.
        self.decodes = self.failed = self.decoded_bytes = 0

    @property
    def head(self) -> Trace:
        """A Trace holding every top-level field of the document, with steps=()."""
        if self._head is None:
            raise StreamDeclined("the stream has not been read to the end")
        return self._head

    @property
    def start_line(self) -> int:
        """The line where the document starts (`io.start_line` of the whole file)."""
        if self._head is None:
            raise StreamDeclined("the stream has not been read to the end")
        return self._start_line

    def chunks(self) -> Iterator[tuple[Step, ...]]:
        """Non-empty tuples of consecutive Steps, in order; raises StreamDeclined at any
        point (even after some chunks) when the input is not provably equal to the
        whole-document decode."""
        if self._started:
            raise StreamDeclined("chunks() can be read only once")
        self._started = True
        prefix = self._open_steps()
        if prefix.agent_name is not UNSET:
            self.agent_name = prefix.agent_name
        pending: list[Step] = []
        size = self._chunk_steps
        first = True  # the buffer starts right after "[" (else right after a ",")
        want = 0  # pending bytes before the next search for a cut
        while True:
            if len(self._buf) > self._max_pending or (
                not self._eof and self._buf and len(self._buf) >= want
            ):
                region = self._cut()
                if region is None:
                    if len(self._buf) > self._max_pending:
                        raise StreamDeclined("a step is longer than max_pending bytes")
                    want = 2 * len(self._buf)
                else:
                    first, want = False, 0
                    pending.extend(region)
                    full = len(pending) - len(pending) % size
                    for at in range(0, full, size):
                        yield tuple(pending[at : at + size])
                    del pending[:full]
            if self._eof:
                break
            self._read()
        pending.extend(self._finish(prefix, first))
        for at in range(0, len(pending), size):
            yield tuple(pending[at : at + size])

    # -- reading and decoding -------------------------------------------------------

    def _read(self) -> None:
        data = self._handle.read(self._read_size)
        if data:
            self._buf += data
        else:
            self._eof = True

    def _decode(self, decoder: msgspec.json.Decoder[Any], data: bytes, depth: int) -> Any:
        """`decoder.decode(data)`, or None if refused; StreamDeclined when it nests more
        than `depth` deep (the whole decode refuses the file then)."""
        self.decodes += 1
        self.decoded_bytes += len(data)
        try:
            value = decoder.decode(data)
        except (msgspec.DecodeError, RecursionError):
            self.failed += 1
            return None
        if not within(data, depth):
            raise StreamDeclined("nesting is too deep")
        return value

    # -- the prefix ------------------------------------------------------------------

    def _open_steps(self) -> Any:
        """Reads up to the top-level steps array's `[`; returns the fields before it."""
        buf = self._buf
        search = failed = 0
        while True:
            found = _STEPS_KEY.search(buf, search)
            if found is None:
                if self._eof or len(buf) > self._max_prefix:
                    raise StreamDeclined("no top-level steps array within max_prefix bytes")
                # Only the last '"steps"' (or a part of it at the end) may still become
                # a match once more data is read.
                last = buf.rfind(b'"steps"', search)
                search = last if last >= 0 else max(search, len(buf) - 6)
                self._read()
                continue
            search = found.start() + 1
            if found.start() > 0 and buf[found.start() - 1] == 0x5C:  # backslash
                continue
            end = found.end()
            prefix = self._decode(_HEAD_DECODER, bytes(buf[:end]) + b"]}", MAX_DEPTH)
            if prefix is not None and prefix.steps == ():
                self._start_line = start_line(bytes(buf[:end]))
                self._learn_first_key(end)
                del buf[:end]
                return prefix
            failed += 1
            if failed >= MAX_FAILED:
                raise StreamDeclined("no provable top-level steps array")

    def _learn_first_key(self, at: int) -> None:
        """Prefer cut points followed by the first step's first key (`},{"step_id"`), so
        that arrays of objects inside steps are rarely tried; other cuts remain."""
        key = _FIRST_KEY.match(self._buf, at, at + 256)
        if key is not None:
            self._cut_pattern = re.compile(
                rb"\}[ \t\n\r]*,[ \t\n\r]*\{[ \t\n\r]*" + re.escape(key.group(1))
            )

    # -- regions of whole steps -------------------------------------------------------

    def _candidates(self, pattern: re.Pattern[bytes]) -> Iterator[int]:
        """Start positions of `pattern`'s matches in the buffer, last first; the windows
        searched grow 4x from the end, so a near cut is found without a full scan."""
        buf = self._buf
        end = high = len(buf)
        window = _FIRST_WINDOW
        while True:
            low = max(0, end - window)
            found = [m.start() for m in pattern.finditer(buf, low) if m.start() < high]
            yield from reversed(found)
            if low == 0:
                return
            high, window = low, window * 4

    def _cut(self) -> tuple[Step, ...] | None:
        """The whole steps at the start of the buffer, removed up to the comma after
        them; None if no candidate cut point was proved (at most MAX_FAILED tried)."""
        buf = self._buf
        patterns = [_CUT] if self._cut_pattern is None else [self._cut_pattern, _CUT]
        tried: set[int] = set()
        for pattern in patterns:
            for cut in self._candidates(pattern):
                if cut in tried:
                    continue
                if len(tried) >= MAX_FAILED:
                    return None
                tried.add(cut)
                with memoryview(buf) as view:
                    data = b"".join((b"[", view[: cut + 1], b"]"))
                steps: tuple[Step, ...] | None = self._decode(_STEPS_DECODER, data, _IN_STEPS)
                if steps is not None:
                    del buf[: buf.index(b",", cut) + 1]
                    return steps
        return None

    # -- the end ----------------------------------------------------------------------

    def _finish(self, prefix: Any, first: bool) -> tuple[Step, ...]:
        """The last steps, and the head built from the prefix's and the suffix's fields."""
        data = b"[" + bytes(self._buf)
        self._buf.clear()
        steps, end = self._last_steps(data)
        if not first and not steps:  # (cuts are made before a "{": not expected)
            raise StreamDeclined("a comma before the end of the steps array")
        suffix = data[end:].lstrip(_WS)
        after: Any = None
        if suffix[:1] == b"}":
            if suffix[1:].strip(_WS):
                raise StreamDeclined("text after the trace")
        elif suffix[:1] == b"," and suffix[1:].lstrip(_WS)[:1] == b'"':
            after = self._decode(_HEAD_DECODER, b"{" + suffix[1:], MAX_DEPTH)
            if after is None:
                raise StreamDeclined("the fields after the steps array do not decode")
            if after.steps is not UNSET:
                raise StreamDeclined('a second "steps" key')
        else:
            raise StreamDeclined("the steps array is not followed by '}' or ','")
        self._head = _merge(prefix, after)
        return steps

    def _last_steps(self, data: bytes) -> tuple[tuple[Step, ...], int]:
        """The steps in `data` ("[" + the rest of the file) and where the suffix starts."""
        self.decodes += 1
        self.decoded_bytes += len(data)
        try:
            _STEPS_DECODER.decode(data)
        except msgspec.DecodeError as exc:
            if "trailing characters" not in str(exc):  # the steps themselves do not decode
                raise StreamDeclined("the last steps do not decode") from None
            # msgspec names the byte just past the first trailing character: the
            # steps array ends at the last "]" before it (proved by the decode below).
            trailing = _TRAILING.search(str(exc))
            ends = [data.rfind(b"]", 0, int(trailing.group(1))) + 1] if trailing else []
        except RecursionError:
            raise StreamDeclined("nesting is too deep") from None
        else:
            raise StreamDeclined("the trace object is not closed")
        self.failed += 1
        if not ends:  # found from the end instead (not expected with msgspec 0.18+)
            at = len(data)
            while len(ends) < MAX_FAILED and (at := data.rfind(b"]", 0, at)) > 0:
                ends.append(at + 1)
        for end in ends:
            steps: tuple[Step, ...] | None = self._decode(_STEPS_DECODER, data[:end], _IN_STEPS)
            if steps is not None:
                return steps, end
        raise StreamDeclined("the end of the steps array is not provable")


def _merge(prefix: Any, suffix: Any) -> Trace:
    """Trace's fields from the prefix, overridden by the suffix's; checked as the whole
    decode checks them (required fields present, schema version supported)."""
    fields: dict[str, Any] = {}
    for name in _HEAD_FIELDS:
        for part in (suffix, prefix):
            value = UNSET if part is None else getattr(part, name)
            if value is not UNSET:
                fields[name] = value
                break
    if any(name not in fields for name in _REQUIRED if name != "steps"):
        raise StreamDeclined("a required field is missing")
    try:
        return Trace(**fields, steps=())
    except ValueError:  # an unsupported schema version, a bad outcome: the decoder says
        raise StreamDeclined("the top-level fields are not a trace's") from None
