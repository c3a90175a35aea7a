"""Rows of the local Chroma store read from its own SQLite: which vector ids the forest
holds for some chunk ids, and the metadata of the vectors a query found.

Why the ids: a query reads the stored vectors of the candidates the other signals found.
Chroma answers `get(where={"chunk_id": {"$in": ids}})` by testing every row of the
collection against the list (sympy, 43,673 vectors: 8 ms for the filter alone, 19 ms
CPU with the vectors and metadata), while `get(ids=...)` finds its rows through a
unique index (5 ms with the vectors). The vector ids are hashes of each chunk's embedded
text, and rebuilding that text costs more than the filter (0.3 ms a chunk). Chroma's
table of metadata values (`embedding_metadata`) has an index on (key, value), so the
same rows the filter finds are found here in a quarter of a millisecond, read-only.

Why the metadata: Chroma's nearest-neighbour query with `include=["metadatas"]` cost
about 4 ms CPU more than with distances alone (sympy, 50 hits), and the same values are
read here, from the table Chroma reads them from, in about 1.3 ms.

Chroma's schema is its own (chromadb is pinned, 1.5.9): any error reading it, an HTTP
store, or a client handed in (tests) answer None, and the caller asks Chroma.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

SQLITE_FILE = "chroma.sqlite3"
#: SQLite's variable limit is far above this; reads are split to stay well inside it
MAX_IDS_PER_READ = 500


class ChromaRows:
    """Reads of one persistent store's SQLite; thread-safe (one read at a time)."""

    def __init__(self, store_path: Path | None) -> None:
        self._path = store_path / SQLITE_FILE if store_path is not None else None
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._segments: dict[str, str] = {}  # collection id → its metadata segment's id
        self._broken = self._path is None

    @property
    def readable(self) -> bool:
        """Whether reads are tried at all (a local store not yet found unreadable)."""
        return not self._broken

    def vector_ids(self, collection_id: str, chunk_ids: Sequence[str]) -> list[tuple[str, str]] | None:
        """(chunk id, vector id) of every vector of the collection whose metadata names one
        of `chunk_ids` (what the `$in` filter would find), or None when the store cannot be
        read this way."""
        return self._read(collection_id, list(dict.fromkeys(chunk_ids)),
                          "SELECT m.string_value, e.embedding_id FROM embedding_metadata m "
                          "JOIN embeddings e ON e.id = m.id WHERE m.key = 'chunk_id' "
                          "AND m.string_value IN ({}) AND e.segment_id = ?")

    def metadatas(self, collection_id: str, vector_ids: Sequence[str]) -> dict[str, dict[str, Any]] | None:
        """The metadata of each of these vectors that the collection holds, by vector id, as
        Chroma returns it (each key's one non-null value: text, integer, float or bool), or
        None when the store cannot be read this way."""
        rows = self._read(collection_id, list(dict.fromkeys(vector_ids)),
                          "SELECT e.embedding_id, m.key, m.string_value, m.int_value, m.float_value, "
                          "m.bool_value FROM embeddings e JOIN embedding_metadata m ON m.id = e.id "
                          "WHERE e.embedding_id IN ({}) AND e.segment_id = ?")
        if rows is None:
            return None
        out: dict[str, dict[str, Any]] = {}
        for vid, key, text, integer, real, flag in rows:
            value = (text if text is not None else integer if integer is not None
                     else real if real is not None else None if flag is None else bool(flag))
            out.setdefault(vid, {})[key] = value
        return out

    def _read(self, collection_id: str, keys: list[str], sql: str) -> list[Any] | None:
        """`sql`'s rows for the keys (its `IN ({})`, read in parts) within the collection's
        metadata segment (its last parameter); None when the store cannot be read."""
        if self._broken:
            return None
        with self._lock:
            try:
                conn = self._connection()
                segment = self._segments.get(collection_id)
                if segment is None:
                    row = conn.execute("SELECT id FROM segments WHERE collection = ? AND scope = 'METADATA'",
                                       (collection_id,)).fetchone()
                    if row is None:
                        return None
                    segment = self._segments[collection_id] = str(row[0])
                out: list[Any] = []
                for i in range(0, len(keys), MAX_IDS_PER_READ):
                    part = keys[i : i + MAX_IDS_PER_READ]
                    out += conn.execute(sql.format(",".join("?" * len(part))), (*part, segment)).fetchall()
                return out
            except sqlite3.Error as exc:
                log.info("rows not read from %s (%s); Chroma answers instead", self._path, exc)
                self._broken = True
                self._close()
                return None

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            assert self._path is not None
            self._conn = sqlite3.connect(f"{self._path.as_uri()}?mode=ro", uri=True, timeout=30,
                                         check_same_thread=False)
        return self._conn

    def close(self) -> None:
        with self._lock:
            self._close()

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
