"""PHP's signatures and docstrings for all of a file's definitions from one compiled
call (`refscan.php_facts`): the strings the per-node hooks make, for every kind of
PHP definition and docblock placement, and every PHP fixture."""

from __future__ import annotations

import pytest
from code_intel.indexing.analyze import parse
from code_intel.indexing.chunking import php, refscan, strategy_for
from code_intel.indexing.source import SourceDocument

from tests.conftest import FIXTURES

EVERY_KIND = b"""<?php
namespace App;

/** The interface. */
interface HasName { public function name(): string; }

/**
 * A trait.
 */
trait Named {}

/** Kinds. */
enum Kind: string
{
    /** The first. */
    case One = 'one';
    case Two = 'two';
}

/* not a docblock */
class Post extends Model implements HasName
{
    /** @var int */
    const LIMIT = 10, OTHER = 20;

    /**
     * Its clock.
     */
    private ?Clock $clock = null, $other;

    // a line comment
    public function __construct(
        /** promoted */ private readonly Repo $repo,
        int $plain,
    ) {}

    /** Too far above. */


    public function far() {}

    /** The name. */
    #[Pure]
    public function name(): string
    {
        /** @var Query $q */
        $q = null;
        return new class { /** Inner. */ public function run() {} };
    }
}

/** A factory. */
function make(): object
{
    /** An anonymous one. */
    return new class($x) extends Base implements I {
        public function go() {}
    };
}

/** a docblock */ function sameLine() {}
"""


def _texts(data: bytes, path: str = "app/Post.php"):
    doc = SourceDocument(path, "php", data)
    doc.tree = parse("php", data)
    strategy = strategy_for("php")
    root = doc.tree.root_node
    nodes = [m[0] for m in strategy._definition_nodes(doc, root, None)]
    compiled = strategy.definition_texts(doc, nodes)
    by_hooks = [(strategy.signature(doc, n), strategy.docstring(doc, n)) for n in nodes]
    return nodes, compiled, by_hooks


def test_every_kind_of_definition_gets_the_hooks_texts() -> None:
    nodes, compiled, by_hooks = _texts(EVERY_KIND)
    assert refscan.AVAILABLE, "code_intel.indexing._refscan did not build: `pip install -e .`"
    assert compiled == by_hooks  # not None: one compiled call answered
    texts = dict(zip((n.type for n in nodes), compiled, strict=False))
    assert {n.type for n in nodes} >= {
        "interface_declaration", "trait_declaration", "enum_declaration", "enum_case", "class_declaration",
        "const_element", "property_element", "property_promotion_parameter", "method_declaration",
        "anonymous_class", "function_definition",
    }
    assert texts["const_element"] == ("const LIMIT = 10, OTHER = 20;", "@var int")
    docs = [doc for _, doc in compiled]
    assert "Too far above." not in docs and "not a docblock" not in docs
    assert {"promoted", "An anonymous one.", "a docblock", "The name.", "Inner."} <= set(docs)


@pytest.mark.parametrize("path", sorted(p for p in FIXTURES.rglob("*.php")), ids=lambda p: p.name)
def test_every_php_fixture_gets_the_hooks_texts(path) -> None:
    _, compiled, by_hooks = _texts(path.read_bytes(), path.name)
    assert compiled == by_hooks  # the compiled call answered (None is the fallback)


def test_the_docblocks_found_serve_the_chunk_rows_and_the_references() -> None:
    """`definition_texts` keeps each docblock as the hooks would: the chunk's first row
    and the references pass read it without asking the tree again."""
    doc = SourceDocument("app/Post.php", "php", EVERY_KIND)
    doc.tree = parse("php", EVERY_KIND)
    strategy = strategy_for("php")
    php._memo.cache = {}
    try:
        defs = strategy._definitions(doc, doc.tree.root_node, "App")
        kept = dict(php._memo.cache[("docblocks", doc.path)])
        rows = [strategy._docblock_row(doc, d) for d in defs]
    finally:
        php._memo.cache = None
    assert refscan.AVAILABLE, "code_intel.indexing._refscan did not build: `pip install -e .`"
    expected = {}
    for d in defs:
        comment = php.docblock(doc, d.node)
        if comment is not None:
            expected[comment.start_byte] = (comment.start_byte, comment.end_byte, *comment.start_point)
    assert kept == expected
    assert rows == [
        (c[2] if (c := expected.get(getattr(php.docblock(doc, d.node), "start_byte", -1))) and
         d.symbol.kind in strategy.chunk_kinds and c[2] < d.symbol.range.start.line else None)
        for d in defs
    ]


def test_a_subclass_with_its_own_hooks_is_asked_node_by_node() -> None:
    class Custom(php.PhpStrategy):
        def signature(self, doc, node):
            return "custom"

    doc = SourceDocument("a.php", "php", b"<?php function f() {}")
    doc.tree = parse("php", doc.data)
    assert Custom().definition_texts(doc, [doc.tree.root_node]) is None
