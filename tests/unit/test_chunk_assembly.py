"""How the shared machinery assembles chunks: container skeletons, the token budget and
the module header, checked against what a user of the index sees (chunk text)."""

from __future__ import annotations

from code_intel.indexing.analyze import analyze_source
from code_intel.indexing.chunking import ChunkSettings, strategy_for
from code_intel.indexing.chunking.base import lines_without, split_oversized
from code_intel.indexing.model import Chunk
from code_intel.indexing.source import SourceDocument
from hypothesis import given, settings
from hypothesis import strategies as st


def _per_line(lines: list[str], first: int, last: int, skips: list[tuple[int, int]]) -> str:
    """The definition: every line first..last not inside a skipped span."""
    skip: set[int] = set()
    for lo, hi in skips:
        skip.update(range(lo, hi + 1))
    return "\n".join(lines[i] for i in range(first, last + 1) if i not in skip)


@settings(max_examples=400, deadline=None)
@given(
    n=st.integers(0, 30),
    first=st.integers(0, 32),
    length=st.integers(0, 32),
    skips=st.lists(st.tuples(st.integers(0, 34), st.integers(-1, 34)), max_size=6),
)
def test_lines_without_keeps_exactly_the_lines_outside_every_span(n, first, length, skips):
    lines = [f"line {i}" for i in range(n)]
    last = first + length
    try:
        expected: str | type[IndexError] = _per_line(lines, first, last, skips)
    except IndexError:
        expected = IndexError
    try:
        got: str | type[IndexError] = lines_without(lines, first, last, skips)
    except IndexError:
        got = IndexError
    assert got == expected


def _windows_line_by_line(content: str, budget_chars: int) -> list[tuple[int, str]]:
    """The definition of the windows: whole lines added one by one while the window's
    size (each line counted with its newline) stays within the budget, at least one line
    a window. (first line, text) per window."""
    parts: list[tuple[int, list[str]]] = []
    current: list[str] = []
    size = start = 0
    for i, line in enumerate(content.split("\n")):
        if current and size + len(line) + 1 > budget_chars:
            parts.append((start, current))
            current, size, start = [], 0, i
        current.append(line)
        size += len(line) + 1
    if current:
        parts.append((start, current))
    return [(start, "\n".join(lines)) for start, lines in parts]


@settings(max_examples=600, deadline=None)
@given(
    content=st.text(st.sampled_from("ab \n\r\u2028é"), max_size=120),
    tokens=st.integers(-2, 12),
    first_line=st.integers(0, 5),
)
def test_an_oversized_chunk_is_cut_into_the_same_line_windows(content, tokens, first_line):
    """`split_oversized` cuts with `rfind` instead of a step per line: same windows,
    line numbers and metadata as the line-by-line definition, at every budget."""
    chunk = Chunk("a.py", "python", "f", "function", first_line, first_line + content.count("\n"),
                  content, {"qualified_name": "m.f"})
    got = split_oversized(chunk, ChunkSettings(chunk_max_tokens=tokens))
    if len(content) <= tokens * 4:
        assert got == [chunk]
        return
    windows = _windows_line_by_line(content, tokens * 4)
    assert [(c.start_line, c.end_line, c.content) for c in got] == [
        (first_line + start, first_line + start + text.count("\n"), text) for start, text in windows
    ]
    assert [c.metadata for c in got] == [
        {"qualified_name": "m.f", "split": {"part": n + 1, "parts": len(windows)}} for n in range(len(windows))
    ]
    assert {(c.path, c.language, c.symbol_name, c.symbol_type) for c in got} == {("a.py", "python", "f", "function")}


def test_a_class_chunk_keeps_its_members_first_lines_and_drops_their_bodies():
    php = (
        "<?php\nnamespace App;\n\nclass Order\n{\n    private int $total = 0;\n\n"
        "    public function add(int $n): void\n    {\n        $this->total += $n;\n    }\n\n"
        "    public function total(): int { return $this->total; }\n\n"
        "    public function clear(): void\n    {\n        $this->total = 0;\n    }\n}\n"
    )
    chunks = analyze_source("app/Order.php", php.encode(), ChunkSettings()).chunks
    cls = next(c for c in chunks if c.symbol_type == "class")
    assert cls.content == (
        "class Order\n{\n    private int $total = 0;\n\n    public function add(int $n): void\n\n"
        "    public function total(): int { return $this->total; }\n\n"
        "    public function clear(): void\n}"
    )


def test_a_chunk_at_the_token_budget_stays_whole_and_one_character_more_is_split():
    budget = ChunkSettings(chunk_max_tokens=40)  # about 4 characters a token: 160
    for size in (160, 161):
        body = "    $x = '" + "a" * (size - 29) + "';"
        php = "<?php\nfunction f()\n{\n" + body + "\n}\n"
        fn = [c for c in analyze_source("f.php", php.encode(), budget).chunks if c.symbol_name == "f"]
        if size == 160:
            assert [len(c.content) for c in fn] == [160] and "split" not in fn[0].metadata
        else:
            assert len(fn) > 1 and all("split" in c.metadata for c in fn)


def test_a_language_without_header_statements_asks_the_tree_for_none():
    """PHP's file header is its own `namespace` chunk: the uncovered-code pass must not
    build a Node per top-level statement only to keep none of them."""
    php = strategy_for("php")
    assert not php.header_types
    doc = SourceDocument("a.php", "php", b"<?php\nclass A {}\n")  # no tree: any read would fail
    assert php.header_nodes(doc) == []
