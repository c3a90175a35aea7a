"""An open Python buffer is re-analysed statement by statement after each edit
(`indexing/chunking/python_buffer.py`): what it answers must equal a from-scratch
analysis of the same text, and the statements an edit did not touch are not read
again."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from code_intel.indexing.analyze import analyze_source
from code_intel.indexing.chunking import ChunkSettings, strategy_for
from code_intel.indexing.model import FileAnalysis
from code_intel.lsp_server.documents import OpenDocument

ROOT = Path(__file__).resolve().parents[2]
# real code with classes, methods, `self.x` fields, decorators, docstrings, nested
# and TYPE_CHECKING imports
REAL_FILES = ["lsp_server/typing_site.py", "lsp_server/navigator.py", "indexing/chunking/base.py"]
SETTINGS = ChunkSettings()

SNIPPETS = [
    "def added_{n}(a, b=1):\n    \"\"\"Added {n}.\"\"\"\n    return a + b\n",
    "class Added{n}:\n    field = {n}\n\n    def __init__(self):\n        self.value_{n} = {n}\n",
    "import os.path as added_{n}\n",
    "from .somewhere import thing_{n}\n",
    "if TYPE_CHECKING:\n    from collections import OrderedDict as OD{n}\n",
    "added_var_{n} = {n}  # é\n",
    "try:\n    import json as js{n}\nexcept ImportError:\n    js{n} = None\n",
    "    def method_{n}(self):\n        self.helper = {n}\n        from re import compile as c{n}\n",
    "    @classmethod\n    def setup_{n}(cls):\n        cls.env_{n} = {n}\n        cls.a_{n}, cls.b_{n} = 1, 2\n",
    "x{n} = (\n",  # unbalanced: a syntax error until removed
    ")\n",
    "\"\"\"str ü {n}\"\"\"\n",
    "",
]


def _scratch(doc: OpenDocument) -> FileAnalysis:
    return analyze_source(doc.path, doc.data, SETTINGS, doc.language, lazy=True)


def _same(doc: OpenDocument, where: str) -> None:
    got = doc.analysis(SETTINGS)
    want = _scratch(doc)
    assert got.symbols == want.symbols, where
    assert list(got.imports.items()) == list(want.imports.items()), where
    assert got.syntax_errors == want.syntax_errors, where
    assert got.complete_references() == want.complete_references(), where


def _random_edit(rng: random.Random, doc: OpenDocument, n: int) -> str:
    lines = doc.text.split("\n")
    line = rng.randrange(len(lines))
    choice = rng.random()
    if choice < 0.3:  # insert a snippet at a line start (top level or indented)
        text = rng.choice(SNIPPETS).format(n=n)
        indent = rng.choice(["", "", "    ", "        "])
        text = "".join(indent + t if t else t for t in text.splitlines(keepends=True))
        doc.apply_edit((line, 0), (line, 0), text, doc.version + 1)
        return f"insert {text!r} at {line}"
    if choice < 0.5:  # delete a run of lines (a def, an import, half a class)
        end = min(line + rng.randint(1, 12), len(lines) - 1)
        doc.apply_edit((line, 0), (end, 0), "", doc.version + 1)
        return f"delete lines {line}..{end}"
    if choice < 0.8:  # edit inside a line: rename, retype, break the syntax
        width = len(lines[line])
        a = rng.randint(0, width)
        b = min(width, a + rng.randint(0, 6))
        text = rng.choice(["x", "_renamed", "(", ":", " ", "self.", "ü", "", "\"", "def "])
        doc.apply_edit((line, a), (line, b), text, doc.version + 1)
        return f"replace {line}:{a}-{b} with {text!r}"
    # move a block: delete here, insert the same text elsewhere
    end = min(line + rng.randint(1, 8), len(lines) - 1)
    block = "\n".join(lines[line:end]) + "\n" if end > line else ""
    doc.apply_edit((line, 0), (end, 0), "", doc.version + 1)
    to = rng.randrange(len(doc.text.split("\n")))
    doc.apply_edit((to, 0), (to, 0), block, doc.version + 1)
    return f"move {line}..{end} to {to}"


@pytest.mark.parametrize("rel", REAL_FILES)
def test_random_edits_answer_like_a_fresh_analysis(rel: str) -> None:
    text = (ROOT / rel).read_text(encoding="utf-8")
    rng = random.Random(rel)
    doc = OpenDocument(rel, f"file:///w/{rel}", 1, text.encode("utf-8"))
    _same(doc, "opened")
    history: list[str] = []
    for n in range(60):
        # several keystrokes between two requests, sometimes
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            history.append(_random_edit(rng, doc, n))
        _same(doc, " | ".join(history[-4:]))


def test_typing_a_definition_character_by_character() -> None:
    """Every intermediate state of typing a method into a class (mostly broken
    syntax) answers like a fresh analysis."""
    rel = "lsp_server/navigator.py"
    text = (ROOT / rel).read_text(encoding="utf-8")
    doc = OpenDocument(rel, f"file:///w/{rel}", 1, text.encode("utf-8"))
    lines = text.split("\n")
    line = next(i for i, t in enumerate(lines) if t.startswith("    def resolve("))
    typed = "    def typed(self, x: int) -> None:\n        self.typed_field = x\n\n"
    col, row = 0, line
    for ch in typed:
        doc.apply_edit((row, col), (row, col), ch, doc.version + 1)
        row, col = (row + 1, 0) if ch == "\n" else (row, col + 1)
        _same(doc, f"typed up to {row}:{col}")
    assert any(s.qualified_name == "lsp_server.navigator.Navigator.typed_field"
               for s in doc.analysis(SETTINGS).symbols)


def test_an_edit_reads_only_the_statement_it_touched(monkeypatch: pytest.MonkeyPatch) -> None:
    """After typing inside one method, only that class's definitions are read again:
    the docstrings and signatures of the rest of the file are not recomputed."""
    rel = "lsp_server/typing_site.py"
    text = (ROOT / rel).read_text(encoding="utf-8")
    doc = OpenDocument(rel, f"file:///w/{rel}", 1, text.encode("utf-8"))
    before = doc.analysis(SETTINGS)
    strategy = type(strategy_for("python"))
    read: list[int] = []
    original = strategy.docstring
    original_texts = strategy.definition_texts

    def counting(self, src, node):  # type: ignore[no-untyped-def]
        read.append(node.start_point[0])
        return original(self, src, node)

    def counting_texts(self, src, nodes):  # type: ignore[no-untyped-def]
        texts = original_texts(self, src, nodes)  # all the nodes' docstrings in one call
        if texts is not None:
            read.extend(node.start_point[0] for node in nodes)
        return texts

    monkeypatch.setattr(strategy, "docstring", counting)
    monkeypatch.setattr(strategy, "definition_texts", counting_texts)
    target = next(s for s in before.symbols if s.name == "site_at")
    at = target.range.start.line + 2
    doc.apply_edit((at, 0), (at, 0), "    extra = 1\n", 2)
    after = doc.analysis(SETTINGS)
    assert read and all(target.range.start.line <= r <= target.range.end.line + 1 for r in read), read
    assert len(read) < len(after.symbols) / 10
    # the definitions below the edit moved down by the inserted line
    moved = next(s for s in after.symbols if s.name == "handler_for")
    old = next(s for s in before.symbols if s.name == "handler_for")
    assert moved.range.start.line == old.range.start.line + 1


def test_a_full_replacement_starts_over() -> None:
    rel = "lsp_server/navigator.py"
    text = (ROOT / rel).read_text(encoding="utf-8")
    doc = OpenDocument(rel, f"file:///w/{rel}", 1, text.encode("utf-8"))
    doc.analysis(SETTINGS)
    doc.replace_all("import os\n\nclass Fresh:\n    def run(self):\n        self.done = True\n", 2)
    _same(doc, "replaced")
    assert [s.name for s in doc.analysis(SETTINGS).symbols] == ["Fresh", "run", "done"]


def test_the_line_table_follows_every_edit() -> None:
    """Positions are computed from a line table kept by splicing, not recounting."""
    from code_intel.indexing.source import line_starts

    rng = random.Random(7)
    doc = OpenDocument("a.py", "file:///w/a.py", 1, "one\ntwo\n\nfour ü\n".encode())
    for n in range(300):
        lines = doc.text.split("\n")
        a = rng.randrange(len(lines))
        b = min(len(lines) - 1, a + rng.choice([0, 0, 1, 3]))
        ca = rng.randint(0, len(lines[a]) + 2)
        cb = rng.randint(0, len(lines[b]) + 2) if b > a else max(ca, rng.randint(0, len(lines[b]) + 2))
        text = rng.choice(["", "x", "\n", "\n\n", "é\n", "ab\ncd", "\r\n"])
        doc.apply_edit((a, ca), (b, cb), text, n + 2)
        assert doc._line_starts == line_starts(doc.data), n


def test_the_server_keeps_one_copy_of_a_buffer() -> None:
    """didOpen/didChange/didClose reach our handlers only: pygls' workspace would keep
    a second copy of every buffer, rewritten line by line on each keystroke."""
    from code_intel.lsp_server.server import create_server
    from lsprotocol import types
    from pygls.workspace import Workspace

    proto = create_server().protocol
    proto._workspace = Workspace("file:///w")  # what `initialize` sets up
    uri = "file:///w/a.py"
    item = types.TextDocumentItem(uri, "python", 1, "x = 1\n")
    change = types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(0, 0), types.Position(0, 0)), text="y = 2\n"
    )
    steps = [
        (proto.lsp_text_document__did_open, types.TEXT_DOCUMENT_DID_OPEN,
         types.DidOpenTextDocumentParams(item)),
        (proto.lsp_text_document__did_change, types.TEXT_DOCUMENT_DID_CHANGE,
         types.DidChangeTextDocumentParams(types.VersionedTextDocumentIdentifier(uri=uri, version=2), [change])),
    ]
    for builtin, method, params in steps:
        assert [handler for handler, _args, _ in builtin(params)] == [proto.fm.features[method]]
        assert not proto.workspace.text_documents, method


def test_a_closed_files_symbols_are_read_once_per_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every definition request reads the file's symbols (twice: is the cursor on a
    declaration? which name is under it?); a large test module has a thousand. They
    are read from the store once per version of the file, and again after it
    changes."""
    import os

    from tests.unit.source_tree import indexed_tree

    tests = "".join(f"def test_{n}():\n    assert helper({n})\n\n" for n in range(300))
    live = indexed_tree(tmp_path, {"pkg/helpers.py": "def helper(x):\n    return x\n",
                                   "pkg/test_big.py": "from pkg.helpers import helper\n\n" + tests})
    reads: list[str] = []
    original = live.store.symbols_in_file
    monkeypatch.setattr(live.store, "symbols_in_file", lambda rel: reads.append(rel) or original(rel))
    for n in range(5):
        _name, found = live.resolve("pkg/test_big.py", 3 + 3 * n, 12)
        assert [s.symbol.qualified_name for s in found] == ["pkg.helpers.helper"]
    assert reads.count("pkg/test_big.py") == 1, reads

    path = tmp_path / "pkg/test_big.py"
    path.write_text("def only():\n    pass\n", encoding="utf-8")
    os.utime(path, ns=(1, 1))
    live.refresh_file("pkg/test_big.py")
    assert [s.symbol.name for s in live.file_symbols("pkg/test_big.py")] == ["only"]
