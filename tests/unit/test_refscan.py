"""The compiled reference pass (native/refscan.c) against the Python loop it replaces.

Every grammar-backed fixture file and a few hand-made edge cases (non-ASCII text left
and right of identifiers, names spanning lines, PHP's `$` sigil, query predicates) go
through both passes: the references, their order, positions and containers must be
the same. The extension is built by `pip install`; these tests fail (not skip) when it
is missing, so a broken build shows up in CI instead of silently running slower.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import tree_sitter
from code_intel.indexing.analyze import analyze_source, parse
from code_intel.indexing.chunking import ChunkSettings, refscan, strategy_for
from code_intel.indexing.chunking.base import TreeSitterStrategy, new_analysis
from code_intel.indexing.chunking.php import PhpStrategy
from code_intel.indexing.chunking.python import PythonStrategy
from code_intel.indexing.languages import detect_language
from code_intel.indexing.model import Reference
from code_intel.indexing.source import SourceDocument

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _passes(strategy: TreeSitterStrategy, path: str, data: bytes):
    """(compiled, python) reference lists of the base pass (no appended references) for
    one file."""
    doc = SourceDocument(path=path, language=strategy.language, data=data)
    doc.tree = parse(strategy.language, data)
    root = doc.tree.root_node
    defs = strategy._definitions(doc, root, strategy.module_prefix(doc, new_analysis(doc, strategy.grammar_name, root)))
    compiled = strategy._compiled_references(doc, root, defs, None)  # None: it cannot run here
    python = TreeSitterStrategy._references_py(strategy, doc, root, defs)
    return (python if compiled is None else compiled), python


def _grammar_files() -> list[Path]:
    return [
        p for p in sorted(FIXTURES.rglob("*"))
        if p.is_file() and isinstance(strategy_for(detect_language(str(p))), TreeSitterStrategy)
    ]


def test_the_extension_is_built_for_the_installed_tree_sitter():
    assert refscan.AVAILABLE, (
        "code_intel.indexing._refscan did not build or does not match tree_sitter "
        f"{tree_sitter.__version__}: reinstall with `pip install -e .` (needs gcc and Python headers)"
    )


def test_every_fixture_file_gets_the_same_references_from_both_passes():
    files = _grammar_files()
    languages = set()
    for path in files:
        language = detect_language(str(path))
        compiled, python = _passes(strategy_for(language), path.name, path.read_bytes())
        assert compiled == python, path
        if python:
            languages.add(language)
    # the corpus covers every grammar family whose references_query differs
    assert {"python", "php", "typescript", "javascript", "go", "java"} <= languages


def test_whole_analyses_are_identical_with_the_python_pass(monkeypatch):
    """What the store receives (extras such as docblock and string references
    included) does not depend on which pass ran."""
    settings = ChunkSettings()
    files = _grammar_files()
    compiled = [analyze_source(p.name, p.read_bytes(), settings) for p in files]
    monkeypatch.setattr(refscan, "AVAILABLE", False)
    python = [analyze_source(p.name, p.read_bytes(), settings) for p in files]
    assert [a.references for a in compiled] == [a.references for a in python]
    assert sum(len(a.references) for a in compiled) > 1000


NON_ASCII = """# ü in a comment
class Größe:
    def straße(self, ñame="€"):  # 🎉 emoji is two UTF-16 units
        return ñame + "🎉" + self.straße(ñame)

x = "ü"; y = x; z = Größe().straße(y)
"""


def test_non_ascii_text_left_and_right_of_identifiers():
    compiled, python = _passes(PythonStrategy(), "m.py", NON_ASCII.encode())
    assert compiled == python
    # `self` after `🎉` (2 UTF-16 units, 4 bytes) and `ü`: column counts UTF-16 units
    line = NON_ASCII.splitlines()[3]
    col = len(line[: line.index("self")].encode("utf-16-le")) // 2
    assert any(r.name == "self" and r.start_line == 3 and r.start_character == col for r in compiled)
    assert any(r.name == "straße" and r.container == "m.Größe.straße" for r in compiled)


class _BlockNames(PythonStrategy):
    """A query capturing nodes that span lines and whose text starts like a name."""

    references_query = "(block) @reference"


class _StructuralBlocks(PythonStrategy):
    """The query-engine path: a field constraint and a predicate the C side evaluates."""

    references_query = '(if_statement consequence: (block) @reference (#not-eq? @reference "pass"))'


MULTILINE = b"""def f(a):
    if a:
        pass
    if a:
        g(a)
        h = 1
    return a
"""


@pytest.mark.parametrize("strategy", [_BlockNames(), _StructuralBlocks()])
def test_names_spanning_lines_take_their_end_from_the_node(strategy):
    compiled, python = _passes(strategy, "m.py", MULTILINE)
    assert compiled == python
    multi = [r for r in compiled if r.end_line > r.start_line]
    assert multi and all(r.name.startswith(("g(a)", "if a", "pass")) for r in multi)
    assert all(r.name != "pass" for r in compiled) or isinstance(strategy, _BlockNames)


class _PhpVariables(PhpStrategy):
    references_query = "(variable_name) @reference"


def test_php_sigil_is_stripped_and_dollar_names_kept_in_js():
    php = "<?php\nfunction f($user) { return $user->name . $ünïcode; }\n".encode()
    compiled, python = _passes(_PhpVariables(), "a.php", php)
    assert compiled == python
    assert [r.name for r in compiled] == ["user", "user", "ünïcode"]
    js = b"const $store = 1; $store + $$double;\n"
    strategy = strategy_for("javascript")
    compiled, python = _passes(strategy, "a.js", js)
    assert compiled == python
    assert "$store" in {r.name for r in compiled} and "$$double" in {r.name for r in compiled}


class _MatchPredicate(PythonStrategy):
    references_query = '((identifier) @reference (#match? @reference "^[a-z]"))'


def test_a_predicate_the_extension_does_not_evaluate_runs_the_python_pass():
    strategy = _MatchPredicate()
    data = b"Alpha = beta\n"
    doc = SourceDocument(path="m.py", language="python", data=data)
    doc.tree = parse("python", data)
    root = doc.tree.root_node
    assert refscan.scan(root, strategy.grammar_name, strategy.references_query, data, [], ([], [], []),
                        False, None) is None
    compiled, python = _passes(strategy, "m.py", data)
    assert compiled == python
    assert [r.name for r in compiled] == ["beta"]


def test_compiled_packing_writes_the_rows_of_the_python_packing():
    from code_intel.indexing import store

    assert store._native_pack is not None, "the extension's pack() did not load"
    settings = ChunkSettings()
    edge = [
        Reference("total", 3, 4, 3, 9, "shop.Cart.add"),
        Reference("Ünïcode", 4, 0, 4, 7, None),
        Reference("total", 9, 2, 11, 1, "shop.Cart.add"),
        Reference("total", 12, 0, 12, 5, ""),
        Reference("Ünïcode", 70_000, 2**20, 70_000, -(2**31), "shop.Ärger"),
    ]
    cases = [edge, []] + [analyze_source(p.name, p.read_bytes(), settings).references for p in _grammar_files()]
    for refs in cases:
        assert store.pack_references("a.py", refs) == store._pack_references_py("a.py", refs)
    too_big = [Reference("x", 2**31, 0, 0, 0, None)]
    with pytest.raises(OverflowError):
        store.pack_references("a.py", too_big)


TYPE_STRINGS = """from typing import overload
__all__ = ["Client", "make"]

class Client:
    def send(self, other: "Client") -> "Client":
        return make(other)

@overload
def make(x: int) -> "Client": ...
@overload
def make(x: str) -> "Client": ...
def make(x):
    return Client().send(x)

def make(y: "Größe"):  # redefined: the same container name from another definition
    return Client, make, y
"""


def test_the_index_path_packs_the_rows_the_lazy_references_pack():
    """The sync's rows (packed as the compiled pass finds them, Python's type strings
    appended after) equal packing the references an editor's lazy analysis lists."""
    from code_intel.indexing.store import pack_references, split_containers, unpack_references
    from code_intel.indexing.sync import analyze_bytes

    settings = ChunkSettings()
    cases = [(p.name, p.read_bytes()) for p in _grammar_files()]
    cases += [("m.py", NON_ASCII.encode()), ("t.py", TYPE_STRINGS.encode()), ("e.py", b"")]
    packed_python = 0
    for path, data in cases:
        lazy = analyze_source(path, data, settings, lazy=True).complete_references()
        rows = analyze_bytes(path, data, settings).rows
        assert (rows.refs, rows.ref_containers) == pack_references(path, lazy), path
        index = analyze_source(path, data, settings, packed=True)
        if path.endswith(".py") and data:
            assert index.packed_references is not None and index.references == [], path
            packed_python += 1
    assert packed_python >= 5
    rows = analyze_bytes("t.py", TYPE_STRINGS.encode(), settings).rows
    row = next(r for r in rows.refs if r[1] == "Client")
    # 2 identifiers, then the 5 type strings (`__all__`, annotations) after them
    back = unpack_references(*row[1:], split_containers(rows.ref_containers))
    assert [r.start_line for r in back] == [12, 15, 1, 4, 4, 8, 10]


def test_references_a_finish_hook_adds_keep_the_packed_path_correct():
    """A strategy whose `finish` lists references after the packing gets the full list
    (scanned, type strings, then its own) instead of rows missing them."""
    from code_intel.indexing.model import Reference

    class Adding(PythonStrategy):
        def finish(self, work):
            super().finish(work)
            work.analysis.references.append(Reference("extra", 0, 0, 0, 5, None))

    def doc():
        d = SourceDocument(path="t.py", language="python", data=TYPE_STRINGS.encode())
        d.tree = parse("python", d.data)
        return d

    got = Adding().analyze_packed(doc(), ChunkSettings())
    want = PythonStrategy().analyze(doc(), ChunkSettings()).references
    assert got.packed_references is None
    assert got.references == [*want, Reference("extra", 0, 0, 0, 5, None)]


def test_single_path_patterns_become_walk_rules_and_anything_else_keeps_the_engine():
    rules = refscan.single_path_rules(
        '(scoped_property_access_expression name: (variable_name (name) @reference))\n'
        '(namespace_use_clause . (name) @reference)\n'
        '(class_constant_access_expression (name) @reference (#not-eq? @reference "class"))'
    )
    assert rules == [
        ([("name", None, False), ("variable_name", "name", False),
          ("scoped_property_access_expression", None, False)], []),
        ([("name", None, True), ("namespace_use_clause", None, False)], []),
        ([("name", None, False), ("class_constant_access_expression", None, False)], [(False, "class")]),
    ]
    for unsupported in (
        "(call function: (identifier) @f arguments: (argument_list) @a)",  # two children
        "(call (identifier)+ @r)",  # quantifier
        "[(call) (identifier)] @r",  # alternation
    ):
        with pytest.raises(ValueError):
            refscan.single_path_rules(unsupported)
    with pytest.raises(ValueError):  # the capture must be the innermost node
        refscan.single_path_rules("(call (identifier)) @r")
    with pytest.raises(ValueError):
        refscan.single_path_rules('((identifier) @r (#match? @r "^a"))')


class _PhpConstants(PhpStrategy):
    """PHP's query shape with an anchor and a predicate on the rule-walk path."""

    references_query = """
    (namespace_use_clause . (name) @reference)
    (class_constant_access_expression (name) @reference (#eq? @reference "class"))
    (scoped_property_access_expression name: (variable_name (name) @reference))
    """


def test_rule_walk_anchors_fields_and_predicates_match_the_query_engine():
    php = b"""<?php
use App\\Models\\User;
use Carbon as Clock;
$a = User::class; $b = Clock::NOW; $c = Foo::$bar; $d = $x->y;
"""
    compiled, python = _passes(_PhpConstants(), "a.php", php)
    assert compiled == python
    assert [r.name for r in compiled] == ["Carbon", "class", "bar"]


def test_a_tree_of_another_language_than_the_compiled_query_runs_the_python_pass():
    python = parse("python", b"x = y").root_node
    javascript = parse("javascript", b"x = y").root_node
    args = ("python", "(identifier) @r", b"x = y", [], ([], [], []), False, None)
    assert [r.name for r in refscan.scan(python, *args)] == ["x", "y"]
    assert refscan.scan(javascript, *args) is None


INVALID_UTF8 = [
    b"x = '\xff' + y + '\xe2\x82' + z\n",  # a stray byte, a truncated sequence
    b"a = '\xed\xa0\x80' + b; c = '\xf4\x90\x80\x80' + d\n",  # a surrogate, beyond U+10FFFF
    b"s = '\xc3' + a; t = '\xc3\xa9' + b; u = '\xe0\x80\x80' + c\n",  # overlong
    "v = '🎉' + a\nw = 'x' + b  # ü\n".encode(),
]


@pytest.mark.parametrize("data", INVALID_UTF8)
def test_columns_after_malformed_utf8_match_the_python_pass(data):
    compiled, python = _passes(PythonStrategy(), "m.py", data)
    assert compiled == python
    assert len(compiled) >= 2


def test_a_long_non_ascii_line_needs_no_python_per_identifier():
    """Columns on well-formed UTF-8 are counted in C, continuing along the row: the
    Python conversion is not called (it re-decodes the row for every identifier)."""
    line = "f('é', " + ", ".join(f"v{i} or 'ü'" for i in range(3000)) + ")"
    data = (line + "\n").encode()
    doc = SourceDocument(path="m.py", language="python", data=data)
    doc.tree = parse("python", data)
    calls = []

    def utf16(row: int, col: int) -> int:
        calls.append((row, col))
        return doc.utf16_column(row, col)

    refs = refscan.scan(doc.tree.root_node, "python", PythonStrategy.references_query, data, [],
                        ([], [], []), False, utf16)
    assert calls == []
    assert len(refs) == 3001
    assert refs == _passes(PythonStrategy(), "m.py", data)[1]
    last = refs[-1]
    assert last.start_character == len(line[: line.rindex("v2999")].encode("utf-16-le")) // 2
