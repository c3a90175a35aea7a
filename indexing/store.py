"""The persistent index: SQLite at `.code-intel/index.db`.

Every file's rows (file record, chunks, symbols, references, imports) are replaced in
the same transaction as its fingerprint, so a sync killed at any point leaves each file
either fully old or fully new and never records progress that did not happen. A store
of another schema version, or a file that is not a database, is moved aside and
rebuilt with a message instead of a traceback.

A first build in a process of one thread (`code-intel index`) writes into a side file
without WAL's second copy and renames it into place at the end (see
`IndexStore.bulk_load`); a side file a killed build left is discarded when the store is
next opened, and the index is built again: it holds nothing that is not derived from
the files.
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import os
import re
import sqlite3
import sys
import threading
import time
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

try:
    import fcntl
except ImportError:  # not POSIX: a first build is copied into place, never renamed
    fcntl = None  # type: ignore[assignment]

from .chunk_metadata import StoredMetadata, joined
from .model import (
    REFERENCE_CONTAINER_SEP,
    Chunk,
    FileAnalysis,
    PackedReferences,
    Position,
    Range,
    Reference,
    Symbol,
    SymbolKind,
)
from .private import FILE_MODE, in_cache, private_dir, store_dir, tighten
from .processes import pid_alive
from .rowwriter import open_writer

log = logging.getLogger(__name__)

SCHEMA_VERSION = 13  # 2: Python `self.x` fields, module names under if/try, nested imports;
# 3: PHP docblock type references and @method/@property members, Python `__all__`/string-type references
# 4: a JS/TS `src/index.ts` / `lib/index.ts` is the module `src` / `lib` (what `from "../lib"` names);
#    Python `cls.x = …` in a classmethod is a field like `self.x = …`
# 5: references packed into one row per (file, name), see `pack_references`
# 6: TS files with generic call signatures on their own lines parse (repair_generic_signatures);
#    `from 'src/lib/x'` (tsconfig baseUrl) is the project module `lib.x`; a TS class header
#    longer than a signature keeps its bases (type parameters shortened to `<…>`)
# 7: Python `self.x` of a class re-bound after its body
#    (`Converter = _add_repr(Converter)`) is a field of the class; PHP docblock shapes across lines
# 8: a decorated JS/TS declaration's signature starts after its decorators (`@ValidateNested()`
#    above `mySubClasses: MySubClass[]` was the whole signature of the field)
# 9: the Python string given to `cast` as its type (`cast("Constraints", value)`) names a class;
#    JS/TS names linked from doc comments (`{@link Task}`) are references
# 10: a file's reference containers are stored once, in `files.ref_containers`; the refs
#     rows' container numbers index that list; positions as int16 where they fit (see
#     `pack_references`)
# 11: a definition chunk's metadata keeps only what its symbol row does not hold, and the row's
#     ordinal in `chunks.symbol` (see `chunk_metadata`)
# 12: `files.ref_count`, the file's references (the sum of its refs rows' `n`), for `stats`
# 13: the chunk ids' key is the unique index `chunks_id`, not the table's PRIMARY KEY (an
#     autoindex, which a first build could not create after its rows: see _LATE_INDEXES)
DB_FILE = "index.db"
PAGE_SIZE = 16384
#: ids per `IN (…)` read: well under SQLite's bound on host parameters
_MAX_SQL_VARIABLES = 500

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY,
    language TEXT,
    fingerprint TEXT,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    indexed_at REAL NOT NULL,
    skip_reason TEXT,
    syntax_errors INTEGER NOT NULL DEFAULT 0,
    notes TEXT,
    -- the containers of the file's references, joined by US (see pack_references)
    ref_containers TEXT,
    -- how many references the file has (its refs rows' `n` summed): the store's total
    -- is a sum over files, not a scan of every refs row (sympy: 47 ms after each index)
    ref_count INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS chunks (
    id TEXT NOT NULL,  -- unique: `chunks_id` in _LATE_INDEXES
    path TEXT NOT NULL,
    language TEXT NOT NULL,
    symbol_name TEXT NOT NULL,
    symbol_type TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    content TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    metadata TEXT NOT NULL,  -- without what the symbol row `symbol` holds (see chunk_metadata)
    -- that row: `symbol`-th of the file's symbol rows (they are numbered consecutively,
    -- in order, by the one INSERT of the file's rows); NULL when metadata holds everything
    symbol INTEGER
);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks(path);
CREATE TABLE IF NOT EXISTS symbols (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL,
    language TEXT NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    container TEXT,
    sl INTEGER, sc INTEGER, el INTEGER, ec INTEGER,
    nsl INTEGER, nsc INTEGER, nel INTEGER, nec INTEGER,
    signature TEXT,
    doc TEXT
);
-- the name indexes (and the chunk ids' key) are in _LATE_INDEXES (see IndexStore.bulk_load)
CREATE INDEX IF NOT EXISTS symbols_path ON symbols(path);
-- one row per (file, name): `n` occurrences packed into `positions` (see pack_references)
CREATE TABLE IF NOT EXISTS refs (
    path TEXT NOT NULL,
    name TEXT NOT NULL,
    n INTEGER NOT NULL,
    positions BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS refs_path ON refs(path);
CREATE TABLE IF NOT EXISTS imports (path TEXT NOT NULL, alias TEXT NOT NULL, target TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS imports_path ON imports(path);
"""
#: Indexes whose keys arrive in random order (names, chunk ids: SHA-1s), so a first build
#: creates them once after the load (one sort each) instead of updating them row by row.
#: The path indexes stay: the writes' per-path deletes use them. The chunk ids' key was
#: the table's PRIMARY KEY, kept up to date row by row: the parent's copy of sympy's rows
#: and its late indexes (replayed, 7 alternating rounds) 0.66 -> 0.57 s CPU, the chunks'
#: copy 0.19 -> 0.08 s for a sort of 0.03 s.
_LATE_INDEXES = {
    # a chunk's id is unique (`FileRows` numbers repeats within a file); the lookups by id
    # (`chunks_by_id`) use it
    "chunks_id": "CREATE UNIQUE INDEX IF NOT EXISTS chunks_id ON chunks(id)",
    "symbols_name": "CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name COLLATE NOCASE)",
    # exact lookups (`name = ?`) compare with BINARY and cannot use the NOCASE index
    "symbols_name_exact": "CREATE INDEX IF NOT EXISTS symbols_name_exact ON symbols(name)",
    "symbols_qname": "CREATE INDEX IF NOT EXISTS symbols_qname ON symbols(qualified_name)",
    "refs_name": "CREATE INDEX IF NOT EXISTS refs_name ON refs(name)",
}
_SCHEMA_LOAD = _SCHEMA  # a first build's side file: the late indexes come after its rows
_SCHEMA += "".join(f"{ddl};\n" for ddl in _LATE_INDEXES.values())
#: A first build's side file is `index.db` + this + the building process's id.
SIDE_SUFFIX = ".build-"
#: ... and each of its forked workers writes its files' rows into the side file's name
#: + this + the worker's id (see `RowsFile`).
ROWS_SUFFIX = "-rows-"
#: A worker's rows file: the store's tables in the same column order (the same
#: statements write them), without an index or a unique key: rows are only appended,
#: and read back once, by rowid ranges.
_ROWS_SCHEMA = re.sub(r"TEXT PRIMARY KEY", "TEXT", re.sub(r"CREATE INDEX[^;]*;\n", "", _SCHEMA_LOAD))
#: A rows file's connection: pages of the store's size, WAL without checkpoints (see
#: `RowsFile`), no syncs (a killed build's rows file is discarded).
_ROWS_SETUP = (f"PRAGMA page_size={PAGE_SIZE}; PRAGMA journal_mode=WAL; "
               "PRAGMA wal_autocheckpoint=0; PRAGMA synchronous=OFF;\n")
_ROW_TABLES = ("files", "chunks", "symbols", "refs", "imports")
#: `index.db` + this: the lock that keeps a connection from opening the store while a
#: first build's file is renamed over it (see `IndexStore._open_lock`).
LOCK_SUFFIX = ".lock"


def _nothing() -> None:
    """What `IndexStore.bulk_load` gives when the store keeps its indexes throughout."""


class StoreError(RuntimeError):
    """The index cannot be opened or read; the message says what to do."""


@dataclass(frozen=True, slots=True)
class FileState:
    path: str
    language: str | None
    fingerprint: str | None
    size: int
    mtime_ns: int
    skip_reason: str | None


@dataclass(frozen=True, slots=True)
class StoredSymbol:
    path: str
    language: str
    symbol: Symbol


@dataclass(frozen=True, slots=True)
class StoredReference:
    path: str
    reference: Reference


@dataclass(frozen=True, slots=True)
class ChunkSpan:
    """A chunk's place and name without its text: what ranking needs to place a hit
    (reading every chunk's text and metadata of a large file cost more than the rest)."""

    path: str
    symbol_name: str
    symbol_type: str
    start_line: int
    end_line: int
    qualified_name: str  # "" when the chunker gave none


#: A chunk's symbol row, joined in the statement that reads the chunk (one snapshot: a
#: sync committing between two reads could renumber the file's symbols): the file's
#: first symbol id plus the chunk's ordinal. No row when `symbol` is NULL.
#: (`ORDER BY … LIMIT 1` reads one entry of `symbols_path`; `MIN` read all the file's.)
_CHUNK_SYMBOL = ("LEFT JOIN symbols s ON s.id = c.symbol + "
                 "(SELECT f.id FROM symbols f WHERE f.path = c.path ORDER BY f.id LIMIT 1)")
#: A chunk's fields and then `chunk_metadata.joined`'s arguments.
_CHUNK_COLUMNS = ("c.path, c.language, c.symbol_name, c.symbol_type, c.start_line, c.end_line, c.content, "
                  "c.metadata, s.qualified_name, s.signature, s.doc, s.container")


def _metadata_encoder() -> Callable[[dict[str, Any]], str]:
    """`json.dumps(m, ensure_ascii=False, default=str)`, the same text, for every chunk's
    metadata. `dumps` builds an encoder per call that passes options, and even a kept
    `JSONEncoder.encode` builds the C encoder and a circular-reference table per call:
    the C encoder is built once here, without that table (metadata is plain dicts and
    lists the chunkers build; a cycle would raise RecursionError instead of ValueError).
    On Laravel's `src/`, 19,199 chunks: 53 -> 39 ms. Python's own encoder where the C
    one is missing."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return json.JSONEncoder(ensure_ascii=False, default=str).encode
    # (markers, default, encoder, indent, key_separator, item_separator, sort_keys,
    #  skipkeys, allow_nan): what JSONEncoder(ensure_ascii=False, default=str) passes
    iterencode = make(None, str, json.encoder.encode_basestring, None, ": ", ", ", False, False, True)
    return lambda metadata: "".join(iterencode(metadata, 0))


_metadata_json = _metadata_encoder()


@dataclass(frozen=True, slots=True)
class FileRows:
    """A file's analysis flattened into the store's rows.

    Built in the parser processes: plain tuples cross the process boundary an order
    of magnitude faster than the dataclasses they come from.
    """

    language: str
    syntax_errors: int
    notes: str | None
    chunks: list[tuple]
    symbols: list[tuple]
    refs: list[tuple]  # packed, one per (file, name): see `pack_references`
    ref_containers: str  # the containers `refs` number, joined: see `pack_references`
    imports: list[tuple]

    @classmethod
    def from_analysis(cls, path: str, a: FileAnalysis) -> FileRows:
        chunk_rows = []
        seen: set[str] = set()
        encode = StoredMetadata(a.symbols, _metadata_json).encode
        for c in a.chunks:
            cid = c.id
            n = 1
            while cid in seen:  # two chunks at the same line with the same name
                n += 1
                cid = f"{c.id}#{n}"
            seen.add(cid)
            symbol, metadata = encode(c.metadata)
            chunk_rows.append(
                (
                    cid, path, c.language, c.symbol_name, c.symbol_type, c.start_line,
                    c.end_line, c.content, c.fingerprint, metadata, symbol,
                )
            )
        symbol_rows = [
            (
                path, a.language, s.name, s.kind._value_, s.qualified_name, s.container,
                s.range.start.line, s.range.start.character,
                s.range.end.line, s.range.end.character,
                s.selection_range.start.line, s.selection_range.start.character,
                s.selection_range.end.line, s.selection_range.end.character,
                s.signature, s.doc,
            )
            for s in a.symbols
        ]
        refs, ref_containers = _packed_rows(path, a)
        return cls(
            language=a.language,
            syntax_errors=a.syntax_errors,
            notes="\n".join(a.notes) or None,
            chunks=chunk_rows,
            symbols=symbol_rows,
            refs=refs,
            ref_containers=ref_containers,
            imports=[(path, alias, target) for alias, target in a.imports.items()],
        )


def _packed_rows(path: str, a: FileAnalysis) -> PackedReferences:
    """The file's reference rows and containers: as the analysis packed them (the
    index's sync), else packed from its references."""
    packed = a.packed_references
    if packed is None:
        return pack_references(path, a.references)
    rows, containers = packed
    return packed if a.path == path else ([(path, *row[1:]) for row in rows], containers)


@dataclass(frozen=True, slots=True)
class IndexedFile:
    """One file's new content, ready to be written."""

    path: str
    fingerprint: str
    size: int
    mtime_ns: int
    rows: FileRows


@dataclass(frozen=True, slots=True)
class RowSpan:
    """Where one file's rows are in a worker's rows file: for each of `_ROW_TABLES`,
    the first rowid and how many. What a first build's worker sends its parent
    instead of the rows themselves."""

    source: str  # the rows file
    path: str
    first: tuple[int, ...]
    count: tuple[int, ...]


class RowsFile:
    """A first build's worker writes its files' rows here, the store's parent copies
    them into the side file with `INSERT … SELECT` (`IndexStore.copy_rows`): the rows
    are bound once, in the worker, instead of pickled there, unpickled in the parent
    and bound again.

    The rows are bound through SQLite's C API where the compiled writer runs (see
    `rowwriter`: on sympy it halved the worker's writing), else through `sqlite3`; the
    file holds the same rows either way.

    WAL without checkpoints: the parent reads a committed batch while the worker writes
    the next one, and no page is written twice. Never closed: a worker ends with
    `os._exit`, and a close would checkpoint the WAL into the file for nothing; the
    parent removes the file (`IndexStore.bulk_load`), and the next open of a killed
    build's store does (`IndexStore._discard_unfinished_builds`)."""

    def __init__(self, path: str) -> None:
        self.path = path
        _remove_db_files(Path(path))  # a stale one of a reused process id
        # written through SQLite's C API where the compiled writer runs (see `rowwriter`)
        self._native = open_writer(path, _ROWS_SETUP + _ROWS_SCHEMA, _INSERTS)
        self._conn: sqlite3.Connection | None = None
        if self._native is None:
            self._conn = sqlite3.connect(path, isolation_level=None)
            self._conn.executescript(_ROWS_SETUP + _ROWS_SCHEMA)
        os.chmod(path, FILE_MODE)
        self._next = [1] * len(_ROW_TABLES)  # rowids of tables only ever appended to

    def write(self, files: list[IndexedFile]) -> list[RowSpan]:
        """Append these files' rows in one transaction; where each file's rows are."""
        if self._native is not None:
            self._native(_table_rows(files))
        else:
            conn = self._conn
            conn.execute("BEGIN")
            try:
                _insert_files(conn, files)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        spans = []
        for f in files:
            r = f.rows
            count = (1, len(r.chunks), len(r.symbols), len(r.refs), len(r.imports))
            spans.append(RowSpan(self.path, f.path, tuple(self._next), count))
            self._next = [n + c for n, c in zip(self._next, count, strict=True)]
        return spans


def _runs(spans: list[RowSpan]) -> list[tuple[str, list[int], list[int]]]:
    """(source, first rowids, counts) of consecutive spans that follow each other in one
    rows file, merged: one `INSERT … SELECT` per table and run."""
    runs: list[tuple[str, list[int], list[int]]] = []
    for span in spans:
        if runs:
            source, first, count = runs[-1]
            if source == span.source and all(
                f + c == g for f, c, g in zip(first, count, span.first, strict=True)
            ):
                runs[-1] = (source, first, [c + d for c, d in zip(count, span.count, strict=True)])
                continue
        runs.append((span.source, list(span.first), list(span.count)))
    return runs


def db_path(root: Path) -> Path:
    return store_dir(root) / DB_FILE


class IndexStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.messages: list[str] = []
        self._local = threading.local()
        self._write_lock = threading.Lock()
        tighten(private_dir(path.parent))
        self._discard_unfinished_builds()
        self._open_or_rebuild()

    @classmethod
    def for_workspace(cls, root: Path) -> IndexStore:
        store = cls(db_path(root))
        if in_cache(store.path.parent, root):
            store.messages.append(
                f"{root} is not writable by you (a read-only or another user's checkout): "
                f"its index is kept in {store.path.parent}"
            )
        return store

    # ---- connection management ----------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        with self._open_lock(exclusive=False):
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            # A new store's page size (an existing file keeps its own): its rows average
            # 1-1.5 KB, and with 4 KB pages writing them went through four times as many WAL
            # frames, pwrite calls and page splits. Laravel's `src/` (54 MB of rows):
            # 0.36 -> 0.27 s CPU to write, system time 0.12 -> 0.04 s.
            conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
            conn.execute("PRAGMA journal_mode=WAL")  # from here on the connection holds the file
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=OFF")
        return conn

    @contextmanager
    def _open_lock(self, exclusive: bool) -> Iterator[None]:
        """Shared around opening a connection (until it holds the file in WAL mode),
        exclusive around a first build's rename. A connection that opened the old file
        just before the rename, and only then set up its WAL, would put that WAL next to
        the new file under the same name: SQLite would read the old file's pages as the
        new one's. With the lock, a connection either holds the old file before the
        rename is decided (which then copies instead) or opens the new one."""
        if fcntl is None:
            yield
            return
        fd = os.open(f"{self.path}{LOCK_SUFFIX}", os.O_RDWR | os.O_CREAT, FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            yield
        finally:
            os.close(fd)  # releases the lock

    @property
    def conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = self._connect()
        return conn

    def _open_or_rebuild(self) -> None:
        existed = self.path.exists() and self.path.stat().st_size > 0
        try:
            conn = self._connect()
            version = None
            if existed:
                check = conn.execute("PRAGMA quick_check(1)").fetchone()  # garbage pages: rebuild now,
                if check is None or check[0] != "ok":  # not a traceback mid-request
                    raise sqlite3.DatabaseError(f"integrity check failed: {check[0] if check else '?'}")
                has_meta = conn.execute(
                    "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'"
                ).fetchone()
                if has_meta:
                    row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
                    version = int(row[0]) if row else None
            if existed and version != SCHEMA_VERSION:
                conn.close()
                self._move_aside(
                    f"index schema version {version} does not match {SCHEMA_VERSION}"
                )
                conn = self._connect()
            conn.executescript(_SCHEMA)
            conn.execute(
                "INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
            )
        except sqlite3.DatabaseError as exc:
            self._move_aside(f"index file is corrupt ({exc})")
            conn = self._connect()
            conn.executescript(_SCHEMA)
            conn.execute(
                "INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
            )
        self._local.conn = conn
        self._local.stats = None

    def _discard_unfinished_builds(self) -> None:
        """Remove the side files of first builds whose process is gone (killed before it
        could rename its file into place): the store they were meant to replace still
        has no indexed file, so the next sync builds it again from the files."""
        for side in self.path.parent.glob(f"{self.path.name}{SIDE_SUFFIX}*"):
            pid = side.name[len(self.path.name) + len(SIDE_SUFFIX):].split("-", 1)[0]
            if not pid.isdigit() or pid_alive(int(pid)):
                continue
            _remove_quietly(side)
            if side.name.endswith(("-journal", "-wal", "-shm")) or ROWS_SUFFIX in side.name:
                continue  # said once, for the side file itself
            msg = (f"a first build that did not finish (process {pid}) left {side.name}; "
                   "discarded it, and the next sync indexes the workspace again")
            log.warning(msg)
            self.messages.append(msg)

    def _move_aside(self, why: str) -> None:
        aside = self.path.with_name(f"{self.path.name}.broken-{int(time.time())}")
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(self.path) + suffix)
            if src.exists():
                src.replace(Path(str(aside) + suffix))
        msg = f"{why}; moved it to {aside.name} and rebuilding the index from scratch"
        log.warning(msg)
        self.messages.append(msg)

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
            self._local.stats = None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self._write_lock:
            conn = self.conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    @contextmanager
    def _snapshot(self) -> Iterator[sqlite3.Connection]:
        """Reads that must agree, in one read transaction: a file's reference rows and
        its containers come from two statements, and a sync committing between them
        would number the rows into another version's list."""
        conn = self.conn
        if conn.in_transaction:
            yield conn
            return
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            conn.execute("COMMIT")

    # ---- writes -----------------------------------------------------------------

    def write_files(self, files: Iterable[IndexedFile]) -> None:
        """Replace these files' rows: one statement per table for the whole batch (rows
        keep the batch's order, so ids are those of a file-by-file write); a path given
        twice keeps its last version."""
        latest: dict[str, IndexedFile] = {}
        for f in files:
            latest.pop(f.path, None)  # where its last version stands
            latest[f.path] = f
        with self.transaction() as conn:
            _delete_paths(conn, list(latest))
            _insert_files(conn, list(latest.values()))

    @contextmanager
    def bulk_load(self) -> Iterator[Callable[[], None]]:
        """Around a first build (the store holds no indexed file yet) in a process of one
        thread (`code-intel index`): this thread's writes and reads go to a side file,
        `index.db.build-<pid>`, with its journal in memory and no syncs, and without the
        late indexes (names, chunk ids: `_LATE_INDEXES`); at the end (also when the build
        fails: what was committed is kept) they are built, the file is switched to WAL,
        synced once and renamed over `index.db`. WAL wrote every page twice (to the log,
        then back at each checkpoint), with a sync per checkpoint: sympy's rows, 5
        alternating rounds, 0.83 -> 0.67 s CPU, 1.00 -> 0.69 s wall. A kill leaves the
        side file, which the next open discards (the index is rebuilt); other processes
        see the store as it was (no indexed file) until the rename. Should another
        process hold the store open at the end, its rows are copied over instead of the
        file being renamed under that process.

        The context gives a function that builds those indexes earlier: a caller whose last
        rows are still being produced elsewhere (the parser pool's last files) calls it
        then, so the sorts run beside that work instead of after it; the rows written
        afterwards update the indexes as usual. Forked workers may write their rows into
        files of their own (`rows_prefix`, `RowsFile`) for `copy_rows` to take them in;
        those files are removed here at the end."""
        empty = self.conn.execute(
            "SELECT 1 FROM files WHERE skip_reason IS NULL LIMIT 1").fetchone() is None
        if not empty:
            yield _nothing
            return
        live = self.conn
        side_path = self.path.with_name(f"{self.path.name}{SIDE_SUFFIX}{os.getpid()}")
        side = self._open_side(side_path, live)
        self._local.conn, self._local.stats = side, None
        self._local.rows_prefix, self._local.rows_attached = f"{side_path}{ROWS_SUFFIX}", {}
        built = False

        def index_names() -> None:
            nonlocal built
            if built:
                return
            built = True
            with self.transaction() as conn:
                for ddl in _LATE_INDEXES.values():
                    conn.execute(ddl)
            # most of the file is written by now: flushing it here, while the workers
            # parse the last files, leaves the sync before the rename little to wait for
            # (sympy: 80-90 ms of the tail)
            _fsync(side_path)

        try:
            yield index_names
        finally:
            removing = self._drop_rows_files()
            try:
                index_names()
                self._install(side_path, side, live)
            except BaseException:  # the store stays as it was: no indexed file
                side.close()
                _remove_db_files(side_path)
                live.close()
                self._local.conn, self._local.stats = self._connect(), None
                raise
            finally:
                if removing is not None:
                    removing()

    def rows_prefix(self) -> str | None:
        """Inside `bulk_load`: the name the forked workers' rows files start with (see
        `RowsFile`, `copy_rows`); None otherwise (rows are then written as they come)."""
        return getattr(self._local, "rows_prefix", None)

    def copy_rows(self, spans: list[RowSpan]) -> None:
        """Replace the spans' files with their rows from the workers' rows files, in the
        spans' order (rowids as `write_files` of the same files would give them):
        `INSERT … SELECT` per table and run of rows, no row passing through Python.
        Rows files are attached read-only (a read-only connection never checkpoints a
        worker's WAL), as many as SQLite allows at once; spans from more files than
        that are copied in consecutive transactions, each file's rows in one.

        `INSERT OR FAIL`: a row that fails rolls back the whole transaction anyway (see
        `transaction`), so no statement needs a journal of its own, which a plain
        INSERT (ABORT) keeps of the pages each statement changes: the parent's copy of
        sympy/core + printing, 571 -> 529 M instructions."""
        if not spans:
            return
        attached: dict[str, str] = self._local.rows_attached
        limit = max(1, self.conn.getlimit(sqlite3.SQLITE_LIMIT_ATTACHED))
        start = 0
        while start < len(spans):
            sources: set[str] = set()
            end = start
            while end < len(spans) and len(sources | {spans[end].source}) <= limit:
                sources.add(spans[end].source)
                end += 1
            self._attach_rows(sources, limit)
            group = spans[start:end]
            with self.transaction() as conn:
                _delete_paths(conn, [span.path for span in group])
                for source, first, count in _runs(group):
                    for table, lo, n in zip(_ROW_TABLES, first, count, strict=True):
                        if n:
                            columns = _INSERT_COLUMNS[table]
                            conn.execute(
                                f"INSERT OR FAIL INTO main.{table}({columns}) SELECT {columns} FROM "
                                f"{attached[source]}.{table} WHERE rowid >= ? AND rowid < ?",
                                (lo, lo + n),
                            )
            start = end

    def _attach_rows(self, sources: set[str], limit: int) -> None:
        attached: dict[str, str] = self._local.rows_attached
        if len(sources | attached.keys()) > limit:
            for source in [s for s in attached if s not in sources]:
                self.conn.execute(f"DETACH DATABASE {attached.pop(source)}")
        for source in sorted(sources - attached.keys()):
            alias = f"rows{len(attached)}"
            while alias in attached.values():
                alias += "_"
            self.conn.execute("ATTACH DATABASE ? AS " + alias, (f"file:{quote(source)}?mode=ro",))
            attached[source] = alias

    def _drop_rows_files(self) -> Callable[[], None] | None:
        """At the end of a first build: detach the workers' rows files and remove them,
        beside the install; what is returned waits for that. The kernel frees a file's
        pages in the thread that unlinks it: 15-35 ms for each of sympy's two 55-75 MB
        WALs on this machine, so each file has a thread of its own (the workers are gone:
        two cores to do it on, and no fork copies the threads); one thread removing them
        in turn left 15-100 ms of it after the install, added to the tail."""
        prefix = getattr(self._local, "rows_prefix", None)
        if prefix is None:
            return None
        attached: dict[str, str] = self._local.rows_attached
        for alias in attached.values():
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute(f"DETACH DATABASE {alias}")
        attached.clear()
        self._local.rows_prefix = None
        folder, name = os.path.split(prefix)
        removing = [threading.Thread(target=_remove_quietly, args=(path,), name="code-intel rows file",
                                     daemon=True) for path in Path(folder).glob(f"{name}*")]
        for thread in removing:
            thread.start()

        def wait() -> None:
            for thread in removing:
                thread.join()

        return wait

    def _open_side(self, side_path: Path, live: sqlite3.Connection) -> sqlite3.Connection:
        """A fresh side file holding what the store holds now (its meta and skipped
        files: no indexed file, or this would not be a first build)."""
        _remove_db_files(side_path)
        # a URI, so the workers' rows files attach read-only whatever SQLite's build
        side = sqlite3.connect(f"file:{quote(str(side_path))}", timeout=30, isolation_level=None, uri=True)
        os.chmod(side_path, FILE_MODE)
        side.execute(f"PRAGMA page_size={PAGE_SIZE}")
        # MEMORY, not OFF: a failed statement still rolls back. A crash is covered by
        # the file being a side file, not by a journal.
        side.execute("PRAGMA journal_mode=MEMORY")
        side.execute("PRAGMA synchronous=OFF")
        side.executescript(_SCHEMA_LOAD)
        with self._write_lock:
            side.execute("BEGIN")
            for table in ("meta", "files"):
                rows = live.execute(f"SELECT * FROM {table}").fetchall()
                if rows:
                    marks = ",".join("?" * len(rows[0]))
                    side.executemany(f"INSERT OR REPLACE INTO {table} VALUES ({marks})", rows)
            side.execute("COMMIT")
        return side

    def _install(self, side_path: Path, side: sqlite3.Connection, live: sqlite3.Connection) -> None:
        """Put the finished side file in the store's place: switched to WAL and synced,
        then renamed over `index.db` when no other connection has that open (leaving WAL
        needs every other connection closed, so the switch is the test, made under the
        open lock); else (or where the rename fails) its rows are copied into the store."""
        with self._write_lock:
            side.execute("PRAGMA journal_mode=WAL")
            side.close()
            _fsync(side_path)
            renamed = fcntl is not None and self._rename_over(side_path, live)
            if renamed:
                self._local.conn, self._local.stats = self._connect(), None
                return
            conn = self._local.conn = self._connect() if _closed(live) else live
            self._local.stats = None
            conn.execute("PRAGMA busy_timeout=30000")
            _copy_store(conn, side_path)
            _remove_db_files(side_path)

    def _rename_over(self, side_path: Path, live: sqlite3.Connection) -> bool:
        """Rename the side file over the store if no other connection holds it (see
        `_install`); whether it did. `live` is closed once it has left WAL.

        It leaves WAL without syncs: a checkpoint, then a header write in a journal of its
        own, each synced twice at `synchronous=NORMAL` (0.02-0.03 s of the build's tail on
        this machine, for a file replaced right after). What a crash could lose there is
        the old store's own pages, and that store holds no indexed file (a first build):
        the next open finds it empty, or broken and rebuilt (`_open_or_rebuild`)."""
        with self._open_lock(exclusive=True):
            live.execute("PRAGMA busy_timeout=0")
            live.execute("PRAGMA synchronous=OFF")
            try:
                left = live.execute("PRAGMA journal_mode=DELETE").fetchone()[0] == "delete"
            except sqlite3.OperationalError:  # locked: another connection holds the store
                left = False
            if not left:  # the rows are copied into it instead, synced as every write
                live.execute("PRAGMA synchronous=NORMAL")
                return False
            live.close()
            for suffix in ("-wal", "-shm", "-journal"):  # none after leaving WAL; never pair stale ones
                _remove_quietly(Path(f"{self.path}{suffix}"))
            try:
                os.replace(side_path, self.path)
            except OSError:
                return False
            _fsync(self.path.parent)
            return True

    def mark_skipped(self, entries: Iterable[tuple[str, str, int, int]]) -> None:
        """(path, reason, size, mtime_ns): remembered so unchanged skips are not re-read."""
        with self.transaction() as conn:
            for path, reason, size, mtime in entries:
                _delete_rows(conn, path)
                conn.execute(
                    "INSERT INTO files(path, size, mtime_ns, indexed_at, skip_reason) "
                    "VALUES (?,?,?,?,?)",
                    (path, size, mtime, time.time(), reason),
                )

    def touch(self, entries: Iterable[tuple[str, int, int]]) -> None:
        """Content unchanged (same fingerprint), only size/mtime moved."""
        with self.transaction() as conn:
            conn.executemany(
                "UPDATE files SET size=?, mtime_ns=? WHERE path=?",
                [(size, mtime, path) for path, size, mtime in entries],
            )

    def delete_files(self, paths: Iterable[str]) -> None:
        with self.transaction() as conn:
            for path in paths:
                _delete_rows(conn, path)

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as conn:
            conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # ---- reads ------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def file_states(self) -> dict[str, FileState]:
        rows = self.conn.execute(
            "SELECT path, language, fingerprint, size, mtime_ns, skip_reason FROM files"
        )
        return {r[0]: FileState(*r) for r in rows}

    def file_state(self, path: str) -> FileState | None:
        row = self.conn.execute(
            "SELECT path, language, fingerprint, size, mtime_ns, skip_reason FROM files "
            "WHERE path=?",
            (path,),
        ).fetchone()
        return FileState(*row) if row else None

    def find_definitions(
        self,
        name: str,
        exact: bool = True,
        language: str | None = None,
        limit: int = 200,
    ) -> list[StoredSymbol]:
        """By short name or qualified name; `exact=False` is a case-insensitive substring
        (of the qualified name when the query is qualified).

        A qualified query (`Class.method`, `Class::method`, `pkg.mod.Class.method`,
        `App\\Models\\Shop\\Category`) looks up its last segment and keeps the
        definitions whose qualified name ends with the whole query, whatever separators
        either side uses: an agent writes `Class.method` for PHP as readily as
        `Class::method` for Python.
        """
        if not is_qualified(name):
            return self._find_definitions(name, exact, language, limit)
        direct = self._find_definitions(name, exact, language, limit)
        if direct:  # a name that holds dots itself (`auth.login` views, `.btn`)
            return direct
        wanted = normalize_qualified(name)
        found = self._find_definitions(_short_name(name), exact, language, 100_000)
        if exact:
            matched = [s for s in found if qualified_matches(s.symbol.qualified_name, wanted)]
        else:  # a substring of the qualified name, in any notation: `LoginController::log`
            wanted = wanted.lower()
            matched = [s for s in found if wanted in normalize_qualified(s.symbol.qualified_name).lower()]
        return matched[:limit]

    def _find_definitions(
        self, name: str, exact: bool, language: str | None, limit: int
    ) -> list[StoredSymbol]:
        if exact:
            where, args = "(name = ? OR qualified_name = ?)", [name, name]
        else:
            where, args = "name LIKE ? ESCAPE '\\'", [f"%{_escape_like(name)}%"]
        if language:
            where += " AND language = ?"
            args.append(language)
        rows = self.conn.execute(
            f"SELECT {_SYMBOL_COLS} FROM symbols WHERE {where} ORDER BY path, sl LIMIT ?",
            (*args, limit),
        )
        return [_symbol_row(r) for r in rows]

    def paths_ending(self, suffixes: list[str], limit: int = 20) -> list[str]:
        """Indexed files whose path is one of `suffixes` or ends with `/` + one: where a
        module name (`pkg.cli` -> `pkg/cli.py`) lives, wherever the project root is."""
        if not suffixes:
            return []
        where = " OR ".join("path = ? OR path LIKE ? ESCAPE '\\'" for _ in suffixes)
        args: list[object] = []
        for s in suffixes:
            args += [s, "%/" + _escape_like(s)]
        rows = self.conn.execute(
            f"SELECT path FROM files WHERE skip_reason IS NULL AND ({where}) ORDER BY length(path) LIMIT ?",
            (*args, limit),
        )
        return [r[0] for r in rows]

    def symbols_in_file(self, path: str) -> list[StoredSymbol]:
        rows = self.conn.execute(
            f"SELECT {_SYMBOL_COLS} FROM symbols WHERE path=? ORDER BY sl, sc", (path,)
        )
        return [_symbol_row(r) for r in rows]

    def symbols_under(self, prefix: str, kind: str | None = None, limit: int = 5000) -> list[StoredSymbol]:
        where, args = "1=1", []
        if prefix:
            where, args = "(path = ? OR path LIKE ? ESCAPE '\\')", [prefix, _escape_like(prefix.rstrip("/")) + "/%"]
        if kind:
            where += " AND kind = ?"
            args.append(kind)
        rows = self.conn.execute(
            f"SELECT {_SYMBOL_COLS} FROM symbols WHERE {where} ORDER BY path, sl LIMIT ?",
            (*args, limit),
        )
        return [_symbol_row(r) for r in rows]

    def symbols_like(self, pattern: str, limit: int) -> list[StoredSymbol]:
        """Names matching a LIKE pattern (ASCII case-insensitive); the language server
        scores the candidates, SQLite only has to find them."""
        rows = self.conn.execute(
            f"SELECT {_SYMBOL_COLS} FROM symbols WHERE name LIKE ? ESCAPE '\\' LIMIT ?",
            (pattern, limit),
        )
        return [_symbol_row(r) for r in rows]

    def distinct_names_like(self, pattern: str) -> list[str]:
        """Every distinct symbol name matching a LIKE pattern: a scan of the name index
        alone, so a caller can score all candidates before reading any row."""
        rows = self.conn.execute(
            "SELECT DISTINCT name FROM symbols WHERE name LIKE ? ESCAPE '\\'", (pattern,)
        )
        return [r[0] for r in rows]

    def rows_named(self, names: list[str]) -> list[tuple[int, str, str, int]]:
        """(id, name, path, line) of the symbols called one of `names`."""
        if not names:
            return []
        return self.conn.execute(
            f"SELECT id, name, path, sl FROM symbols WHERE name IN ({','.join('?' * len(names))})", names
        ).fetchall()

    def symbols_by_id(self, ids: list[int]) -> dict[int, StoredSymbol]:
        if not ids:
            return {}
        rows = self.conn.execute(
            f"SELECT id, {_SYMBOL_COLS} FROM symbols WHERE id IN ({','.join('?' * len(ids))})", ids
        ).fetchall()
        return {r[0]: _symbol_row(r[1:]) for r in rows}

    def find_references(self, name: str, limit: int = 1000) -> list[StoredReference]:
        """Occurrences of `name`; a qualified name (`a.b.C`, `App\\X`) matches by its
        last segment. In (path, line, column) order, the first `limit`."""
        short = _short_name(name)
        # `$` is PHP's variable sigil (stored without it) but a letter in JS (`$el`).
        raw = _short_name(name, keep_dollar=True)
        with self._snapshot() as conn:
            rows = conn.execute(
                "SELECT path, name, n, positions FROM refs WHERE name IN (?, ?) ORDER BY path",
                (short, raw),
            )
            wanted: list[tuple[str, str, int, bytes]] = []
            count = 0
            last_path = None
            for path, ref_name, n, positions in rows:
                # rows come file by file: once `limit` are in, the file being read is
                # finished (its occurrences sort among themselves) and the rest is never
                # decoded
                if path != last_path and count >= limit:
                    break
                last_path = path
                wanted.append((path, ref_name, n, positions))
                count += n
            rows.close()
            found = self._unpacked(conn, wanted)
        found.sort(key=_reference_order)
        return found[:limit]

    def count_references(self, names: Iterable[str], at_most: int | None = None) -> dict[str, int]:
        """How many occurrences each name has, matched as `find_references` matches it,
        in one query for all of them (search ranks dozens of candidates by it). With
        `at_most`, counted only that far (min(count, at_most)): a name's first `at_most`
        rows are enough, each row being one file's occurrences (at least one), and a common
        name's thousands of rows are not read (sympy, a query's ~70 names: 5.8 → 2 ms)."""
        keys = {name: {_short_name(name), _short_name(name, keep_dollar=True)} for name in set(names)}
        wanted = sorted(set().union(*keys.values())) if keys else []
        counts: dict[str, int] = {}
        for i in range(0, len(wanted), 500):
            part = wanted[i : i + 500]
            if at_most is None:
                rows = self.conn.execute(
                    f"SELECT name, SUM(n) FROM refs WHERE name IN ({','.join('?' * len(part))}) GROUP BY name",
                    part,
                )
            else:
                rows = self.conn.execute(
                    f"WITH wanted(name) AS (VALUES {','.join(['(?)'] * len(part))}) SELECT name, "
                    "(SELECT SUM(n) FROM (SELECT n FROM refs WHERE refs.name = wanted.name LIMIT ?)) FROM wanted",
                    (*part, at_most),
                )
            counts.update((name, n) for name, n in rows if n is not None)
        found = {name: sum(counts.get(k, 0) for k in spelled) for name, spelled in keys.items()}
        return found if at_most is None else {name: min(n, at_most) for name, n in found.items()}

    def references_in_file(self, path: str) -> list[StoredReference]:
        with self._snapshot() as conn:
            found = self._unpacked(
                conn, [(path, *row) for row in conn.execute("SELECT name, n, positions FROM refs WHERE path=?", (path,))]
            )
        found.sort(key=_reference_order)
        return found

    def aliases_of(self, name: str) -> list[tuple[str, str]]:
        """(path, alias) of imports that bring a symbol called `name` in under another
        name (`use App\\Jobs\\LikeArticleJob as Like`, `import { a as b }`): its
        references there are spelled with the alias."""
        short = _short_name(name, keep_dollar=True)
        # LIKE only narrows (it ignores case); the exact last segment is checked here
        rows = self.conn.execute(
            "SELECT path, alias, target FROM imports WHERE alias != ? AND (target = ? OR target LIKE ? ESCAPE '\\' "
            "OR target LIKE ? ESCAPE '\\')",
            (short, short, "%." + _escape_like(short), "%\\\\" + _escape_like(short)),
        )
        return [
            (r[0], r[1]) for r in rows
            if r[2] == short or r[2].endswith(("." + short, "\\" + short, "/" + short))
        ]

    def references_named_in(self, name: str, paths: Iterable[str]) -> list[StoredReference]:
        """Occurrences of exactly `name` in the given files (an import alias's uses),
        without reading the files' other references."""
        wanted = set(paths)
        if not wanted:
            return []
        with self._snapshot() as conn:
            rows = conn.execute("SELECT path, name, n, positions FROM refs WHERE name = ? ORDER BY path", (name,))
            found = self._unpacked(conn, [r for r in rows if r[0] in wanted])
        found.sort(key=_reference_order)
        return found

    @staticmethod
    def _unpacked(conn: sqlite3.Connection, rows: list[tuple[str, str, int, bytes]]) -> list[StoredReference]:
        """The references of (path, name, n, positions) rows, each file's containers read
        once (a file's rows share its list); in the rows' `_snapshot`."""
        containers = _containers_of(conn, list(dict.fromkeys(row[0] for row in rows)))
        return [
            StoredReference(path, r)
            for path, ref_name, n, positions in rows
            for r in unpack_references(ref_name, n, positions, containers.get(path, _NO_CONTAINERS))
        ]

    def imports_of(self, path: str) -> dict[str, str]:
        rows = self.conn.execute("SELECT alias, target FROM imports WHERE path=?", (path,))
        return dict(rows.fetchall())

    def chunk_spans(self, path: str, line: int | None = None, name: str | None = None) -> list[ChunkSpan]:
        """A file's chunks in line order; with `line` (0-based) only those that contain it,
        and with `name` too only that symbol's. Filtered here, not by the caller: a chunk's
        metadata is stored after its text, so each row read costs its text's pages, and a
        search wants two or three chunks of a file of hundreds (sympy: 0.3 ms for a line's
        chunks of `core/tests/test_args.py`, 7 ms for all of them)."""
        sql = ("SELECT c.symbol_name, c.symbol_type, c.start_line, c.end_line, "
               "CASE WHEN c.symbol IS NULL THEN json_extract(c.metadata, '$.qualified_name') "
               f"ELSE s.qualified_name END FROM chunks c {_CHUNK_SYMBOL} WHERE c.path=?")
        args: list[object] = [path]
        if line is not None:
            sql += " AND c.start_line <= ? AND c.end_line >= ?"
            args += [line, line]
            if name is not None:
                sql += " AND c.symbol_name = ?"
                args.append(name)
        rows = self.conn.execute(sql + " ORDER BY c.start_line", args)
        return [ChunkSpan(path, r[0], r[1], r[2], r[3], str(r[4] or "")) for r in rows]

    def chunk_text(self, path: str, start_line: int, symbol_name: str) -> str | None:
        row = self.conn.execute(
            "SELECT content FROM chunks WHERE path=? AND start_line=? AND symbol_name=? ORDER BY rowid LIMIT 1",
            (path, start_line, symbol_name),
        ).fetchone()
        return row[0] if row else None

    def chunks_by_id(self, ids: Sequence[str]) -> dict[str, Chunk]:
        """id → chunk for the given chunk ids, in one read (ids no longer indexed are
        left out). Vector hits take their text from here: the vector store keeps no
        copy of it."""
        wanted = list(dict.fromkeys(ids))
        out: dict[str, Chunk] = {}
        for i in range(0, len(wanted), _MAX_SQL_VARIABLES):
            part = wanted[i : i + _MAX_SQL_VARIABLES]
            rows = self.conn.execute(
                f"SELECT c.id, {_CHUNK_COLUMNS} FROM chunks c {_CHUNK_SYMBOL} "
                f"WHERE c.id IN ({','.join('?' * len(part))})",
                part,
            )
            for r in rows:
                out[r[0]] = Chunk(r[1], r[2], r[3], r[4], r[5], r[6], r[7], joined(*r[8:]))
        return out

    def chunks_in_file(self, path: str) -> list[Chunk]:
        rows = self.conn.execute(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks c {_CHUNK_SYMBOL} WHERE c.path=? ORDER BY c.start_line",
            (path,),
        )
        return [Chunk(r[0], r[1], r[2], r[3], r[4], r[5], r[6], joined(*r[7:])) for r in rows]

    def stats(self) -> dict[str, object]:
        """Counts for status displays, which ask often: recounted only after a write by
        this connection or a commit by another (the sync's)."""
        c = self.conn
        key = (c.total_changes, c.execute("PRAGMA data_version").fetchone()[0])
        cached = getattr(self._local, "stats", None)
        if cached is None or cached[0] != key:
            self._local.stats = cached = (key, self._count())
        return copy.deepcopy(cached[1])

    def _count(self) -> dict[str, object]:
        c = self.conn
        languages = dict(
            c.execute(
                "SELECT language, COUNT(*) FROM files WHERE skip_reason IS NULL "
                "GROUP BY language ORDER BY COUNT(*) DESC"
            ).fetchall()
        )
        skipped = dict(
            c.execute(
                "SELECT skip_reason, COUNT(*) FROM files WHERE skip_reason IS NOT NULL "
                "GROUP BY skip_reason ORDER BY COUNT(*) DESC"
            ).fetchall()
        )
        return {
            "files": sum(languages.values()),
            "languages": languages,
            "chunks": c.execute("SELECT COUNT(*) FROM chunks").fetchone()[0],
            "symbols": c.execute("SELECT COUNT(*) FROM symbols").fetchone()[0],
            "references": c.execute("SELECT COALESCE(SUM(ref_count), 0) FROM files").fetchone()[0],
            "skipped": skipped,
            "syntax_error_files": c.execute(
                "SELECT COUNT(*) FROM files WHERE syntax_errors > 0"
            ).fetchone()[0],
        }


_SYMBOL_COLS = (
    "path, language, name, kind, qualified_name, container, sl, sc, el, ec, "
    "nsl, nsc, nel, nec, signature, doc"
)


def _symbol_row(r: tuple) -> StoredSymbol:
    return StoredSymbol(
        r[0],
        r[1],
        Symbol(
            name=r[2],
            kind=SymbolKind(r[3]),
            qualified_name=r[4],
            container=r[5],
            range=Range(Position(r[6], r[7]), Position(r[8], r[9])),
            selection_range=Range(Position(r[10], r[11]), Position(r[12], r[13])),
            signature=r[14],
            doc=r[15],
        ),
    )


# ---- packed references ---------------------------------------------------------------
#
# A large tree has hundreds of thousands of identifier occurrences; one row each made
# the reference rows most of the index's size and of its writing time (every row pays
# SQLite's per-row cost and two index entries, and crossed the process boundary as its
# own tuple). Lookups always want all occurrences of a name in a file at once, so they
# are stored that way: one row per (file, name) whose `positions` is little-endian
# quintuples (start line, start column, end line, end column, container number) of
# int16 where every value of the row fits (all of sympy's rows: half the bytes), else of
# int32; the width is the row's bytes over its count `n`. The
# file's distinct containers are stored once, joined with US in `files.ref_containers`
# (container number k is the k-th of them; 0 is no container): dotted qualified names
# repeated on every name's row were an eighth of sympy's store. Decoded only for the
# rows a query reads.

try:  # optional compiled helper (see native/refscan.c); the Python packing otherwise
    from ._refscan import pack as _native_pack  # type: ignore[import-not-found]
except ImportError:
    _native_pack = None

_CONTAINER_SEP = REFERENCE_CONTAINER_SEP
_SWAP = sys.byteorder != "little"
_INT16_MIN, _INT16_MAX = -(2**15), 2**15 - 1


def _reference_order(r: StoredReference) -> tuple[str, int, int]:
    return r.path, r.reference.start_line, r.reference.start_character


def pack_references(path: str, refs: Iterable[Reference]) -> PackedReferences:
    """(path, name, count, positions) rows for a file's references, in first-occurrence
    order of the names (each name's occurrences keep their order), and the file's
    containers in first-occurrence order, joined. In C (native/refscan.c) when the
    extension is built: one step per reference."""
    if _native_pack is not None and type(refs) is list:
        return _native_pack(path, refs, _CONTAINER_SEP)
    return _pack_references_py(path, refs)


def _pack_references_py(path: str, refs: Iterable[Reference]) -> PackedReferences:
    groups: dict[str, list[int]] = {}
    numbers: dict[str, int] = {}
    for name, sl, sc, el, ec, container in refs:
        ints = groups.get(name)
        if ints is None:
            ints = groups[name] = []
        if container is None:
            number = 0
        else:
            number = numbers.get(container)
            if number is None:
                number = numbers[container] = len(numbers) + 1
        ints += (sl, sc, el, ec, number)
    rows = []
    for name, ints in groups.items():
        packed = array("h" if _INT16_MIN <= min(ints) and max(ints) <= _INT16_MAX else "i", ints)
        if _SWAP:
            packed.byteswap()
        rows.append((path, name, len(ints) // 5, packed.tobytes()))
    return rows, _CONTAINER_SEP.join(numbers)


#: A file without containers (or not indexed): number 0 only.
_NO_CONTAINERS: tuple[str | None, ...] = (None,)


def _containers_of(conn: sqlite3.Connection, paths: list[str]) -> dict[str, tuple[str | None, ...]]:
    """path -> the file's reference containers, by number (`unpack_references`)."""
    found: dict[str, tuple[str | None, ...]] = {}
    for i in range(0, len(paths), _MAX_SQL_VARIABLES):
        part = paths[i : i + _MAX_SQL_VARIABLES]
        found.update(
            (path, split_containers(joined))
            for path, joined in conn.execute(
                f"SELECT path, ref_containers FROM files WHERE path IN ({','.join('?' * len(part))})", part
            )
        )
    return found


def split_containers(joined: str | None) -> tuple[str | None, ...]:
    """A file's `ref_containers` by container number (0: None), for `unpack_references`."""
    return (None, *joined.split(_CONTAINER_SEP)) if joined else _NO_CONTAINERS


def unpack_references(
    name: str, count: int, positions: bytes, containers: Sequence[str | None]
) -> list[Reference]:
    """The references of one packed row (its name, count and positions), in stored
    order; `containers`: the file's, by number (`split_containers`)."""
    ints = array("h" if len(positions) == 10 * count else "i")
    ints.frombytes(positions)
    if _SWAP:
        ints.byteswap()
    it = iter(ints)
    return [Reference(name, sl, sc, el, ec, containers[c]) for sl, sc, el, ec, c in zip(it, it, it, it, it, strict=True)]


_QUALIFIERS = ("::", "\\", ".", "#")


def is_qualified(name: str) -> bool:
    body = name.strip("\\")
    return any(sep in body for sep in _QUALIFIERS) and body not in (".", "..")


def normalize_qualified(name: str) -> str:
    """`App\\X::m`, `App.X.m`, `\\App\\X#m` -> `App.X.m` (one separator for all)."""
    for sep in ("::", "\\", "->"):
        name = name.replace(sep, ".")
    return re.sub(r"(?<=[\w$])#", ".", name).strip(".")


def qualified_matches(qualified_name: str, wanted: str) -> bool:
    """True when `qualified_name` is `wanted` or ends with it at a segment boundary
    (`wanted` already normalised); the project may sit below the workspace root, so
    `backend.shop.auth.User` answers `shop.auth.User`."""
    q = normalize_qualified(qualified_name)
    return q == wanted or q.endswith("." + wanted)


def _short_name(name: str, keep_dollar: bool = False) -> str:
    for sep in ("::", "\\", ".", "/"):
        if sep in name:
            name = name.rsplit(sep, 1)[1]
    if "#" in name[1:]:  # `Class#method`; a leading `#` is a JS private name (`#options`)
        name = name.rsplit("#", 1)[1]
    return name if keep_dollar else name.lstrip("$")


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _closed(conn: sqlite3.Connection) -> bool:
    try:
        conn.total_changes  # noqa: B018 (raises on a closed connection)
    except sqlite3.ProgrammingError:
        return True
    return False


def _remove_quietly(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def _remove_db_files(path: Path) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        _remove_quietly(Path(f"{path}{suffix}"))


def _fsync(path: Path) -> None:
    """Flush a file (or a directory's entries) to disk: a side file written without
    syncs is on disk before it is renamed into place."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


_STORE_COLUMNS = {
    "files": "path, language, fingerprint, size, mtime_ns, indexed_at, skip_reason, syntax_errors, notes, "
             "ref_containers, ref_count",
    "chunks": "*",
    "symbols": "path, language, name, kind, qualified_name, container, sl, sc, el, ec, "
               "nsl, nsc, nel, nec, signature, doc",  # new ids in this store
    "refs": "*",
    "imports": "*",
}


def _copy_store(conn: sqlite3.Connection, side_path: Path) -> None:
    """A finished side build's rows into the store, replacing the files it holds (the
    store was open elsewhere and could not be replaced)."""
    conn.execute("ATTACH DATABASE ? AS side", (str(side_path),))
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            paths = [p for (p,) in conn.execute("SELECT path FROM side.files").fetchall()]
            _delete_paths(conn, paths)
            for table, columns in _STORE_COLUMNS.items():
                into = "" if columns == "*" else f"({columns})"
                conn.execute(f"INSERT INTO main.{table}{into} SELECT {columns} FROM side.{table} ORDER BY rowid")
            conn.execute("INSERT OR REPLACE INTO main.meta SELECT * FROM side.meta")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    finally:
        conn.execute("DETACH DATABASE side")


#: The columns `copy_rows` copies: what `_insert_files` writes (the store numbers the
#: symbols itself, as it would numbering them on insert).
_INSERT_COLUMNS = {
    "files": "path, language, fingerprint, size, mtime_ns, indexed_at, syntax_errors, notes, ref_containers, "
             "ref_count",
    "chunks": "id, path, language, symbol_name, symbol_type, start_line, end_line, content, fingerprint, metadata, "
              "symbol",
    "symbols": _STORE_COLUMNS["symbols"],
    "refs": "path, name, n, positions",
    "imports": "path, alias, target",
}


def _delete_rows(conn: sqlite3.Connection, path: str) -> None:
    _delete_paths(conn, [path])


def _delete_paths(conn: sqlite3.Connection, paths: list[str]) -> None:
    keys = [(path,) for path in paths]
    for table in ("files", "chunks", "symbols", "refs", "imports"):
        conn.executemany(f"DELETE FROM {table} WHERE path=?", keys)


#: The statements that write a file's rows, one per table of `_ROW_TABLES`.
_INSERTS = (
    ("INSERT INTO files(path, language, fingerprint, size, mtime_ns, indexed_at, "
     "syntax_errors, notes, ref_containers, ref_count) VALUES (?,?,?,?,?,?,?,?,?,?)"),
    "INSERT INTO chunks VALUES (?,?,?,?,?,?,?,?,?,?,?)",
    ("INSERT INTO symbols(path, language, name, kind, qualified_name, container, "
     "sl, sc, el, ec, nsl, nsc, nel, nec, signature, doc) "
     "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"),
    "INSERT INTO refs VALUES (?,?,?,?)",
    "INSERT INTO imports VALUES (?,?,?)",
)


def _table_rows(files: list[IndexedFile]) -> tuple[list[list[tuple]], ...]:
    """For each of `_ROW_TABLES`, the files' rows: one list per file (the chunks' and the
    others' as the rows hold them; the file records in one list)."""
    now = time.time()
    rows = [f.rows for f in files]
    return (
        [[(f.path, r.language, f.fingerprint, f.size, f.mtime_ns, now, r.syntax_errors, r.notes,
           r.ref_containers, sum(ref[2] for ref in r.refs))
          for f, r in zip(files, rows, strict=True)]],
        [r.chunks for r in rows],
        [r.symbols for r in rows],
        [r.refs for r in rows],
        [r.imports for r in rows],
    )


def _insert_files(conn: sqlite3.Connection, files: list[IndexedFile]) -> None:
    for insert, groups in zip(_INSERTS, _table_rows(files), strict=True):
        conn.executemany(insert, [row for group in groups for row in group])
