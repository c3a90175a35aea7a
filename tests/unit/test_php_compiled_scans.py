"""PHP passes moved from Python or the query engine into the extension (native/):
the related-classes walk (`refscan.rule_spans`, php.py's `_RELATED_RULES`), the
docblock type-name scan and the Laravel links gate (native/docblock.c). Each must give
exactly what the code it replaces gives: the query `_RELATED_QUERY`, the Python
`docblock_type_names_py`, the regex `_MAY_LINK`.
These fail (not skip) when the extension is missing, as tests/unit/test_refscan.py does.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from code_intel.indexing.analyze import parse
from code_intel.indexing.chunking import laravel_links, php_docblock, refscan, strategy_for
from code_intel.indexing.chunking.php import _RELATED_RULES
from code_intel.indexing.source import SourceDocument

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

EVERY_FORM = b"""<?php
namespace App\\Http;

use App\\Models\\User;

class Show extends Base
{
    public function __construct(private Mailer $mailer) {}

    public function handle(Request $request, ?\\App\\Models\\Post $post): Response|View
    {
        $a = new Report($this->mailer);
        $b = Cache::class;
        $c = Str::slug($this->title);
        $d = Config::$items;
        if ($request instanceof \\Illuminate\\Http\\Request || $request === PHP_EOL) {}
        $e = $a + LIMIT;
        $this->save();
        $this /* a comment */ -> queue;
        $this?->nullsafe;
        $other->notThis;
        $this->{$dynamic};
        $f = "{$this->interpolated}";
        return User::find(1);
    }
}
"""


def _doc(data: bytes) -> SourceDocument:
    doc = SourceDocument(path="Show.php", language="php", data=data)
    doc.tree = parse("php", data)
    return doc


def _both(monkeypatch, doc: SourceDocument):
    strategy = strategy_for("php")
    compiled = strategy._related_captures(doc)
    with monkeypatch.context() as m:
        m.setattr(refscan, "rule_spans", lambda *_: None)  # the query engine's path
        query = strategy._related_captures(doc)
    return compiled, query


def test_the_related_classes_walk_is_compiled_and_finds_what_the_query_finds(monkeypatch):
    doc = _doc(EVERY_FORM)
    assert refscan.rule_spans(doc.tree.root_node, "php", "php related", _RELATED_RULES) is not None
    compiled, query = _both(monkeypatch, doc)
    assert compiled == query
    assert [text for _, text in compiled[1]] == [
        "Mailer", "Request", "\\App\\Models\\Post", "Response", "View", "Report", "mailer", "Cache",
        "Str", "title", "Config", "\\Illuminate\\Http\\Request", "queue", "interpolated", "User",
    ]
    kinds = {text: kind for kind, text in compiled[1]}
    assert kinds["mailer"] == kinds["queue"] == "this_prop" and kinds["Report"] == "type"


def test_every_php_fixture_gets_the_same_related_classes_from_both(monkeypatch):
    files = sorted(FIXTURES.rglob("*.php"))
    assert len(files) > 20
    for path in files:
        compiled, query = _both(monkeypatch, _doc(path.read_bytes()))
        assert compiled == query, path


def test_the_docblock_scan_is_compiled():
    assert php_docblock.docblock_type_names is not php_docblock.docblock_type_names_py, (
        "code_intel.indexing._refscan did not build: reinstall with `pip install -e .`"
    )


def test_the_compiled_docblock_scan_matches_the_python_one():
    """Every docblock of the fixtures, and generated strings made of the tags, names,
    brackets and separators the scan decides on (seeded: the same strings every run)."""
    blocks = [b for p in sorted(FIXTURES.rglob("*.php")) for b in re.findall(rb"/\*\*.*?\*/", p.read_bytes(), re.DOTALL)]
    assert len(blocks) > 20
    pieces = [
        b"@param", b"@return", b"@var", b"@throws", b"@mixin", b"@property", b"@property-read", b"@property-x",
        b"@method", b"@method static", b"@see", b"@extends", b"@implements", b"@use", b"@uses", b"@template",
        b"@template-covariant", b"@template-extends", b"@type", b"@phpstan-param", b"@psalm-return", b"@psalm-",
        b"@", b" of ", b"T", b"Foo", b"\\Foo\\Bar", b"\\", b"Bar\\", b"int", b"array{", b"}", b"<", b">", b"(", b")",
        b"[", b"]", b"|", b"&", b",", b":", b"?:", b"$x", b"-", b".", b"=", b" ", b"\t", b"\n", b"\r", b"\n * ",
        b"*/", b"2Foo", b"X_1", b"class-string", b"Closure(int):void",
    ]
    rng = random.Random(7)
    generated = [b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 24))) for _ in range(20000)]
    for text in blocks + generated:
        assert php_docblock.docblock_type_names(text) == php_docblock.docblock_type_names_py(text), text


def test_the_links_gate_is_compiled_and_decides_as_its_regex():
    """`laravel_links.may_link` (compiled `calls_any` + the regex's other branches)
    answers what `_MAY_LINK.search` answers: on every PHP fixture, and on generated text
    made of link names, near misses, blanks, sigils and parentheses."""
    assert laravel_links.calls_any is not None, "code_intel.indexing._refscan did not build"
    files = [p.read_bytes() for p in sorted(FIXTURES.rglob("*.php"))]
    assert any(laravel_links.may_link(d) for d in files) and not all(laravel_links.may_link(d) for d in files)
    pieces = [b"with", b"without", b"has", b"orHas", b"view", b"route", b"to_route", b"make", b"Layout", b"$with",
              b"$withX", b"x", b"_", b"2", b"(", b" ", b"\n", b"\t", b"\v", b"->", b"::", b"withx", b"hasMany", b"is"]
    rng = random.Random(5)
    generated = [b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) for _ in range(20000)]
    for data in files + generated:
        assert laravel_links.may_link(data) == bool(laravel_links._MAY_LINK.search(data)), data
