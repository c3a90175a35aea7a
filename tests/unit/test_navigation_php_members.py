"""PHP navigation beyond code: class names in docblock tags are uses of those classes
(PHP tools read `@param \\App\\Http\\Request $r` as a type), and a member call is a
method while a member access is a property, when a class has both under one name
(`$this->connection` vs `$this->connection()`). Real tree-sitter and index."""

from __future__ import annotations

import pytest
from code_intel.indexing.chunking.php_docblock import docblock_type_names
from code_intel.lsp_server.live_index import LiveIndex
from code_intel.lsp_server.references import references_named

from tests.unit.source_tree import indexed_tree

FILES = {
    "app/Http/Request.php": (
        "<?php\n\nnamespace App\\Http;\n\nclass Request\n{\n    protected $connection;\n\n"
        "    public function connection()\n    {\n        return $this->connection;\n    }\n}\n"
    ),
    "app/Client/Request.php": "<?php\n\nnamespace App\\Client;\n\nclass Request\n{\n}\n",
    "app/Http/Guard.php": (
        "<?php\n\nnamespace App\\Http;\n\nuse App\\Client\\Request as ClientRequest;\n\n"
        "class Guard\n{\n"
        "    /**\n     * @var \\App\\Http\\Request\n     */\n    protected $request;\n\n"
        "    /**\n     * @param  Request  $request\n     * @return ClientRequest|null the request\n     */\n"
        "    public function check(Request $request)\n    {\n"
        "        $conn = $request->connection();\n"
        "        return $request->connection;\n"
        "    }\n}\n"
    ),
    "app/Http/Date.php": (
        "<?php\n\nnamespace App\\Http;\n\n/**\n * @method static \\App\\Http\\Request now($tz = null)\n"
        " * @property string $label\n */\nclass Date\n{\n}\n"
    ),
    "app/Http/Socket.php": (
        "<?php\n\nnamespace App\\Http;\n\nclass Socket\n{\n    public function connection()\n    {\n    }\n}\n"
    ),
    "app/Http/Contract.php": (
        "<?php\n\nnamespace App\\Http;\n\ninterface Contract\n{\n    public function check(Request $request);\n}\n"
    ),
    "app/Http/Narrow.php": (
        "<?php\n\nnamespace App\\Http;\n\nclass Narrow extends Guard implements Contract\n{\n"
        "    public function check(Request $request)\n    {\n        return parent::check($request);\n    }\n\n"
        "    public function run($value, Date $d)\n    {\n"
        "        $now = Date::now();\n"
        "        $label = $d->label;\n"
        "        $isRequest = $value instanceof Request;\n"
        "        return $value instanceof Socket ? $value->connection() : null;\n"
        "    }\n}\n"
    ),
}
GUARD = "app/Http/Guard.php"
NARROW = "app/Http/Narrow.php"


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("php") / "repo", FILES)


def at(needle: str, word: str) -> tuple[int, int]:
    lines = FILES[GUARD].splitlines()
    n = next(i for i, line in enumerate(lines) if needle in line)
    return n, lines[n].index(word, lines[n].index(needle)) + 1


def defs(live: LiveIndex, needle: str, word: str) -> list[str]:
    _, found = live.resolve(GUARD, *at(needle, word))
    return [f"{s.symbol.qualified_name} {s.symbol.kind.value}" for s in found]


def test_docblock_type_names_skip_pseudo_types_keys_and_descriptions():
    text = (b"/**\n * @template TModel of \\App\\M\n * @param  \\App\\X|null  $x  the User\n * @return array<int, Foo>|class-string<Bar> list of Things\n"
            b" * @var array{key: Baz, other?: int}\n * @method static \\A\\B make(\\C $c)\n */")
    assert [w for _, _, w in docblock_type_names(text)] == ["\\App\\M", "\\App\\X", "Foo", "Bar", "Baz", "\\A\\B", "\\C"]


def test_docblock_types_resolve_by_namespace_and_use(live: LiveIndex):
    # before: a comment had no site; `Request` ranked every class of that name
    assert defs(live, "@var \\App\\Http\\Request", "Request") == ["App\\Http\\Request class"]
    assert defs(live, "@param  Request", "Request") == ["App\\Http\\Request class"]
    assert defs(live, "@return ClientRequest", "ClientRequest") == ["App\\Client\\Request class"]


def test_docblock_types_are_references_of_the_class(live: LiveIndex):
    lines = {r.reference.start_line for r in references_named(live, "App\\Http\\Request").resolved if r.path == GUARD}
    assert {at("@var \\App", "R")[0], at("@param  Request", "R")[0], at("check(Request", "R")[0]} <= lines
    client = {r.reference.start_line for r in references_named(live, "App\\Client\\Request").resolved if r.path == GUARD}
    assert at("@return ClientRequest", "C")[0] in client
    assert at("@param  Request", "R")[0] not in client


def test_member_call_is_the_method_and_member_access_the_property(live: LiveIndex):
    # before: both answered the property and the method
    assert defs(live, "$request->connection()", "connection") == ["App\\Http\\Request::connection method"]
    assert defs(live, "return $request->connection;", "connection") == ["App\\Http\\Request::connection property"]


def narrow_defs(live: LiveIndex, needle: str, word: str) -> list[str]:
    lines = FILES[NARROW].splitlines()
    n = next(i for i, line in enumerate(lines) if needle in line)
    _, found = live.resolve(NARROW, n, lines[n].index(word, lines[n].index(needle)) + 1)
    return [f"{s.symbol.qualified_name} {s.symbol.kind.value}" for s in found]


def test_docblock_magic_members_are_members_of_their_class(live: LiveIndex):
    # before: a facade's `@method static` had no definition (a same-named stranger won)
    assert narrow_defs(live, "Date::now()", "now") == ["App\\Http\\Date::now method"]
    assert narrow_defs(live, "$d->label", "label") == ["App\\Http\\Date::label property"]


def test_parent_is_the_extended_class_not_an_interface(live: LiveIndex):
    # before: `parent::check` answered the interface's declaration too
    assert narrow_defs(live, "parent::check", "check") == ["App\\Http\\Guard::check method"]


def test_instanceof_narrows_the_receiver(live: LiveIndex):
    # before: an untyped `$value` listed every `connection()` method
    assert narrow_defs(live, "$value->connection()", "connection") == ["App\\Http\\Socket::connection method"]


def test_instanceof_names_a_class_by_php_rules(live: LiveIndex):
    # before: `instanceof Request` was a plain name ranked among both `Request` classes
    assert narrow_defs(live, "$value instanceof Request", "Request") == ["App\\Http\\Request class"]
