"""References are stored one row per (file, name) with their positions packed, and read
back exactly as they were found: same names, positions, containers (none, empty,
non-ASCII), in position order, the first `limit` of them across files; columns
in UTF-16 units as LSP counts them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from code_intel.indexing.analyze import analyze_source
from code_intel.indexing.config import Config
from code_intel.indexing.model import Reference
from code_intel.indexing.store import (
    IndexStore,
    pack_references,
    split_containers,
    unpack_references,
)
from code_intel.indexing.sync import sync_workspace


def test_pack_then_unpack_gives_every_occurrence_back_in_order():
    refs = [
        Reference("total", 3, 4, 3, 9, "shop.Cart.add"),
        Reference("Ünïcode", 4, 0, 4, 7, None),
        Reference("total", 1, 8, 1, 13, None),
        Reference("total", 9, 2, 11, 1, "shop.Cart.add"),  # spans lines
        Reference("total", 12, 0, 12, 5, ""),
        Reference("Ünïcode", 70_000, 2**20, 70_000, 2**20 + 7, "shop.Ärger"),
    ]
    rows, joined = pack_references("a.py", refs)
    assert [(r[0], r[1], r[2]) for r in rows] == [("a.py", "total", 4), ("a.py", "Ünïcode", 2)]
    containers = split_containers(joined)
    assert containers == (None, "shop.Cart.add", "", "shop.Ärger")  # once per file
    # 2 bytes a value where the row's values fit (half the store's positions), else 4
    assert [len(r[3]) for r in rows] == [4 * 5 * 2, 2 * 5 * 4]
    back = [ref for _, name, n, positions in rows for ref in unpack_references(name, n, positions, containers)]
    assert sorted(back, key=repr) == sorted(refs, key=repr)
    assert [r for r in back if r.name == "total"] == [r for r in refs if r.name == "total"]


def test_a_file_without_references_packs_to_no_rows():
    assert pack_references("empty.py", []) == ([], "")


@pytest.fixture
def store(tmp_path: Path) -> IndexStore:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    uses = "from pkg.core import helper\n\n\ndef run():\n" + "    helper()\n" * 40
    for n in range(3):
        (root / "pkg" / f"use{n}.py").write_text(uses, encoding="utf-8")
    (root / "pkg" / "core.py").write_text("def helper():\n    return helper\n", encoding="utf-8")
    store = IndexStore.for_workspace(root)
    sync_workspace(root, store, Config())
    return store


def test_one_row_per_file_and_name_however_many_occurrences(store: IndexStore):
    rows = store.conn.execute("SELECT path, n FROM refs WHERE name='helper' ORDER BY path").fetchall()
    assert rows == [("pkg/core.py", 1), ("pkg/use0.py", 41), ("pkg/use1.py", 41), ("pkg/use2.py", 41)]
    assert store.stats()["references"] == sum(
        n for (n,) in store.conn.execute("SELECT n FROM refs").fetchall()
    )


def test_find_references_returns_the_first_limit_in_position_order(store: IndexStore):
    every = store.find_references("helper", limit=10_000)
    assert len(every) == 1 + 3 * 41
    keys = [(r.path, r.reference.start_line, r.reference.start_character) for r in every]
    assert keys == sorted(keys)
    assert {r.reference.container for r in every if r.path == "pkg/use1.py"} == {None, "pkg.use1.run"}
    first = store.find_references("pkg.core.helper", limit=45)
    assert first == every[:45]


def test_reference_counts_of_many_names_at_once_match_find_references(store: IndexStore):
    names = ["helper", "pkg.core.helper", "run", "core", "absent"]
    counts = store.count_references(names)
    assert counts == {n: len(store.find_references(n, limit=10_000)) for n in names}
    assert counts["helper"] == 1 + 3 * 41 and counts["absent"] == 0


def test_reference_counts_counted_only_so_far_are_the_counts_capped(store: IndexStore):
    names = ["helper", "pkg.core.helper", "run", "core", "absent"]
    full = store.count_references(names)
    for at_most in (1, 2, 41, 42, 43, 200):
        assert store.count_references(names, at_most) == {n: min(c, at_most) for n, c in full.items()}


def test_references_in_file_and_of_a_name_in_given_files(store: IndexStore):
    in_file = store.references_in_file("pkg/use2.py")
    assert [r.reference.start_line for r in in_file] == sorted(r.reference.start_line for r in in_file)
    assert {r.reference.name for r in in_file} >= {"helper", "pkg", "core"}
    named = store.references_named_in("helper", ["pkg/use2.py", "pkg/core.py"])
    assert {r.path for r in named} == {"pkg/use2.py", "pkg/core.py"}
    assert len(named) == 42


def test_an_index_of_the_old_format_is_rebuilt_once(tmp_path: Path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("def f():\n    return f\n", encoding="utf-8")
    store = IndexStore.for_workspace(root)
    path = store.path
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value='3' WHERE key='schema_version'")
    conn.commit()
    conn.close()
    again = IndexStore.for_workspace(root)
    assert any("schema version 3" in m for m in again.messages)
    sync_workspace(root, again, Config())
    assert [r.reference.start_line for r in again.find_references("f")] == [1]


def test_reference_columns_count_utf16_units_only_after_non_ascii_text():
    source = 'def f(a, b):\n    return g(a, "ü😀", b) + a  # ☃ h\nk = a\n'
    refs = {(r.name, r.start_line, r.start_character, r.end_character) for r in analyze_source("m.py", source.encode()).references}
    line = '    return g(a, "ü😀", b) + a  # ☃ h'
    utf16 = lambda text: len(text.encode("utf-16-le")) // 2
    b_at = utf16(line[: line.index("b)")])
    last_a = utf16(line[: line.rindex("a")])
    assert ("g", 1, 11, 12) in refs and ("a", 1, 13, 14) in refs  # left of the non-ASCII text
    assert ("b", 1, b_at, b_at + 1) in refs and ("a", 1, last_a, last_a + 1) in refs
    assert b_at == line.index("b)") + 1  # the emoji is two UTF-16 units, ü one
    assert ("a", 2, 4, 5) in refs


def test_a_container_is_stored_once_per_file_however_many_names_it_holds(tmp_path: Path):
    """The store's size: a method's qualified name is written once for its references,
    not again on the row of every name it uses (an eighth of sympy's store)."""
    root = tmp_path / "repo"
    root.mkdir()
    body = "".join(f"        name_{i}()\n" for i in range(300))
    source = f"class Container_class:\n    def method_of_it(self):\n{body}"
    (root / "a.py").write_text(source, encoding="utf-8")
    store = IndexStore.for_workspace(root)
    sync_workspace(root, store, Config())
    refs = [r for r in store.references_in_file("a.py") if r.reference.name.startswith("name_")]
    assert len(refs) == 300
    assert {r.reference.container for r in refs} == {"a.Container_class.method_of_it"}
    path = store.path
    store.close()
    stored = b"".join(p.read_bytes() for p in path.parent.iterdir() if p.name.startswith(path.name))
    assert stored.count(b"a.Container_class.method_of_it") < 10


def test_the_summarys_reference_total_follows_builds_edits_deletions_and_skips(tmp_path: Path):
    """The total `code-intel index` and `status` print is kept per file (`files.ref_count`):
    it must equal the occurrences the refs rows hold after a first build through the
    workers' rows files and after every kind of change a re-sync writes."""
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    for n in range(30):  # enough files for a first build by the parser pool
        body = "from pkg.core import helper\n\n\ndef run():\n" + "    helper()\n" * (n + 1)
        (root / "pkg" / f"use{n}.py").write_text(body, encoding="utf-8")
    (root / "pkg" / "core.py").write_text("def helper():\n    return helper\n", encoding="utf-8")
    store = IndexStore.for_workspace(root)

    def occurrences() -> int:
        return sum(n for (n,) in store.conn.execute("SELECT n FROM refs").fetchall())

    sync_workspace(root, store, Config())
    first = store.stats()["references"]
    assert first == occurrences() > 30 * 2

    (root / "pkg" / "use0.py").write_text("def run():\n" + "    print(len([]))\n" * 7, encoding="utf-8")
    (root / "pkg" / "use1.py").unlink()
    (root / "pkg" / "use2.py").write_bytes(b"\0binary now")
    report = sync_workspace(root, store, Config())
    assert report.modified == ["pkg/use0.py"] and report.deleted == ["pkg/use1.py", "pkg/use2.py"]
    assert store.stats()["references"] == occurrences() < first
