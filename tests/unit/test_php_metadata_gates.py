"""PHP asks the binding less for the same output: about a method's statements only
where it calls a relation's name (the compiled walk's spans), about a class's members
only where `__construct` occurs, and about a `/**` only where no definition's docblock
starts (the definitions pass found those)."""

from __future__ import annotations

from types import SimpleNamespace

from code_intel.indexing.analyze import analyze_source, parse
from code_intel.indexing.chunking import php, refscan, strategy_for
from code_intel.indexing.chunking.php import (
    ELOQUENT_RELATIONS,
    _constructor,
    eloquent_relation,
    relation_calls,
)
from code_intel.indexing.source import SourceDocument

MODEL = b"""<?php
namespace App\\Models;

use Illuminate\\Database\\Eloquent\\Model;

class Post extends Model
{
    public function __CONSTRUCT(private Clock $clock) {}

    public function tags() { return $this->morphedByMany(Tag::class, 'taggable'); }
    public function owner() { return $this->belongsTo(User::class)->withDefault(); }
    public function rows() { return $this->hasManyThrough(Row::class, Sheet::class); }
    public function title(): string { return $this->hasOneOfMany ?? 'x'; }
    public function plain(): int { return 1; }
}
"""


def _chunks(source: bytes) -> dict[str, dict]:
    analysis = analyze_source("app/Models/Post.php", source)
    return {c.symbol_name: c.metadata for c in analysis.chunks}


def test_relations_and_an_uppercase_constructor_are_still_found() -> None:
    meta = _chunks(MODEL)
    assert [(r["name"], r["type"], r["related"]) for r in meta["Post"]["relations"]] == [
        ("tags", "morphedByMany", "App\\Models\\Tag"),
        ("owner", "belongsTo", "App\\Models\\User"),
        ("rows", "hasManyThrough", "App\\Models\\Row"),
    ]
    assert meta["Post"]["injected_dependencies"] == [
        {"class": "App\\Models\\Clock", "variable": "clock", "promoted": True}
    ]
    assert meta["owner"]["relation"]["type"] == "belongsTo"
    assert "relation" not in meta["title"] and "relation" not in meta["plain"]


def test_every_relation_name_passes_the_byte_gate() -> None:
    for name in sorted(ELOQUENT_RELATIONS):
        body = f"<?php class A extends Model {{ function r() {{ return $this->{name}(B::class); }} }}"
        meta = _chunks(body.encode())
        assert meta["r"]["relation"]["type"] == name, name


class _Untouchable(SimpleNamespace):
    """A method or member node whose children must not be asked for."""

    def child_by_field_name(self, name: str) -> None:
        raise AssertionError(f"asked for the {name!r} of a node the bytes rule out")


def test_a_method_that_calls_no_relation_is_not_walked() -> None:
    data = b"""<?php class A {
    function plain() { return $this->hasOn()->hasOneOf; }
    function rel() { return $this->hasOne(B::class); }
}"""
    doc = SourceDocument("a.php", "php", data)
    doc.tree = parse("php", data)
    plain, rel = doc.tree.root_node.named_children[-1].child_by_field_name("body").named_children
    assert refscan.AVAILABLE, "code_intel.indexing._refscan did not build: `pip install -e .`"
    assert relation_calls(doc) == [rel.start_byte + data[rel.start_byte:].index(b"hasOne")]
    untouchable = _Untouchable(start_byte=plain.start_byte, end_byte=plain.end_byte)
    assert eloquent_relation(doc, untouchable, lambda name: name) is None
    assert eloquent_relation(doc, rel, lambda name: name) == {"name": "rel", "type": "hasOne", "related": "B"}


def test_a_class_body_without_construct_asks_no_member_its_name() -> None:
    data = b"<?php class A { function construct() {} function _construct() {} }"
    doc = SourceDocument("a.php", "php", data)
    members = [_Untouchable(start_byte=16, end_byte=38, type="method_declaration"),
               _Untouchable(start_byte=39, end_byte=len(data) - 2, type="method_declaration")]
    assert _constructor(doc, members) is None
    assert _constructor(doc, []) is None


DOCBLOCKS = b"""<?php
namespace App;

/**
 * @property Carbon $at
 */
class Post
{
    /** @var Clock */
    private $clock;

    /**
     * @param  User  $user
     * @return Builder
     */
    public function scopeOf($q, $user)
    {
        /** @var Query $q */
        return $q;
    }
}
"""


def test_a_definitions_docblock_is_not_looked_up_again_for_its_references() -> None:
    """The definitions pass found each definition's docblock (its docstring): the
    references pass asks the tree only about the other `/**`, with the same result."""
    doc = SourceDocument("app/Post.php", "php", DOCBLOCKS)
    doc.tree = parse("php", DOCBLOCKS)
    root = doc.tree.root_node
    expected = php.docblock_references(doc, root)
    asked: list[int] = []

    class CountingRoot:
        def descendant_for_byte_range(self, start: int, end: int):
            asked.append(start)
            return root.descendant_for_byte_range(start, end)

    strategy = strategy_for("php")
    php._memo.cache = {}
    try:
        defs = strategy._definitions(doc, root, "App")
        got = php.docblock_references(doc, CountingRoot())
    finally:
        php._memo.cache = None
    assert [d.symbol.doc for d in defs] == ["@property Carbon $at", "@var Clock", "@param  User  $user\n@return Builder"]
    assert got == expected and [r.name for r in got] == ["Carbon", "Clock", "User", "Builder", "Query"]
    assert asked == [DOCBLOCKS.index(b"/** @var Query")]
