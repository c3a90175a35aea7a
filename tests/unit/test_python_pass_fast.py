"""The Python analysis' faster paths give what the slower ones gave.

Each fast path (issue 13 item 4) replaced a slower way of computing the same thing:
the `import` keywords by `bytes.find` instead of `rb"\\bimport\\b"`; nested imports
and the type strings' deciding ancestor by one compiled descent (native/enclosing.c)
instead of `Node.parent` per level; the definitions' ranges from the compiled walk's
points; uncovered windows from marked spans; docstrings without listing a body's
statements.
Each test runs the fast path and the old way side by side on inputs chosen to hit the
edges, and checks what a user sees (names, ranges, docstrings, windows). The extension
is built by `pip install`; the compiled paths fail here, not skip, without it.
"""

from __future__ import annotations

import random
import re

from code_intel.indexing.analyze import analyze_source, parse
from code_intel.indexing.chunking import ChunkSettings, python_strings, refscan
from code_intel.indexing.chunking.base import uncovered_windows
from code_intel.indexing.chunking.python import import_keywords, nested_import_statements
from code_intel.indexing.model import Position, Range
from code_intel.indexing.source import SourceDocument


def test_import_keywords_are_the_whole_words_a_word_boundary_regex_finds():
    word = re.compile(rb"\bimport\b")
    rnd = random.Random(13)
    alphabet = b"import_ x9\n.(\x80\xc3"
    cases = [b"", b"import", b"ximport", b"importx", b"_import", b"import9", b"import import",
             b"\xc3import", b"from a import (b)\n# important\nimport os\n"]
    cases += [bytes(rnd.choice(alphabet) for _ in range(rnd.randrange(40))) for _ in range(20000)]
    for data in cases:
        assert import_keywords(data) == [m.start() for m in word.finditer(data)], data


TYPE_STRINGS_SOURCE = b'''"""Module doc naming 'Fake' and Symbol('x')."""
from typing import TypeVar, Union
__all__ = ["Client", 'pkg.Server']
T = TypeVar("T", bound="Base")
U = TypeVar("U", covariant="Nope")
x: "Client" = None
y: Union["URL", str] = f"{d['key']}"
z = d["Key"]
w = typing.Optional["Deep"]


def f(a: "A | None", b=lambda: "Lam") -> "Ret":
    """Doc with 'Quoted' inside."""
    return g(h(i(j(k(l(m(n(o(p("TooDeep"))))))))))


class K:
    attr: list[dict[str, "Inner"]] = []
'''


def test_type_strings_from_the_compiled_descent_match_the_binding_walk():
    root = parse("python", TYPE_STRINGS_SOURCE).root_node
    assert python_strings._enclosing_strings(root, list(python_strings._CANDIDATE.finditer(
        TYPE_STRINGS_SOURCE))) is not None, "the compiled helper did not run: `pip install -e .`"
    compiled = python_strings.type_strings(TYPE_STRINGS_SOURCE, root)
    real = python_strings._enclosing_strings
    try:
        python_strings._enclosing_strings = lambda *_: None  # the binding's Node.parent walk
        walked = python_strings.type_strings(TYPE_STRINGS_SOURCE, root)
    finally:
        python_strings._enclosing_strings = real
    assert compiled == walked
    names = [name for _, _, name in compiled]
    assert names == ["Client", "Server", "Base", "Client", "URL", "Deep", "A", "Ret", "Inner"]


def test_definition_ranges_count_utf16_units_on_non_ascii_lines():
    src = 'é = 1\nclass Ü:  # ü\n    def 𝔣(self): pass\n'.encode()
    analysis = analyze_source("m.py", src)
    by_name = {s.name: s for s in analysis.symbols}
    assert by_name["é"].selection_range == Range(Position(0, 0), Position(0, 1))
    assert by_name["Ü"].selection_range == Range(Position(1, 6), Position(1, 7))
    assert by_name["Ü"].range == Range(Position(1, 0), Position(2, 22))
    assert by_name["𝔣"].selection_range == Range(Position(2, 8), Position(2, 10))  # two units


def test_a_docstring_after_a_comment_is_found_and_a_later_string_is_not():
    src = (b'class A:\n    # a comment first\n    """Doc of A."""\n    x = 1\n'
           b'def f():\n    x = 1\n    "not a docstring"\n')
    docs = {s.name: s.doc for s in analyze_source("m.py", src).symbols}
    assert docs["A"] == "Doc of A."
    assert docs["f"] is None


def _uncovered_by_lines(doc, spans, settings):
    """The old per-line loop, the reference the marked spans must match."""
    n = len(doc.lines)
    covered = [False] * n
    for start, end in spans:
        for line in range(start, min(end, n - 1) + 1):
            covered[line] = True
    runs, start = [], None
    for line in range(n + 1):
        free = line < n and not covered[line]
        if free and start is None:
            start = line
        elif not free and start is not None:
            if sum(1 for ln in doc.lines[start:line] if ln.strip()) >= 5:
                runs.append((start, line - 1))
            start = None
    return runs


def test_uncovered_windows_cover_exactly_the_runs_no_span_covers():
    rnd = random.Random(4)
    settings = ChunkSettings(window_lines=7)
    for _ in range(300):
        lines = [rnd.choice(["", "  ", "x = 1", "print(x)"]) for _ in range(rnd.randrange(1, 60))]
        doc = SourceDocument("m.py", "python", "\n".join(lines).encode())
        spans = [(a, a + rnd.randrange(-2, 15)) for a in (rnd.randrange(70) for _ in range(rnd.randrange(5)))]
        windows = uncovered_windows(doc, spans, settings)
        expected = _uncovered_by_lines(doc, spans, settings)
        got_lines = {line for w in windows for line in range(w.start_line, w.end_line + 1)}
        want_lines = {line for a, b in expected for line in range(a, b + 1)}
        # windows skip blank stretches, so compare the non-blank lines they hold
        assert {i for i in got_lines if doc.lines[i].strip()} == {
            i for i in want_lines if doc.lines[i].strip()}, (lines, spans)
        assert all(w.start_line >= a and w.end_line <= b for w in windows
                   for a, b in [next(r for r in expected if r[0] <= w.start_line <= r[1])])


def test_the_compiled_helpers_are_built():
    assert refscan.AVAILABLE, "code_intel.indexing._refscan did not build: `pip install -e .`"


NESTED_IMPORTS_SOURCE = b'''import os
from a import (b,  # import c
               d)
if TYPE_CHECKING: from typing import Any
try:
    import json
except ImportError:
    import simplejson as json
x = 1; from pkg import tool
def f():
    """Says import os."""
    from . import sibling
    return "import nothing"
def __import__(): pass
'''


def test_nested_imports_from_the_compiled_descent_match_the_binding_walk():
    root = parse("python", NESTED_IMPORTS_SOURCE).root_node
    top = [c for c in root.named_children if c.type in ("import_statement", "import_from_statement")]
    compiled = nested_import_statements(NESTED_IMPORTS_SOURCE, root, top)
    real = refscan.enclosing
    try:
        refscan.enclosing = lambda *_: None  # the binding's Node.parent walk
        walked = nested_import_statements(NESTED_IMPORTS_SOURCE, root, top)
    finally:
        refscan.enclosing = real
    assert [n.id for n in compiled] == [n.id for n in walked]
    assert [n.text.split(b"\n")[0] for n in compiled] == [
        b"from typing import Any", b"import json", b"import simplejson as json", b"from . import sibling"]
    imports = analyze_source("m.py", NESTED_IMPORTS_SOURCE).imports
    assert imports["Any"] == "typing.Any" and imports["json"] == "json" and imports["tool"] == "pkg.tool"


IMPORT_SOURCES = [
    b'"""Doc."""\nimport a.b as c, d.e\nfrom . import x\nfrom .. import (a as b, c)\nfrom x import *\n',
    b'def f():\n    import os\n    from typing import List as L\n    s = "import me"\n# import comment\n',
    b'try:\n    import x\nexcept ImportError:\n    x = None\nif TYPE_CHECKING:\n    from a import B\n',
    b'import\nfrom x import\nimport a as\nfrom . import (a as , b)\n',
    b'x = 1\nimportant = 2\n_import = 4\nclass C:\n    import q\n    def m(self):\n        from .z import w\n',
    b'# comment\n"doc"\nimport a\nimport a.b\nfrom a import b as a\n',
    b'from __future__ import annotations\nimport a; import b\nif x:\n import c\nelse:\n import d\n',
    'import été\nfrom café import naïve as n\n'.encode(),
    b'def f(:\n    import os\n  import bad\nimport good\n',
]


def test_imports_and_module_summary_from_the_compiled_reading_match_the_binding():
    rnd = random.Random(16)
    pieces = [b"import a", b"from . import b as c", b"from ..p import (d, e as f)", b"import g.h as i",
              b"def k():\n    ", b"if x:\n    ", b"try:\n    ", b"except E:\n    ", b"'''doc'''", b"# import",
              b"\n", b"\n", b"\n", b"(", b" as ", b"import", b"x = 'import'"]
    sources = IMPORT_SOURCES + [b"".join(rnd.choice(pieces) for _ in range(rnd.randrange(12))) for _ in range(400)]
    real = refscan.python_imports
    assert real(parse("python", b"import a").root_node, b"import a") is not None, "`pip install -e .`"
    for source in sources:
        for path in ("pkg/mod.py", "pkg/__init__.py"):
            compiled = analyze_source(path, source, language="python")
            try:
                refscan.python_imports = lambda *_: None  # the binding's reading
                walked = analyze_source(path, source, language="python")
            finally:
                refscan.python_imports = real
            assert compiled.imports == walked.imports, source
            assert compiled.chunks == walked.chunks, source
            assert compiled.notes == walked.notes, source
