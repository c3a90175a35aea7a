"""Chunk BM25 sees the words of its file's path: a handler named only by its directory
(Next.js `app/api/websites/[websiteId]/export/route.ts`, Django `accounts/views.py`) is
found by them, and a store written before that is upgraded in place when it opens."""

from __future__ import annotations

import sqlite3

from code_intel.indexing.lexical import SCHEMA_VERSION, LexicalIndex, path_text
from code_intel.indexing.sync import sync_workspace
from code_intel.indexing.workspace import Workspace

ROUTE = "src/app/api/websites/[websiteId]/export/route.ts"


def test_path_words_are_directories_and_the_name_without_its_extension():
    assert path_text(ROUTE) == "src app api websites websiteid website id export route"
    assert path_text("hc/accounts/views.py") == "hc accounts views"
    assert path_text("Makefile") == "makefile"


def _workspace(fixture_copy) -> Workspace:
    root = fixture_copy("python_pkg")
    (root / ROUTE).parent.mkdir(parents=True)
    (root / ROUTE).write_text(
        "export async function GET(request: Request) {\n"
        "  const rows = await loadRows(request);\n  return zipResponse(rows);\n}\n"
    )
    (root / "src/lib/zip.ts").parent.mkdir(parents=True, exist_ok=True)
    (root / "src/lib/zip.ts").write_text(
        "export function zipResponse(rows: string[]) {\n  return new Response(rows.join('\\n'));\n}\n"
    )
    ws = Workspace.open(root)
    sync_workspace(ws.root, ws.store, ws.config)
    return ws


def test_a_handler_named_by_its_directory_is_found_by_the_path_words(fixture_copy):
    ws = _workspace(fixture_copy)
    lexical = LexicalIndex.for_workspace(ws.root)
    lexical.sync(ws.store)
    hits = lexical.search_chunks("export the website's data")
    assert hits and hits[0].path == ROUTE, [(h.path, h.matched_terms) for h in hits]
    assert {"export", "website"} <= set(hits[0].matched_terms)


def _downgrade_to_version_1(path) -> None:  # type: ignore[no-untyped-def]
    """The chunk table as version 1 wrote it: names and text, no path words."""
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE VIRTUAL TABLE old USING fts5(name, body, tokenize = 'porter unicode61 remove_diacritics 2');"
        "INSERT INTO old(rowid, name, body) SELECT rowid, name, body FROM chunk_fts;"
        "DROP TABLE chunk_fts; ALTER TABLE old RENAME TO chunk_fts;"
        "UPDATE meta SET value = '1' WHERE key = 'schema_version';"
    )
    conn.commit()
    conn.close()


def test_a_version_1_store_gains_path_words_in_place_without_a_rebuild(fixture_copy):
    ws = _workspace(fixture_copy)
    lexical = LexicalIndex.for_workspace(ws.root)
    lexical.sync(ws.store)
    before = lexical.stats()
    path = lexical.path
    lexical.close()
    _downgrade_to_version_1(path)

    reopened = LexicalIndex(path)
    version = reopened.conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0]
    assert int(version) == SCHEMA_VERSION == 2
    # every row is still there, and nothing needs indexing again
    assert reopened.stats() == before
    assert reopened.pending(ws.store) == ([], [])
    hits = reopened.search_chunks("export the website's data")
    assert hits and hits[0].path == ROUTE
    # a second open finds nothing to upgrade
    reopened.close()
    assert LexicalIndex(path).stats() == before
