"""The compiled definitions walk (native/defscan.c) against tree-sitter's query engine.

The walk must give the engine's (definition, name, kind) triples, in the same order, on
every grammar-backed fixture file and on the engine's less obvious behaviours: a
supertype step (`expression_statement` is a hidden supertype in tree-sitter-python, so
`x = y = 1` in a class body defines both names), `#match?` predicates, a node with many
children, and a pattern matching one node in two ways (the walk declines, the engine
runs). The extension is built by `pip install`; these fail, not skip, without it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import tree_sitter
from code_intel.indexing.analyze import analyze_source, parse
from code_intel.indexing.chunking import STRATEGIES, defscan, refscan, strategy_for
from code_intel.indexing.chunking.base import TreeSitterStrategy
from code_intel.indexing.languages import detect_language, query
from code_intel.indexing.source import SourceDocument

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _doc(language: str, data: bytes, path: str = "m.py") -> SourceDocument:
    doc = SourceDocument(path=path, language=language, data=data)
    doc.tree = parse(language, data)
    return doc


def _both(strategy: TreeSitterStrategy, doc: SourceDocument):
    """(compiled, engine) as comparable (node id, name id, kind, bytes and points) lists;
    compiled None when the walk declined."""
    root = doc.tree.root_node
    compiled = strategy._definition_nodes_compiled(doc, root)
    engine = strategy._definition_nodes(doc, root, None)
    key = lambda matches: [(n.id, m.id, k, where) for n, m, k, where in matches]
    return (None if compiled is None else key(compiled)), key(engine)


def test_the_python_java_and_php_definition_queries_run_compiled():
    assert refscan.AVAILABLE, "code_intel.indexing._refscan did not build: `pip install -e .`"
    sources = {"python": b"class A:\n    pass\n", "java": b"class A {}\n", "php": b"<?php class A {}\n"}
    for language, path in (("python", "m.py"), ("java", "M.java"), ("php", "m.php")):
        strategy = strategy_for(language)
        doc = _doc(language, sources[language], path)
        assert defscan.definitions(doc.tree.root_node, strategy.grammar_name,
                                   strategy.definitions_query, doc.data) is not None, language


def test_every_fixture_file_gets_the_engines_definitions_in_its_order():
    compared = set()
    for path in sorted(FIXTURES.rglob("*")):
        if not path.is_file():
            continue
        language = detect_language(str(path))
        strategy = strategy_for(language)
        if not isinstance(strategy, TreeSitterStrategy):
            continue
        doc = _doc(language, path.read_bytes(), path.name)
        compiled, engine = _both(strategy, doc)
        if compiled is not None:
            assert compiled == engine, path
            compared.add(language)
    assert {"python", "java", "php"} <= compared


def test_a_keyword_step_names_the_anonymous_class():
    src = b"<?php\n$a = new class extends B { public function f() {} };\nclass C { public $p; }\n"
    strategy = strategy_for("php")
    doc = _doc("php", src, "m.php")
    compiled, engine = _both(strategy, doc)
    assert compiled is not None and compiled == engine
    first, name, _, _ = strategy._definition_nodes_compiled(doc, doc.tree.root_node)[0]
    assert (first.type, name.text) == ("anonymous_class", b"class")


def test_chained_assignments_and_self_fields_follow_the_engine():
    src = (b"class A:\n    x = y = 1\n    if True:\n        z = 2\n"
           b"    def f(self, other):\n        self.a = self.b = 2\n        other.c = 3\n"
           b"        self.d, cls.e, other.g = 1, 2, 3\n"
           b"u = v = 0\ntry:\n    w = 1\nexcept E:\n    w2 = 2\n")
    strategy = strategy_for("python")
    doc = _doc("python", src)
    compiled, engine = _both(strategy, doc)
    assert compiled == engine
    names = {s.name: s.kind.value for s in analyze_source("m.py", src).symbols}
    assert {"x", "y", "a", "d", "e", "u", "v", "w", "w2"} <= set(names)
    assert "c" not in names and "g" not in names  # `other.` fails the #match? predicate


def test_a_node_with_many_children_is_matched_below_it():
    # D = module, whose 41 children go through the heap-allocated child list
    src = b"".join(b"x%d = %d\n" % (i, i) for i in range(40)) + b"def only():\n    pass\n"
    source = "(module (function_definition name: (identifier) @name)) @definition.module"
    doc = _doc("python", src)
    found = defscan.definitions(doc.tree.root_node, "python", source, src)
    assert found is not None and [(k, n.type, m.text) for k, n, m, _, _ in found] == [
        ("definition.module", "module", b"only")
    ]
    engine = tree_sitter.QueryCursor(query("python", source)).matches(doc.tree.root_node)
    assert [c["name"][0].id for _, c in engine] == [m.id for _, _, m, _, _ in found]


def test_a_pattern_matching_one_node_two_ways_leaves_it_to_the_engine():
    doc = _doc("python", b"def f():\n    pass\ndef g():\n    pass\n")
    source = "(module (function_definition name: (identifier) @name)) @definition.module"
    assert defscan.definitions(doc.tree.root_node, "python", source, doc.data) is None


@pytest.mark.parametrize("source", [
    "[(class_definition) (function_definition)] @definition.class",
    "(class_definition name: (_) @name) @definition.class",
    "(block . (expression_statement) @definition.x (identifier) @name)",
    "(class_definition name: (identifier)? @name) @definition.class",
    '((identifier) @name @definition.x (#eq? @name "x"))',
    "(class_definition name: (identifier) @name body: (block (function_definition) @definition.function))",
    '(class_definition name: "cl\\ass" @name) @definition.class',
    "(ERROR (identifier) @name) @definition.x",
])
def test_patterns_beyond_the_walk_are_refused(source):
    with pytest.raises(defscan.Unsupported):
        defscan.parse_rules(source)


def test_the_engine_and_the_walk_give_the_same_symbols_end_to_end(monkeypatch):
    src = (FIXTURES / "python_pkg").rglob("*.py")
    files = [(p.name, p.read_bytes()) for p in sorted(src)]
    compiled = [analyze_source(name, data).symbols for name, data in files]
    monkeypatch.setattr(defscan, "definitions", lambda *a: None)
    engine = [analyze_source(name, data).symbols for name, data in files]
    assert files and compiled == engine


def test_registering_a_walked_language_compiles_no_engine_query():
    """`code-intel index` builds the strategies before its workers fork, with nothing else
    running: tree-sitter-python's definitions Query took 0.02-0.03 s of that start and
    was never used where the walk runs it."""
    probe = (
        "from code_intel.indexing.chunking import strategy_for\n"
        "from code_intel.indexing.languages import query\n"
        "for language in ('python', 'php', 'java'):\n"
        "    strategy_for(language)\n"
        "print(query.cache_info().currsize)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "0"


def test_every_strategys_definitions_query_compiles_in_the_engine():
    """The walk reads a query's text without the engine's checks: a query with a node
    type or field its grammar lacks still fails here, not mid-index."""
    for language in STRATEGIES:
        strategy = strategy_for(language)
        if isinstance(strategy, TreeSitterStrategy):
            assert query(strategy.grammar_name, strategy.definitions_query) is not None, language
