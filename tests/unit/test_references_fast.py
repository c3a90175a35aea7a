"""References over many files stay fast without losing precision: only occurrences
the index cannot decide cost a parse, and the aliases a symbol is imported under are
matched exactly (case and separators), so a references request does not read every
file that imports something ending in the same letters."""

from __future__ import annotations

import pytest
from code_intel.lsp_server import navigator
from code_intel.lsp_server.live_index import LiveIndex
from code_intel.lsp_server.references import references_named

from tests.unit.source_tree import indexed_tree

FILES = {
    "pkg/__init__.py": "",
    "pkg/sympify.py": "def sympify(x):\n    return x\n\n\ndef _sympify(x):\n    return sympify(x)\n",
    "pkg/ops.py": (
        "from .sympify import sympify\n"
        "from mpmath import mpf_add\n"
        "from .adds import add_all\n"
        "\n\n"
        "class Add:\n"
        "    pass\n"
        "\n\n"
        "def f(y):\n"
        "    return sympify(y), mpf_add(1, 2), add_all()\n"
    ),
    "pkg/adds.py": "def add_all():\n    return 0\n",
    "pkg/shadow.py": (
        "from .sympify import sympify\n\n\ndef h(sympify):\n    return sympify(2)\n\n\n"
        "def k():\n    return sympify(3)\n"
    ),
    "web/client.ts": "export default function got(url: string): string {\n    return url;\n}\n",
    "web/use.ts": (
        "import got from './client.js';\n\ngot('a');\n"
        "test('x', async (t, got) => {\n    got('b');\n});\n"
    ),
    "pkg/more.py": "from pkg.sympify import sympify as S\n\n\ndef g():\n    return S(1)\n",
    "pkg/types.py": (
        "import typing\n\nfrom .ops import Add\n\n__all__ = [\"Add\", \"AddTypes\"]\n"
        "AddTypes = typing.Union[\"Add\", int]\nT = typing.TypeVar(\"T\", bound=\"Add\")\n\n\n"
        "def make(a: \"Add\") -> None:\n    d = {}\n    d[\"Add\"] = \"Add\"\n"
        "    c = typing.cast(\"Add\", d)\n    e = typing.cast(int, \"Add\")\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("refs") / "repo", FILES)


def test_aliases_are_matched_exactly_not_by_a_case_blind_suffix(live: LiveIndex):
    # before: `Add` matched the imports of `mpf_add` and `add_all`'s module (LIKE ignores
    # case, and `%\Add` escaped the `A`), so every such file was read and resolved
    assert live.store.aliases_of("Add") == []
    assert live.store.aliases_of("add_all") == []
    assert live.store.aliases_of("sympify") == [("pkg/more.py", "S")]


def test_references_through_imports_need_no_parse_of_the_importing_files(
    live: LiveIndex, monkeypatch: pytest.MonkeyPatch
):
    parsed: list[str] = []
    real = navigator.parse

    def counting(language, data):  # type: ignore[no-untyped-def]
        parsed.append(language)
        return real(language, data)

    monkeypatch.setattr(navigator, "parse", counting)
    live.navigator._trees.clear()
    answer = references_named(live, "sympify")
    got = sorted(
        (r.path, r.reference.start_line, r.reference.name) for r in answer.resolved if r.path != "pkg/shadow.py"
    )
    # the module part of `from .sympify import sympify` is the module, not the function
    assert got == [
        ("pkg/more.py", 0, "S"),
        ("pkg/more.py", 0, "sympify"),
        ("pkg/more.py", 4, "S"),
        ("pkg/ops.py", 0, "sympify"),
        ("pkg/ops.py", 10, "sympify"),
        ("pkg/sympify.py", 5, "sympify"),
    ]
    # only the defining file (its own uses are not imports) and the one file whose
    # parameter may shadow the import are parsed
    assert len(parsed) == 2


def test_names_in_all_and_string_annotations_are_references(live: LiveIndex):
    # before: `__all__` entries, `Union["Add", int]`, `bound="Add"`, `a: "Add"` and
    # `cast("Add", d)` were text; a dictionary key, a printed string or the value given
    # to `cast` still is
    got = sorted(
        (r.reference.start_line, r.reference.start_character)
        for r in references_named(live, "pkg.ops.Add").resolved
        if r.path == "pkg/types.py"
    )
    lines = FILES["pkg/types.py"].splitlines()
    want = sorted(
        [(2, lines[2].index("Add"))]
        + [(n, lines[n].index('"Add"') + 1) for n in (4, 5, 6, 9, 12)]
    )
    assert got == want
    for n in (5, 12):
        _, found = live.resolve("pkg/types.py", n, lines[n].index('"Add"') + 2)
        assert [s.symbol.qualified_name for s in found] == ["pkg.ops.Add"]


def test_a_parameter_shadowing_an_import_is_not_a_reference_of_it(live: LiveIndex):
    # before: the import map decided every bare `sympify` / `got` of the file, the
    # parameters of `h(sympify)` and `async (t, got) =>` included
    py = {(r.path, r.reference.start_line) for r in references_named(live, "pkg.sympify.sympify").resolved}
    assert ("pkg/shadow.py", 8) in py and ("pkg/shadow.py", 4) not in py
    ts = {(r.path, r.reference.start_line) for r in references_named(live, "got").resolved}
    assert ("web/use.ts", 2) in ts and ("web/use.ts", 4) not in ts


def test_parsed_files_are_kept_by_count_and_by_source_size(live: LiveIndex, monkeypatch: pytest.MonkeyPatch):
    # many small files stay parsed between requests (hono's tests: a few KB each, more
    # than 32 of them per resolve run), but the kept source never exceeds the budget
    monkeypatch.setattr(navigator, "_TREE_CACHE_BYTES", 1)
    live.navigator._trees.clear()
    for rel in ("pkg/more.py", "pkg/shadow.py"):
        assert live.navigator.document(rel) is not None
    assert list(live.navigator._trees) == ["pkg/shadow.py"]
    monkeypatch.setattr(navigator, "_TREE_CACHE_BYTES", 10_000_000)
    live.navigator.document("pkg/more.py")
    assert list(live.navigator._trees) == ["pkg/shadow.py", "pkg/more.py"]
    assert navigator._TREE_CACHE > 32
