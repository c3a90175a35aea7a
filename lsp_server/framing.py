"""Reading `Content-Length` frames so that one broken frame costs one message, not
the session.

pygls' reader only recognises a header line that is exactly `Content-Length: N\\r\\n`
and trusts N: after a frame with a wrong or missing length the rest of that body is
read as header lines, glued to the next real header, and the connection never
answers again. Here a header is found anywhere at the end of a line (so a header
glued behind leftover bytes still counts), a body that is not JSON is answered with
a parse error, and if that body swallowed the start of the next frame, those bytes
are read again.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Callable
from typing import Any, Protocol

log = logging.getLogger(__name__)

_HEADER = re.compile(rb"Content-Length:[ \t]*(\d+)[ \t]*\r?\n$", re.IGNORECASE)
_NEXT_FRAME = re.compile(rb"Content-Length:", re.IGNORECASE)
MAX_FRAME_BYTES = 256 * 1024 * 1024  # a larger claim is a broken header, not a message


class AsyncReader(Protocol):
    async def readline(self) -> bytes: ...
    async def readexactly(self, n: int) -> bytes: ...


class FrameHandler(Protocol):
    def structure_message(self, data: dict[str, Any]) -> Any: ...
    def handle_message(self, message: Any) -> None: ...
    def reply_parse_error(self, problem: str) -> None: ...


class _PushbackReader:
    """A reader with bytes put back in front of it."""

    def __init__(self, inner: AsyncReader) -> None:
        self.inner = inner
        self.pending = b""

    async def readline(self) -> bytes:
        if self.pending:
            cut = self.pending.find(b"\n")
            if cut >= 0:
                line, self.pending = self.pending[: cut + 1], self.pending[cut + 1 :]
                return line
            head, self.pending = self.pending, b""
            return head + await self.inner.readline()
        return await self.inner.readline()

    async def readexactly(self, n: int) -> bytes:
        head, self.pending = self.pending[:n], self.pending[n:]
        if len(head) < n:
            head += await self.inner.readexactly(n - len(head))
        return head


async def _read_length(reader: _PushbackReader) -> int | None:
    """The next frame's Content-Length; None at end of input. Lines that are not a
    header (leftovers of a broken frame) are skipped."""
    length: int | None = None
    while True:
        line = await reader.readline()
        if not line:
            return None
        match = _HEADER.search(line)
        if match:
            length = int(match.group(1))
        elif not line.strip() and length is not None:
            return length


async def serve_frames(
    stop_event: threading.Event,
    reader: AsyncReader,
    protocol: FrameHandler,
    error_handler: Callable[[Exception, Any], Any] | None = None,
    replay: bytes = b"",
) -> None:
    """Read frames until end of input or `stop_event`; every body goes to `protocol`.
    `replay`: bytes already read from the stream by someone else (the stdio front end),
    read again first."""
    buffered = _PushbackReader(reader)
    buffered.pending = replay
    while not stop_event.is_set():
        try:
            length = await _read_length(buffered)
        except (ConnectionError, EOFError):
            return
        if length is None:
            return
        if length > MAX_FRAME_BYTES:
            protocol.reply_parse_error(f"Content-Length {length} is larger than {MAX_FRAME_BYTES}")
            continue
        try:
            body = await buffered.readexactly(length)
        except (ConnectionError, EOFError):  # IncompleteReadError is an EOFError
            return
        try:
            message = json.loads(body, object_hook=protocol.structure_message)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError, bad UTF-8, too deep
            protocol.reply_parse_error(f"the message body is not valid JSON: {exc}")
            resume = _NEXT_FRAME.search(body, 1)
            if resume is not None:  # the length was too long: the next frame started inside
                buffered.pending = body[resume.start() :] + buffered.pending
            continue
        try:
            protocol.handle_message(message)
        except Exception as exc:
            log.exception("unable to handle a message")
            if error_handler is not None:
                error_handler(exc, None)
