"""The compiled pieces of the Python definitions pass against the Python they replace.

* `refscan.python_texts` (native/pyfacts.c) gives `PythonStrategy.definition_texts`
  the `signature` and `docstring` hooks' strings of each definition node: the texts
  must equal the hooks' on every fixture, every Python file of this project and
  hand-made edge cases.
* The definitions walk (native/defscan.c) records the reference pass's nodes on its way
  and `refscan.scan` reads them instead of walking the tree again: the references must
  equal both the scan's own walk and the Python loop, for every grammar.
* The same walk records Python's quoted names (`x: "Client"`, `__all__` entries) with
  their deciding ancestor: the type strings must equal the regex-and-descent pass's.

The extension is built by `pip install`; these tests fail (not skip) without it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from code_intel.indexing.analyze import parse
from code_intel.indexing.chunking import defscan, refscan, strategy_for
from code_intel.indexing.chunking.base import _REFERENCE_NODES, TreeSitterStrategy, new_analysis
from code_intel.indexing.chunking.python import PythonStrategy
from code_intel.indexing.languages import detect_language
from code_intel.indexing.source import SourceDocument

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"

EDGES = '''\
"""Module doc."""
import os

X = 1
Y: "Client" = (
    2 +
    3)


class A:  # a comment after the header
    # a comment before the docstring
    """Class doc,
       indented."""
    z = 'é'

    def m(self, a: int = 1,
          b="x") -> None:
        'single quoted'
        self.f = a
        self.g, self.h = a, b

    @property
    def p(self): return 1

    async def q(self):
        pass


def f():
    r"""Raw doc."""


def g(): "inline doc"


def h():
    x = "not a docstring"
    """nor this"""


def broken(:
    """doc of a broken def"""
    return


class B(A): ...


def café(é="ü"):
    """Ünïcode."""
'''


def _doc(path: str, data: bytes) -> SourceDocument:
    doc = SourceDocument(path=path, language=detect_language(path), data=data)
    doc.tree = parse(doc.language, data)
    return doc


def _python_files() -> list[Path]:
    files = [p for p in sorted(FIXTURES.rglob("*.py"))]
    for package in ("indexing", "gating", "lsp_server", "mcp_bridge", "code_intel", "benchmarks", "tests"):
        files += sorted((ROOT / package).rglob("*.py"))
    return files


def _definition_nodes(strategy: PythonStrategy, doc: SourceDocument):
    root = doc.tree.root_node  # type: ignore[union-attr]
    ordered = strategy._definition_nodes_compiled(doc, root) or strategy._definition_nodes(doc, root, None)
    return [m[0] for m in ordered]


def test_python_definition_texts_come_from_one_compiled_call():
    assert refscan.AVAILABLE, "reinstall with `pip install -e .` (the extension did not build)"
    doc = _doc("m.py", EDGES.encode())
    nodes = _definition_nodes(strategy_for("python"), doc)
    texts = refscan.python_texts(nodes, doc.data)
    assert texts is not None and len(texts) == len(nodes)
    assert strategy_for("python").definition_texts(doc, nodes) is not None


@pytest.mark.parametrize("source", [EDGES, EDGES.replace("\n", "\r\n"), "def f(:\n", "class", "x = (\n"])
def test_definition_texts_equal_the_hooks_on_edge_cases(source):
    strategy = strategy_for("python")
    doc = _doc("m.py", source.encode())
    nodes = _definition_nodes(strategy, doc)
    assert strategy.definition_texts(doc, nodes) == [
        (strategy.signature(doc, n), strategy.docstring(doc, n)) for n in nodes
    ]


def test_definition_texts_equal_the_hooks_on_every_python_file_here():
    strategy = strategy_for("python")
    seen = docstrings = 0
    for path in _python_files():
        doc = _doc(path.name, path.read_bytes())
        nodes = _definition_nodes(strategy, doc)
        texts = strategy.definition_texts(doc, nodes)
        assert texts == [(strategy.signature(doc, n), strategy.docstring(doc, n)) for n in nodes], path
        seen += len(nodes)
        docstrings += sum(d is not None for _, d in texts or [])
    assert seen > 3000 and docstrings > 500  # the comparison covered real code


def _grammar_files() -> list[Path]:
    return [
        p for p in sorted(FIXTURES.rglob("*")) + _python_files()
        if p.is_file() and isinstance(strategy_for(detect_language(str(p))), TreeSitterStrategy)
    ]


def test_the_definitions_walk_records_the_reference_pass_nodes_for_python():
    strategy = strategy_for("python")
    doc = _doc("m.py", EDGES.encode())
    strategy._definitions(doc, doc.tree.root_node, "m")  # type: ignore[union-attr]
    assert doc.__dict__[_REFERENCE_NODES][0] == doc.tree.root_node  # type: ignore[union-attr]


def test_recorded_reference_nodes_give_the_references_of_a_walk_of_their_own():
    languages = set()
    for path in _grammar_files():
        strategy = strategy_for(detect_language(str(path)))
        doc = _doc(path.name, path.read_bytes())
        root = doc.tree.root_node  # type: ignore[union-attr]
        defs = strategy._definitions(doc, root, strategy.module_prefix(doc, new_analysis(doc, strategy.grammar_name, root)))
        if _REFERENCE_NODES not in doc.__dict__:
            continue  # this language's queries do not let the walk record them
        languages.add(strategy.language)
        # the base pass (Python's appended type strings left out)
        recorded = strategy._compiled_references(doc, root, defs, None)
        assert _REFERENCE_NODES not in doc.__dict__  # taken once
        walked = strategy._compiled_references(doc, root, defs, None)  # scan walks itself
        assert recorded == walked == TreeSitterStrategy._references_py(strategy, doc, root, defs), path
    assert "python" in languages


def test_recorded_nodes_are_refused_for_another_handle_or_another_tree():
    strategy = strategy_for("python")
    doc = _doc("m.py", EDGES.encode())
    root = doc.tree.root_node  # type: ignore[union-attr]
    collect = refscan.kinds_handle(root, "python", strategy.references_query)
    other = refscan.kinds_handle(root, "python", "[(identifier) (string)] @reference")
    _, found, _ = defscan.definitions_collecting(root, "python", strategy.definitions_query, doc.data, collect)
    assert found is not None
    with pytest.raises(ValueError, match="another handle"):
        refscan._refscan.scan(root, other, doc.data, [], [], [], [], False, None,  # type: ignore[union-attr]
                              tuple, found)
    # an edited buffer's new tree does not take the old tree's nodes
    doc2 = _doc("m.py", b"import sys\n" + EDGES.encode())  # every position moves
    doc2.__dict__[_REFERENCE_NODES] = (root, found)
    root2 = doc2.tree.root_node  # type: ignore[union-attr]
    defs = strategy._definitions(doc2, root2, "m")
    doc2.__dict__[_REFERENCE_NODES] = (root, found)
    refs = strategy._compiled_references(doc2, root2, defs, None)
    assert refs == TreeSitterStrategy._references_py(strategy, doc2, root2, defs)


def _recorded_strings(data: bytes):
    strategy = strategy_for("python")
    root = parse("python", data).root_node
    collect = refscan.kinds_handle(root, "python", strategy.references_query)
    _, _, quoted = defscan.definitions_collecting(
        root, "python", strategy.definitions_query, data, collect, strategy.recorded_strings
    )
    assert quoted is not None
    return root, quoted


QUOTED = [
    'x: "A" "B"\n',
    "__all__ = ['a''B', \"C\", '''D''', r'E', u'F', f'G']\n",
    'def f(a: "X | Y", b: "pkg.Client") -> "R": pass\n',
    'cast("Client", v)\nT = TypeVar("T", bound="Base")\nd["key"]\nUnion["URL", str]\n',
    'x: f"{\'Client\'}"\n',
    '__all__ = [  # "A |\n B"C"]\n',  # a quoted name in a comment runs into a string's quote
    "x: 'A |\n B'\n",
]


@pytest.mark.parametrize("source", QUOTED)
def test_recorded_type_strings_equal_the_regex_pass_on_edge_cases(source):
    from code_intel.indexing.chunking.python_strings import recorded_type_strings, type_strings

    data = source.encode()
    root, quoted = _recorded_strings(data)
    assert recorded_type_strings(data, quoted) == type_strings(data, root)


def test_recorded_type_strings_equal_the_regex_pass_on_real_and_generated_code():
    import random

    from code_intel.indexing.chunking.python_strings import recorded_type_strings, type_strings

    names = 0
    for path in _python_files():
        data = path.read_bytes()
        root, quoted = _recorded_strings(data)
        got = recorded_type_strings(data, quoted)
        assert got == type_strings(data, root), path
        names += len(got)
    assert names > 50  # the comparison covered real type strings
    rng = random.Random(13)
    atoms = ['"', "'", '"A"', "'B'", "'''", '"""', "Client", "x", " | ", "|", " ", "\n", "#",
             "# 'a |\n", "__all__ = [", "]", "cast(", ")", ",", "x: ", "def f(a: ", ") -> ", ":\n",
             "Union[", "d[", "TypeVar('T', bound=", "b", "f", "r", "{", "}", "=", ".", "a.b", "é", "\\"]
    for _ in range(3000):
        data = "".join(rng.choice(atoms) for _ in range(rng.randint(1, 30))).encode()
        root, quoted = _recorded_strings(data)
        assert recorded_type_strings(data, quoted) == type_strings(data, root), data


def test_python_reference_pass_reads_the_recorded_strings(monkeypatch):
    from code_intel.indexing.chunking import python as python_module

    def no_regex_pass(data, root):  # type: ignore[no-untyped-def]
        raise AssertionError("the regex pass ran although the walk recorded the strings")

    monkeypatch.setattr(python_module, "type_strings", no_regex_pass)
    strategy = strategy_for("python")
    doc = _doc("m.py", b'__all__ = ["Client"]\nx: "Client" = 1\n')
    root = doc.tree.root_node  # type: ignore[union-attr]
    defs = strategy._definitions(doc, root, "m")
    refs = strategy._references(doc, root, defs)
    assert [(r.name, r.start_line) for r in refs if r.name == "Client"] == [("Client", 0), ("Client", 1)]


def _docstring_edges() -> str:
    """Docstrings and signatures at cleandoc's and str.split's edges: tabs, whitespace
    beyond ASCII (U+3000, U+2028, \\x0b, \\x0c, \\x1c), empty and blank docstrings,
    prefixes, escaped quotes, lines shorter than the margin."""
    q3, t = '"' * 3, "\t"
    return "".join([
        f"def a():\n    {q3}{t}Tabbed\n{t}  and{t}indented\n  {t}\n    end{t}{q3}\n",
        "def b():\n    ''\n",
        f"def c():\n    {q3}{q3}\n",
        f"def d():\n    u{q3}\u3000Wide space\x0c\n\x1c  odd   \n        deep\n      {q3}\n",
        "def e():\n    b'bytes'\n",
        f"def f():\n    {q3}\n\n   \n    {q3}\n",
        'def g():\n    "\\"quoted\\""\n',
        "def h(\n\x0b a,\u2028 b\n)  ->  { :\n    '''x\n  y\n z'''\n",
        f"class I:\n    {q3}Short\n  lines\n        indented more\n a{q3}\n",
        "def j(): pass\n",
        "k = [ 1,\n\t 2 ]  # tail\n",
    ])


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_definition_texts_equal_the_hooks_at_cleandoc_and_split_edges(newline):
    strategy = strategy_for("python")
    doc = _doc("m.py", _docstring_edges().replace("\n", newline).encode())
    nodes = _definition_nodes(strategy, doc)
    texts = strategy.definition_texts(doc, nodes)
    assert texts == [(strategy.signature(doc, n), strategy.docstring(doc, n)) for n in nodes]
    assert sum(d is not None for _, d in texts) >= 8
