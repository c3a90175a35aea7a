"""The client drains a spawned server's stderr to EOF, whatever the line lengths: a
line over asyncio's reader limit once ended the loop, and the server then blocked for
good on its next write to the full pipe."""

from __future__ import annotations

import asyncio

from code_intel.lsp_server.client import MAX_LINE_BYTES, drain_lines


def test_an_over_long_line_does_not_stop_the_draining():
    async def scenario() -> list[str]:
        stream = asyncio.StreamReader()  # default limit: 64 KiB per readline
        stream.feed_data(b"first\n" + b"x" * 200_000 + b"\nlast line\n" + b"tail")
        stream.feed_eof()
        lines: list[str] = []
        await asyncio.wait_for(drain_lines(stream, lines.append), 5)
        return lines

    lines = asyncio.run(scenario())
    assert lines[0] == "first" and lines[-2:] == ["last line", "tail"]
    long_parts = lines[1:-2]
    assert "".join(long_parts) == "x" * 200_000
    assert all(len(part) <= MAX_LINE_BYTES for part in long_parts)
