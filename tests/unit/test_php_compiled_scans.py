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


LINK_FORMS = b"""<?php
namespace App\\Http;

use Livewire\\Attributes\\Layout;

#[Layout('layouts.app')]
#[\\Livewire\\Attributes\\Layout('layouts.admin')]
#[Title('not a view')]
#[Layout]
class Show extends Component
{
    protected $with = ['author', 'tags.owner'];
    protected $casts = ['a' => 'b'];
    public $with2 = ['not'];

    public function handle()
    {
        route('threads.show');
        to_route('home');
        \\route('qualified.is.not.a.name');
        redirect()->route('login', route('nested'));
        $q?->route('nullsafe.is.not.matched');
        Route::has('forum');
        \\Illuminate\\Support\\Facades\\Route::is('admin.*');
        Router::has('no');
        view('articles.show', ['x' => view('nested.view')]);
        View::make('mail.a');
        View::first(['a.b', 'c.d']);
        \\Illuminate\\Support\\Facades\\View::exists('x.y');
        $this->view('livewire.editor')->layout('layouts.app')->extends('base');
        $m->markdown('mail::message')->text('mail.text');
        Route::view('rules', 'rules');
        Route::view('terms');
        Post::with('author.profile:id,name')->whereHas('tags')->withCount('likes as n');
        Post::has('comments')->make('ignored');
        View::make('also.a.make');
        TextColumn::make('customer.name');
        Select::make('brand')->relationship('brand', 'name');
        $query->load(['a', 'b' => fn ($q) => $q->with('c')]);
        $query->with($variable)->with("dq.name")->with("in{$terp}");
        $query->WITH('case.matters');
        $fn = 'route';
        $fn('dynamic');
        $x = $y->route;
        route ('spaced');
    }
}
"""


def _link_matches(doc: SourceDocument):
    compiled = laravel_links.compiled_matches(doc, doc.tree.root_node)
    query = laravel_links.query_matches(doc.tree.root_node)
    key = [(p, n.start_byte, n.end_byte, n.type, a and (a.start_byte, a.end_byte)) for p, n, a in query]
    assert compiled is not None
    return [(p, n.start_byte, n.end_byte, n.type, a and (a.start_byte, a.end_byte)) for p, n, a in compiled], key


def _by_kind(matches):
    """The readers keep each kind's matches in order; across kinds the order is free."""
    return {
        kind: [m for m in matches if laravel_links._KINDS[m[0]][0] == kind]
        for kind in ("route", "view", "relation", "make", "with")
    }


def test_the_links_walk_is_compiled_and_finds_every_pattern_form_the_query_finds():
    doc = _doc(LINK_FORMS)
    compiled, query = _link_matches(doc)
    assert _by_kind(compiled) == _by_kind(query)
    assert sorted(compiled) == sorted(query)
    assert {p for p, *_ in compiled} == set(range(len(laravel_links._KINDS)))  # every pattern met
    names = [r.name for r in laravel_links.laravel_string_references(doc, doc.tree.root_node)]
    assert "threads.show" in names and "layouts.admin" in names and "owner" in names
    assert "qualified.is.not.a.name" not in names and "nullsafe.is.not.matched" not in names
    assert "case.matters" not in names and "dynamic" not in names


def test_every_php_fixture_gets_the_same_links_from_the_walk_and_the_query(monkeypatch):
    files = sorted(FIXTURES.rglob("*.php"))
    assert len(files) > 20
    for path in files:
        doc = _doc(path.read_bytes())
        compiled, query = _link_matches(doc)
        assert _by_kind(compiled) == _by_kind(query), path
        refs = laravel_links.laravel_string_references(doc, doc.tree.root_node)
        with monkeypatch.context() as m:
            m.setattr(laravel_links, "compiled_matches", lambda doc, root: None)
            assert laravel_links.laravel_string_references(doc, doc.tree.root_node) == refs, path


def test_a_rule_name_set_must_hold_bytes():
    import pytest

    root = _doc(b"<?php f();").tree.root_node
    rule = ([("name", "function", False), ("function_call_expression", None, False)], [], None, None)
    with pytest.raises(TypeError, match="frozenset of bytes"):
        refscan._refscan.compile_rules(root, [(*rule, frozenset({"f"}))])
    with pytest.raises(TypeError, match="frozenset of bytes"):
        refscan._refscan.compile_rules(root, [(*rule, {b"f"})])
    spans = refscan._refscan.rule_spans(root, refscan._refscan.compile_rules(root, [(*rule, frozenset({b"f"}))]))
    assert spans == [(6, 7, 0)]
    none = refscan._refscan.rule_spans(root, refscan._refscan.compile_rules(root, [(*rule, frozenset({b"g"}))]))
    assert none == []


def test_one_walk_serves_the_related_classes_and_the_links_of_a_file_that_links(monkeypatch):
    """A file that may link gets both from one walk over both rule sets; each must be
    what its own query gives (the sets are disjoint, the walk keeps the first rule)."""
    from code_intel.indexing.chunking.php import compiled_spans

    data = EVERY_FORM.replace(b"return User::find(1);", b"route('home'); $q->with('author'); return User::find(1);")
    doc = _doc(data)
    assert laravel_links.may_link(doc.data)
    spans = compiled_spans(doc, doc.tree.root_node)
    assert {r >= len(_RELATED_RULES) for _, _, r in spans} == {True, False}
    compiled, query = _both(monkeypatch, doc)
    assert compiled == query and len(compiled[0]) == 15
    compiled_links, query_links = _link_matches(doc)
    assert compiled_links == query_links and [p for p, *_ in compiled_links] == [0, 8]
