"""Python names the way django-ninja and typer write them: a shortcut defined twice, once
under `if TYPE_CHECKING:` for the type checker and once in the `else:` for run time; a
nested class named in a method's annotation (the class body's scope); an app object made
at module level (`app = typer.Typer()`) whose methods decorate functions; the values of
a dict a function declares (`for name, param in params.items()`, `list(d.values())[:]`).
Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import definitions_at, indexed_tree

FILES = {
    "ninja/__init__.py": "from ninja.params import Path, Query\nfrom ninja.main import Typer\n",
    "ninja/params/functions.py": (
        "def Path(default=None, **kwargs):\n    return default\n\n\n"
        "def Query(default=None, **kwargs):\n    return default\n"
    ),
    "ninja/params/__init__.py": (
        "from typing import TYPE_CHECKING, Annotated, TypeVar\n\n"
        "from ninja.params import functions as param_functions\n\n"
        "T = TypeVar(\"T\")\n\n"
        "if TYPE_CHECKING:  # pragma: nocover\n"
        "    Path = Annotated[T, param_functions.Path()]\n"
        "    Query = Annotated[T, param_functions.Query()]\n"
        "else:\n\n"
        "    class ParamShortcut:\n        def __init__(self, base_func):\n            self._base_func = base_func\n\n"
        "    Path = ParamShortcut(param_functions.Path)\n"
        "    Query = ParamShortcut(param_functions.Query)\n"
    ),
    "ninja/pagination.py": (
        "class Schema:\n    pass\n\n\n"
        "class PaginationBase:\n"
        "    class Input(Schema):\n        page: int\n\n"
        "    def paginate_queryset(self, items, pagination: Input, **params):\n"
        "        return items\n"
    ),
    "ninja/main.py": (
        "from typing import Any, Callable\n\n\n"
        "class ParamMeta:\n"
        "    def __init__(self, *, name: str, annotation: Any = None) -> None:\n"
        "        self.name = name\n        self.annotation = annotation\n\n\n"
        "def get_params_from_function(func: Callable[..., Any]) -> dict[str, ParamMeta]:\n"
        "    return {}\n\n\n"
        "class Typer:\n"
        "    def command(self, name: str | None = None) -> Callable[[Any], Any]:\n"
        "        return lambda f: f\n\n\n"
        "def get_params(callback: Callable[..., Any]) -> list[str]:\n"
        "    parameters = get_params_from_function(callback)\n"
        "    for param_name, param in parameters.items():\n"
        "        if param.annotation is None:\n            continue\n"
        "    unassigned = list(parameters.values())\n"
        "    for param_sig in unassigned[:]:\n"
        "        ctx_name = param_sig.name\n"
        "    return []\n"
    ),
    # same-named strangers: a name alone does not decide
    "ninja/other.py": (
        "class Context:\n"
        "    def __init__(self, command: str, name: str, annotation: str) -> None:\n"
        "        self.command = command\n        self.name = name\n        self.annotation = annotation\n\n\n"
        "class Input:\n    pass\n"
    ),
    "ninja/revisions.py": (
        "class Revision:\n    def __init__(self, name: str) -> None:\n        self.name = name\n\n\n"
        "from ninja.other import Context\n\n\n"
        "def heads(contexts: list[Context], revisions: set[Revision]) -> tuple[str, ...]:\n"
        "    for rev in contexts:\n        print(rev.name)\n"
        "    names = [r.name for r in revisions]\n"
        "    for i, each in enumerate(contexts):\n        print(i, each.name)\n"
    "    newest = next(r for r in revisions if r.name)\n    print(newest.name)\n"
    "    first = next(iter(revisions))\n    print(first.name)\n"
    "    picked: list[Revision]\n"
    "    if names:\n        picked = [r for r in revisions if r.name]\n"
    "    else:\n        picked = []\n"
    "    print({p.name for p in picked})\n"
    "    return tuple(rev.name for rev in revisions)\n"
    ),
    "ninja/tree.py": (
        "class Leaf:\n    label = \"leaf\"\n\n\n"
        "class Branch:\n    label = \"branch\"\n\n\n"
        "def describe(node: Leaf | Branch) -> str:\n"
        "    if isinstance(node, Leaf):\n        first = node.label\n"
        "    else:\n        second = node.label\n"
        "    if not isinstance(node, Leaf):\n        third = node.label\n"
        "    return first\n"
    ),
    "ninja/client.py": (
        "from ninja.tree import Branch\n\n\n"
        "class Client:\n"
        "    def __init__(self, branch=None) -> None:\n"
        "        self.branch = branch or Branch()\n\n"
        "    def show(self) -> str:\n        return self.branch.label\n"
    ),
    "tests/test_pagination.py": (
        "from ninja.pagination import PaginationBase, Schema\n\n\n"
        "class CustomPagination(PaginationBase):\n"
        "    class Input(Schema):\n        skip: int\n\n"
        "    def paginate_queryset(self, items, pagination: Input, **params):\n"
        "        skip = pagination.skip\n        return items[skip:]\n\n\n"
        "class OtherPagination(PaginationBase):\n"
        "    class Input(Schema):\n        offset: int\n\n"
        "    def paginate_queryset(self, items, pagination: Input, **params):\n"
        "        return items\n"
    ),
    "tests/test_params.py": (
        "from ninja import Path, Query\n\n\n"
        "def get_item(request, item_id: int = Path(...), q: str = Query(None)):\n"
        "    return item_id\n"
    ),
    "tests/test_app.py": (
        "import ninja\n\napp = ninja.Typer()\n\n\n"
        "@app.command()\ndef hello() -> None:\n    print(\"hello\")\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("pydeclared") / "repo", FILES)


def defs(live: LiveIndex, rel: str, needle: str, word: str) -> list[str]:
    return [
        f"{s.path}:{s.symbol.selection_range.start.line + 1}"
        for s in definitions_at(live, FILES, rel, needle, word)
    ]


def test_the_type_checking_branch_defines_a_name_for_the_checker(live: LiveIndex):
    # before: both the `if TYPE_CHECKING:` alias and the `else:` shortcut were answered
    assert defs(live, "tests/test_params.py", "= Path(...)", "Path") == ["ninja/params/__init__.py:8"]
    assert defs(live, "tests/test_params.py", "= Query(None)", "Query") == ["ninja/params/__init__.py:9"]


def test_a_method_annotation_sees_the_nested_class_of_its_own_class(live: LiveIndex):
    # before: both test classes' `Input` (and the module-level one elsewhere) were listed
    got = defs(live, "tests/test_pagination.py", "pagination: Input", "Input")
    assert got == ["tests/test_pagination.py:5"]
    lines = FILES["tests/test_pagination.py"].splitlines()
    second = [i for i, line in enumerate(lines) if "pagination: Input" in line][1]
    _, found = live.resolve("tests/test_pagination.py", second, lines[second].index("Input") + 1)
    assert [f"{s.path}:{s.symbol.selection_range.start.line + 1}" for s in found] == ["tests/test_pagination.py:14"]


def test_a_module_level_object_made_by_a_qualified_call(live: LiveIndex):
    # before: `app` had no type, so `Typer.command` stood with `Context.command`
    assert defs(live, "tests/test_app.py", "@app.command()", "command") == ["ninja/main.py:15"]


def test_the_values_of_a_declared_dict(live: LiveIndex):
    # before: `.items()` / `.values()` / `list(…)` / `[:]` lost the value type
    assert defs(live, "ninja/main.py", "if param.annotation", "annotation") == ["ninja/main.py:7"]
    assert defs(live, "ninja/main.py", "param_sig.name", "name") == ["ninja/main.py:6"]


def test_the_run_time_definition_is_among_the_references(live: LiveIndex):
    # pyright lists the `else:` rebinding with the uses of the checker's `Query`
    from code_intel.lsp_server.references import references_at

    lines = FILES["tests/test_params.py"].splitlines()
    n = next(i for i, line in enumerate(lines) if "Query(None)" in line)
    answer = references_at(live, "tests/test_params.py", n, lines[n].index("Query(None)") + 1)
    declared = {(t.path, t.symbol.selection_range.start.line + 1) for t in answer.targets}
    assert declared == {("ninja/params/__init__.py", 9), ("ninja/params/__init__.py", 17)}
    assert ("tests/test_params.py", n + 1) in {(r.path, r.reference.start_line + 1) for r in answer.resolved}


def test_a_comprehension_variable_is_bound_by_its_own_for(live: LiveIndex):
    # before: the earlier loop's `rev` (a Context) decided the generator's `rev`
    assert defs(live, "ninja/revisions.py", "tuple(rev.name for rev", "name") == ["ninja/revisions.py:3"]
    assert defs(live, "ninja/revisions.py", "[r.name for r in", "name") == ["ninja/revisions.py:3"]


def test_the_else_of_an_isinstance_check_is_the_other_type(live: LiveIndex):
    # before: the last isinstance check made `node` a Leaf in every branch
    assert defs(live, "ninja/tree.py", "first = node.label", "label") == ["ninja/tree.py:2"]
    assert defs(live, "ninja/tree.py", "second = node.label", "label") == ["ninja/tree.py:6"]
    assert defs(live, "ninja/tree.py", "third = node.label", "label") == ["ninja/tree.py:6"]


def test_enumerate_gives_index_and_item(live: LiveIndex):
    # before: `enumerate(...)` was an outside call, its items unknown
    assert defs(live, "ninja/revisions.py", "print(i, each.name)", "name") == ["ninja/other.py:4"]


def test_a_value_or_a_default_has_the_default_type(live: LiveIndex):
    # before: `branch or Branch()` said nothing of the field's type
    assert defs(live, "ninja/client.py", "return self.branch.label", "label") == ["ninja/tree.py:6"]


def test_a_declared_annotation_types_later_bindings_that_say_nothing(live: LiveIndex):
    # before: `picked = [...]` and `picked = []` hid the `picked: list[Revision]` declaration
    assert defs(live, "ninja/revisions.py", "{p.name for p in picked}", "name") == ["ninja/revisions.py:3"]


def test_next_of_a_generator_or_an_iterator_is_an_item(live: LiveIndex):
    # before: `next(...)` was an outside call
    assert defs(live, "ninja/revisions.py", "print(newest.name)", "name") == ["ninja/revisions.py:3"]
    assert defs(live, "ninja/revisions.py", "print(first.name)", "name") == ["ninja/revisions.py:3"]
