"""UTF-16 columns of a SourceDocument: the conversion resumes along a row, so it must
give the same column as decoding the row's prefix from scratch, in any call order and
on malformed UTF-8."""

from __future__ import annotations

import pytest
from code_intel.indexing.source import SourceDocument
from hypothesis import given, settings
from hypothesis import strategies as st

_PIECES = ["a", "bc", " ", "é", "ü", "あ", "漢字", "🎉", "\u200b"]


def _reference(data: bytes, row: int, col: int) -> int:
    line = data.split(b"\n")[row]
    return len(line[:col].decode("utf-8", errors="replace").encode("utf-16-le")) // 2


@settings(max_examples=200, deadline=None)
@given(
    pieces=st.lists(st.sampled_from(_PIECES), min_size=1, max_size=40),
    junk=st.lists(st.sampled_from([b"\xe3\x81", b"\xff", b"\x80", b""]), max_size=3),
    cols=st.lists(st.integers(min_value=0, max_value=200), min_size=1, max_size=30),
    ordered=st.booleans(),
)
def test_columns_match_a_fresh_decode_in_any_order(pieces, junk, cols, ordered):
    line = "".join(pieces).encode() + b"".join(junk) + "x🎉y".encode()
    data = b"first\n" + line + b"\nlast\n"
    doc = SourceDocument(path="m.py", language="python", data=data)
    cols = [c % (len(line) + 1) for c in cols]
    for col in sorted(cols) if ordered else cols:
        assert doc.utf16_column(1, col) == _reference(data, 1, col), (line, col)


def test_one_long_non_ascii_line_is_read_once_in_document_order():
    """Thousands of names on one line with a non-ASCII string near its start: each
    column continues from the previous one instead of decoding the row again."""
    line = "f('é', " + ", ".join(f"v{i}" for i in range(5000)) + ")"
    data = line.encode()
    doc = SourceDocument(path="m.py", language="python", data=data)
    decoded = 0
    cols = [data.index(f"v{i},".encode()) for i in range(0, 5000, 7)]
    for col in cols:
        before = doc._utf16_mark
        assert doc.utf16_column(0, col) == _reference(data, 0, col)
        start = before[1] if before else data.index(b"\xc3")
        decoded += col - start
    assert decoded <= len(data)


@pytest.mark.parametrize("data", [
    b'x: "A"\n\ndef f(a: "B.C", b: "D") -> "E":\n    """doc\nstring"""\n',
    'x: "Ä"\ny: "B"\n'.encode(),  # not ASCII: placed through the table of line starts
    b"\n\n\n",
])
def test_spans_in_order_are_placed_as_byte_range_places_them(data):
    """Counted from span to span (ASCII, no table built yet) or through the table, in
    file order or not, spans over several lines included: the same places."""
    n = len(data)
    spans = [(0, 0), (1, 5), (3, min(n, 20)), (min(n, 9), n), (2, 3), (n, n)]
    expected = []
    for start, end in spans:
        r = SourceDocument("a.py", "python", data).byte_range(start, end)
        expected.append((r.start.line, r.start.character, r.end.line, r.end.character))
    assert SourceDocument("a.py", "python", data).spans_in_order(spans) == expected
    built = SourceDocument("a.py", "python", data)
    assert built.line_starts and built.spans_in_order(spans) == expected
