"""The text gate in front of the Laravel links query: a file is queried exactly when
its text names one of the query's calls before a `(` (or has `$with`); the gate's
regex is a prefix-factored form of that word list, and must accept the same texts."""

from __future__ import annotations

import random
import re

from code_intel.indexing.analyze import analyze_source
from code_intel.indexing.chunking.laravel_links import _LINK_CALLS, _MAY_LINK, word_trie


def test_the_factored_regex_matches_exactly_the_words():
    trie = re.compile(word_trie(_LINK_CALLS))
    assert all(trie.fullmatch(w) for w in _LINK_CALLS)
    near = {w[:-1] for w in _LINK_CALLS} | {w + "x" for w in _LINK_CALLS} | {"Has", "loadmissing", ""}
    assert not any(trie.fullmatch(w) for w in near - set(_LINK_CALLS))


def test_the_gate_agrees_with_the_plain_word_list_on_random_text():
    flat = re.compile(rb"\b(?:" + "|".join(_LINK_CALLS).encode() + rb")\s*\(|Layout\s*\(|\$with\b")
    rng = random.Random(13)
    pieces = [w.encode() for w in _LINK_CALLS] + [b"(", b" ", b"\t", b"$", b"x", b"_", b"L", b"->", b"with",
                                                  b"Layout", b"::", b"a", b"\n", b"hasMany", b"is_"]
    for _ in range(20_000):
        text = b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 6)))
        assert (flat.search(text) is None) == (_MAY_LINK.search(text) is None), text


def test_a_file_passing_the_gate_gets_its_links_and_one_failing_it_none():
    linked = b"<?php\nfunction f() { return redirect()->route('posts.show'); }\n"
    plain = b"<?php\nfunction f() { return $this->routes('posts.show'); }\n"
    refs = lambda data: [r.name for r in analyze_source("app/x.php", data).references]
    assert "posts.show" in refs(linked)
    assert "posts.show" not in refs(plain)


def test_the_query_links_exactly_the_listed_call_names():
    """The query's name tests (`#any-of?`, compared as strings) link each listed call and
    no name that only starts, ends or differs in case like one: what the anchored
    regexes they replace accepted."""
    from code_intel.indexing.chunking.laravel_links import _RELATION_METHODS, any_of

    assert any_of("@fn", "has|is") == '(#any-of? @fn "has" "is")'
    listed = _RELATION_METHODS.split("|")
    near = sorted({w + "x" for w in listed} | {w[:-1] for w in listed} | {w.upper() for w in listed}
                  - set(listed))
    calls = "".join(f"    $q->{w}('rel_{i}');\n" for i, w in enumerate(listed + near))
    source = f"<?php\nfunction f($q) {{\n{calls}    route('home'); to_routex('no'); Route::is('admin');\n}}\n"
    names = {r.name for r in analyze_source("app/x.php", source.encode()).references}
    assert {f"rel_{i}" for i in range(len(listed))} <= names
    assert not {f"rel_{i}" for i in range(len(listed), len(listed) + len(near))} & names
    assert {"home", "admin"} <= names and "no" not in names
