"""BM25 over chunks and files: SQLite FTS5 in `.code-intel/lexical.db`.

Why FTS5 and not bm25s: FTS5 updates one file's rows in place inside a transaction
(the same incremental, crash-safe contract as the index), ships with Python's
sqlite3, and answers a query in a few milliseconds on a 3,000-chunk repository
(`benchmarks/retrieval_eval.py` reports the figure). bm25s builds a static index
that must be rebuilt on every change and is not installed here, so it was not
measured; on ranking quality both implement Okapi BM25.

Text is prepared before FTS5 sees it: each identifier is indexed both glued and
split (`findByEmail` → `findbyemail find by email`), so a query for "find by email"
and one for "findByEmail" both match, and the porter stemmer joins "login"/"logins".
A sibling database rather than tables in `index.db`: the index is rebuilt on schema
changes, and this one can always be rebuilt from it.
"""

from __future__ import annotations

import logging
import math
import re
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any, TypeVar

from .embeddings.identifiers import IDENTIFIER, split_identifier
from .private import private_dir, store_dir
from .reader_thread import ReaderThread
from .store import IndexStore

T = TypeVar("T")

log = logging.getLogger(__name__)

DB_FILE = "lexical.db"
#: 2: chunks carry their file's path words (`path` column of chunk_fts). A version-1 store
#: is upgraded in place on open (`_add_chunk_paths`), without reading the index again.
SCHEMA_VERSION = 2
BATCH_FILES = 200
MAX_QUERY_TERMS = 32

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS lex_files (
    rowid INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    fingerprint TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS lex_chunks (
    rowid INTEGER PRIMARY KEY,
    path TEXT NOT NULL,
    symbol_name TEXT NOT NULL,
    symbol_type TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS lex_chunks_path ON lex_chunks(path);
CREATE VIRTUAL TABLE IF NOT EXISTS chunk_fts USING fts5(
    name, body, path, tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE IF NOT EXISTS file_fts USING fts5(
    path, names, body, tokenize = 'porter unicode61 remove_diacritics 2'
);
"""

# Words that carry no search intent in a question about code.
STOPWORDS = frozenset(
    ["a", "an", "the", "of", "to", "in", "on", "at", "for", "from", "by", "with", "and", "or", "not", "is", "are", "was", "were", "be", "been", "being", "it", "its", "this", "that", "these", "those", "there", "here", "where", "what", "which", "who", "whom", "whose", "why", "how", "when", "do", "does", "did", "done", "i", "we", "you", "he", "she", "they", "me", "us", "my", "our", "your", "can", "could", "should", "would", "will", "shall", "may", "might", "must", "into", "onto", "about", "over", "under", "than", "then", "so", "if", "else", "any", "all", "some", "each", "every", "no", "yes", "please", "code", "file", "files", "function", "functions", "methods", "implemented", "implementation", "handled", "happen", "happens"]
)

_WORD = re.compile(r"\w+", re.UNICODE)
#: BM25 column weights of a chunk: its names, its text, its file's path words. The path
#: says where a chunk lives (a Next.js `app/api/websites/[websiteId]/route.ts`, a Django
#: `accounts/views.py`), not what it does, and every chunk of the file shares it: its main
#: use is to make such chunks candidates at all. Chosen on set (b)'s tune data (hybrid file
#: MRR ja+en summed over laravel.io and healthchecks tune halves, linkding, umami): no path
#: column 6.380, 0.25 6.399 (none lower), 0.5 6.386 and 1.0 6.379 (healthchecks ja lower:
#: `static/js/update-timeout-modal.js` drew "update the timeout"); directory words only for
#: generic file names (route.ts, views.py) at 0.5/1.0: 6.380.
CHUNK_WEIGHTS = (4.0, 1.0, 0.25)
_CHUNK_BM25 = "bm25(chunk_fts, {})".format(", ".join(str(w) for w in CHUNK_WEIGHTS))


def lexical_text(text: str) -> str:
    """Identifiers glued and split: `AuthService.login()` → `authservice auth service login`."""

    def expand(m: re.Match[str]) -> str:
        ident = m.group(0)
        parts = split_identifier(ident)
        glued = ident.strip("_$").lower()
        if len(parts) <= 1:
            return glued or ident
        return glued + " " + " ".join(p.lower() for p in parts)

    return IDENTIFIER.sub(expand, text)


def path_text(path: str) -> str:
    """A file's directories and name without its extension, as searchable words:
    `src/app/api/websites/[websiteId]/route.ts` → `src app api websites websiteid website id
    route`."""
    stem = path.replace("\\", "/").rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    return lexical_text(" ".join(_WORD.findall(stem.replace("/", " "))))


def query_terms(text: str) -> list[str]:
    """The distinct searchable terms of a query, stopwords out, in order."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(lexical_text(text)):
        w = word.lower()
        if w in STOPWORDS or (len(w) < 2 and w.isascii()):
            continue
        seen.setdefault(w, None)
    return list(seen)[:MAX_QUERY_TERMS]


def all_query_terms(text: str) -> Counter[str]:
    """Every searchable term of a (long) request with how often it occurs."""
    counts: Counter[str] = Counter()
    for word in _WORD.findall(lexical_text(text)):
        w = word.lower()
        if w in STOPWORDS or (len(w) < 2 and w.isascii()) or w.isdigit():
            continue
        counts[w] += 1
    return counts


def rank_terms(
    counts: Counter[str],
    doc_freq: dict[str, int],
    total_docs: int,
    preferred: set[str],
    limit: int = MAX_QUERY_TERMS,
) -> list[str]:
    """The `limit` terms that say most about a long request: rare in the workspace
    (IDF), repeated in the request, or written as code (`preferred`). Terms no file
    contains are dropped; a term in most files says nothing."""
    scored = []
    for term, tf in counts.items():
        df = doc_freq.get(term, 0)
        if df == 0 or df > 0.5 * max(total_docs, 1):
            continue
        idf = math.log(1 + (total_docs - df + 0.5) / (df + 0.5))
        weight = idf * (1 + math.log(tf)) * (2.0 if term in preferred else 1.0)
        scored.append((-weight, term))
    return [t for _w, t in sorted(scored)[:limit]]


def fts_query(terms: list[str]) -> str:
    """An OR query with every term quoted (FTS5 syntax characters are data here)."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


@dataclass(frozen=True, slots=True)
class LexicalHit:
    path: str
    symbol_name: str
    symbol_type: str
    qualified_name: str
    start_line: int
    end_line: int
    score: float  # BM25, higher is better
    rank: int  # 1-based
    matched_terms: tuple[str, ...]  # () when not read (chunk_pool's with_terms)
    row: int = 0  # the chunk's row here (chunk_terms)


@dataclass(frozen=True, slots=True)
class ChunkPool:
    """Chunk BM25's best hits, and a way to the hits after them (LexicalIndex.chunk_pool)."""

    hits: list[LexicalHit]
    past: Callable[[], list[LexicalHit]]


@dataclass(frozen=True, slots=True)
class FileHit:
    path: str
    score: float
    rank: int
    matched_terms: tuple[str, ...] = ()  # () when not read (search_files' with_terms)


@dataclass
class LexicalSyncReport:
    files_indexed: int = 0
    files_deleted: int = 0
    chunks_indexed: int = 0
    elapsed: float = 0.0
    errors: list[str] = field(default_factory=list)


def _check_pages(conn: sqlite3.Connection) -> None:
    """Garbage pages surface at open, not as a traceback in the middle of a search
    (`quick_check` reads every page once: ~30 ms for a 7 MB store)."""
    row = conn.execute("PRAGMA quick_check(1)").fetchone()
    if row is None or row[0] != "ok":
        raise sqlite3.DatabaseError(f"integrity check failed: {row[0] if row else 'no answer'}")


def db_path(root: Path) -> Path:
    return store_dir(root) / DB_FILE


class LexicalIndex:
    """Chunk- and file-level BM25, kept in step with an IndexStore file by file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        private_dir(path.parent)
        self._local = threading.local()
        self._write_lock = threading.Lock()
        self._reader = ReaderThread("lexical-read", self._close_conn)
        self._open()

    @classmethod
    def for_workspace(cls, root: Path) -> LexicalIndex:
        return cls(db_path(root))

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    @property
    def conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = self._connect()
        return conn

    def _open(self) -> None:
        try:
            conn = self.conn
            _check_pages(conn)
            row = None
            has_meta = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'"
            ).fetchone()
            if has_meta:
                row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            version = int(row[0]) if row is not None else None
            if has_meta and version == 1:
                _add_chunk_paths(conn)
            elif has_meta and version != SCHEMA_VERSION:
                raise sqlite3.DatabaseError("schema version mismatch")
            conn.executescript(_SCHEMA)
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        except sqlite3.DatabaseError as exc:
            # Derived data: drop it and rebuild from the index at the next sync.
            log.warning("lexical index %s is unreadable (%s); rebuilding it from the index", self.path, exc)
            self.close()
            for suffix in ("", "-wal", "-shm"):
                Path(str(self.path) + suffix).unlink(missing_ok=True)
            conn = self.conn
            conn.executescript(_SCHEMA)
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))

    def read_beside(self, read: Callable[..., T], *args: Any) -> Future[T]:
        """`read(*args)`, one of this index's reads, on its reader thread (with that
        thread's own connection) while the caller does other work: reader_thread.py."""
        return self._reader.submit(read, *args)

    def close(self) -> None:
        """Close the calling thread's connection and the reader thread's."""
        self._reader.stop()
        self._close_conn()

    def _close_conn(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._write_lock:
            conn = self.conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    # ---- sync -------------------------------------------------------------------

    def pending(self, store: IndexStore) -> tuple[list[str], list[str]]:
        """(files to (re)index, files to drop) to match the store."""
        wanted = {
            p: s.fingerprint
            for p, s in store.file_states().items()
            if s.skip_reason is None and s.fingerprint
        }
        have = dict(self.conn.execute("SELECT path, fingerprint FROM lex_files").fetchall())
        update = [p for p, fp in wanted.items() if have.get(p) != fp]
        drop = [p for p in have if p not in wanted]
        return update, drop

    def sync(
        self,
        store: IndexStore,
        progress: Callable[[int, int], None] | None = None,
    ) -> LexicalSyncReport:
        """Index added/changed files and drop deleted ones; each file's rows and its
        fingerprint commit together, so an interrupted sync resumes where it stopped."""
        started = time.perf_counter()
        report = LexicalSyncReport()
        update, drop = self.pending(store)
        states = store.file_states()
        if drop:
            with self._transaction() as conn:
                for path in drop:
                    _delete_file(conn, path)
            report.files_deleted = len(drop)
        for i in range(0, len(update), BATCH_FILES):
            batch = update[i : i + BATCH_FILES]
            rows = []
            for path in batch:
                state = states.get(path)
                if state is None or not state.fingerprint:
                    continue
                rows.append((path, state.fingerprint, store.chunks_in_file(path)))
            with self._transaction() as conn:
                for path, fingerprint, chunks in rows:
                    _delete_file(conn, path)
                    names, bodies = [], []
                    path_words = path_text(path)
                    for c in chunks:
                        qualified = str(
                            (c.metadata or {}).get("qualified_name")
                            or (c.metadata or {}).get("fqcn")
                            or c.symbol_name
                        )
                        name_text = lexical_text(f"{c.symbol_name} {qualified}")
                        body = lexical_text(c.content)
                        cur = conn.execute(
                            "INSERT INTO lex_chunks(path, symbol_name, symbol_type, qualified_name, "
                            "start_line, end_line) VALUES (?,?,?,?,?,?)",
                            (path, c.symbol_name, c.symbol_type, qualified, c.start_line, c.end_line),
                        )
                        conn.execute(
                            "INSERT INTO chunk_fts(rowid, name, body, path) VALUES (?,?,?,?)",
                            (cur.lastrowid, name_text, body, path_words),
                        )
                        if c.symbol_type not in ("lines", "block"):
                            names.append(name_text)
                        bodies.append(body)
                        report.chunks_indexed += 1
                    cur = conn.execute(
                        "INSERT INTO lex_files(path, fingerprint) VALUES (?,?)", (path, fingerprint)
                    )
                    conn.execute(
                        "INSERT INTO file_fts(rowid, path, names, body) VALUES (?,?,?,?)",
                        (cur.lastrowid, lexical_text(path), " ".join(names), "\n".join(bodies)),
                    )
            report.files_indexed += len(rows)
            if progress:
                progress(min(i + BATCH_FILES, len(update)), len(update))
        report.elapsed = time.perf_counter() - started
        return report

    # ---- queries ----------------------------------------------------------------

    def search_chunks(self, query: str, limit: int = 50, terms: list[str] | None = None,
                      groups: Sequence[Sequence[str]] | None = None) -> list[LexicalHit]:
        """BM25 over chunks for `query`'s terms (or the `terms` given, already selected);
        with `groups` (a translated request's senses by word), each group scores as one
        term (see grouped_scores)."""
        return self.chunk_pool(query, limit, limit, terms, groups).hits

    def chunk_pool(self, query: str, limit: int, depth: int, terms: list[str] | None = None,
                   groups: Sequence[Sequence[str]] | None = None, with_terms: bool = True) -> ChunkPool:
        """search_chunks' best `limit` hits, and the hits after them down to `depth`, read
        only when asked for (`ChunkPool.past`): one FTS5 scan for both. Why: the search
        reads on past a pool crowded with tests (crowded_pool.py), and a second scan cost
        as much as the first (~10 ms CPU on sympy). The first `limit` hits of a deeper read
        are the shallow read's (FTS5 keeps ties in the order it met them; 623 requests of
        set (b) and sympy compared). Without `with_terms` the hits' matched_terms are not
        read (a hybrid query reads them for the symbols it shows: `chunk_terms`)."""
        terms = terms if terms is not None else query_terms(query)
        if not terms:
            return ChunkPool([], list)
        deepest = max(limit, depth)
        if groups is not None and _grouping(terms, groups):
            top = self._top_grouped(terms, groups, deepest)
        else:
            top = self._top(
                f"SELECT rowid, -{_CHUNK_BM25} FROM chunk_fts WHERE chunk_fts MATCH ? "
                f"ORDER BY {_CHUNK_BM25} LIMIT ?", terms, deepest,
            )
        return ChunkPool(self._chunk_hits(terms, top[:limit], 1, with_terms),
                         lambda: self._chunk_hits(terms, top[limit:], limit + 1, with_terms))

    def _chunk_hits(self, terms: list[str], top: list[tuple[int, float]], first_rank: int,
                    with_terms: bool) -> list[LexicalHit]:
        rows = self._rows(
            "SELECT rowid, path, symbol_name, symbol_type, qualified_name, start_line, end_line "
            "FROM lex_chunks WHERE rowid IN ({})", top,
        )
        words = self.chunk_terms([rowid for rowid, _ in top], terms) if with_terms else {}
        return [
            LexicalHit(r[1], r[2], r[3], r[4], r[5], r[6], score, rank, words.get(rowid, ()), rowid)
            for rank, (rowid, score, r) in enumerate(((rowid, score, rows[rowid]) for rowid, score in top),
                                                     first_rank)
        ]

    def chunk_terms(self, rows: Sequence[int], terms: list[str]) -> dict[int, tuple[str, ...]]:
        """Which of `terms` each chunk (by its row, LexicalHit.row) writes in its names, text or
        path words (matched_terms). Apart from the search for the reason of `file_terms`: the
        words are evidence for the few symbols a query shows, not for its 50 to 150 hits."""
        if not rows:
            return {}
        found = self.conn.execute(
            f"SELECT rowid, name, body, path FROM chunk_fts WHERE rowid IN ({','.join('?' * len(rows))})", list(rows))
        return {r[0]: matched_terms(terms, f"{r[1]} {r[2]} {r[3]}") for r in found}

    def search_files(self, query: str, limit: int = 20, terms: list[str] | None = None,
                     with_terms: bool = True) -> list[FileHit]:
        """Whole-file BM25 (path, defined names, text). Without `with_terms` the hits'
        matched_terms are not read (a hybrid query reads them for the files it shows:
        `file_terms`)."""
        terms = terms if terms is not None else query_terms(query)
        if not terms:
            return []
        top = self._top(
            "SELECT rowid, -bm25(file_fts, 4.0, 2.0, 1.0) FROM file_fts WHERE file_fts MATCH ? "
            "ORDER BY bm25(file_fts, 4.0, 2.0, 1.0) LIMIT ?", terms, limit,
        )
        rows = self._rows("SELECT rowid, path FROM lex_files WHERE rowid IN ({})", top)
        paths = [rows[rowid][1] for rowid, _ in top]
        words = self.file_terms(paths, terms) if with_terms else {}
        return [FileHit(path, score, rank, words.get(path, ()))
                for rank, (path, (_, score)) in enumerate(zip(paths, top, strict=True), 1)]

    def file_terms(self, paths: Sequence[str], terms: list[str]) -> dict[str, tuple[str, ...]]:
        """Which of `terms` each file's path and defined names write (matched_terms).
        Why apart from search_files: the words are evidence shown for the few files a
        query returns, and matching them against all of its 100 hits' names (a large
        file's run to 200 KB) cost a long request on sympy ~20 ms, more than the BM25 read."""
        if not paths:
            return {}
        rows = self.conn.execute(
            "SELECT l.path, f.path, f.names FROM lex_files l JOIN file_fts f ON f.rowid = l.rowid "
            f"WHERE l.path IN ({','.join('?' * len(paths))})", list(paths),
        )
        return {r[0]: matched_terms(terms, f"{r[1]} {r[2]}") for r in rows}

    def _top(self, sql: str, terms: list[str], limit: int) -> list[tuple[int, float]]:
        """The best rows by BM25, as (rowid, score): only ids and scores go through the
        sort, so thousands of matches of a common word do not drag their texts along."""
        return [(r[0], float(r[1])) for r in self.conn.execute(sql, (fts_query(terms), limit))]

    def _top_grouped(self, terms: list[str], groups: Sequence[Sequence[str]], limit: int) -> list[tuple[int, float]]:
        """The best chunks when each group of terms scores as one word: every term's BM25 is
        read on its own (FTS5's BM25 of an OR query is the sum of its terms' BM25s, so these
        are the very parts it would add up), then combined per chunk by grouped_scores."""
        import numpy as np  # loaded with the vectors; only a translated request gets here

        per_term = {}
        for t in terms:
            rows = self.conn.execute(f"SELECT rowid, -{_CHUNK_BM25} FROM chunk_fts WHERE chunk_fts MATCH ?",
                                     (fts_query([t]),)).fetchall()
            # flattened through an iterator: np.array of the row tuples took twice as long
            pairs = np.fromiter(chain.from_iterable(rows), dtype=np.float64, count=2 * len(rows)).reshape(len(rows), 2)
            per_term[t] = (pairs[:, 0].astype(np.int64), pairs[:, 1])
        # FTS5's row count for the IDF, read off the plain twin (counting chunk_fts scans it)
        total = self.conn.execute("SELECT COUNT(*) FROM lex_chunks").fetchone()[0]
        ids, scores = grouped_scores(per_term, groups, total)
        best = np.lexsort((ids, -scores))[:limit]
        return [(int(ids[i]), float(scores[i])) for i in best]

    def _rows(self, sql: str, top: list[tuple[int, float]]) -> dict[int, tuple[Any, ...]]:
        if not top:
            return {}
        ids = [rowid for rowid, _ in top]
        return {r[0]: r for r in self.conn.execute(sql.format(",".join("?" * len(ids))), ids)}

    def document_frequencies(self, terms: list[str]) -> tuple[dict[str, int], int]:
        """How many files contain each term (porter-stemmed as FTS5 matches), and the
        number of files: the IDF a long request's terms are chosen by."""
        conn = self.conn
        total = conn.execute("SELECT COUNT(*) FROM lex_files").fetchone()[0]
        out = {}
        for t in terms:
            out[t] = conn.execute(
                "SELECT COUNT(*) FROM file_fts WHERE file_fts MATCH ?", (fts_query([t]),)
            ).fetchone()[0]
        return out, total

    def vocabulary(self, initials: str, max_len: int = 24) -> dict[str, int]:
        """The workspace's indexed words (porter stems, as FTS5 stores them) that start
        with one of `initials`, up to `max_len` letters, with how many files use each:
        the candidates a katakana loanword is spelled back to (loanwords.best_spelling).
        Read from an FTS5 vocab table over the file index (a temporary table of this
        connection: the store's schema is unchanged); ~20k words of a mid-sized app read in a few ms."""
        conn = self.conn
        conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.file_vocab USING fts5vocab(main, 'file_fts', 'row')")
        out: dict[str, int] = {}
        for letter in dict.fromkeys(initials):
            out.update(conn.execute(
                "SELECT term, doc FROM temp.file_vocab WHERE term >= ? AND term < ? AND length(term) <= ?",
                (letter, chr(ord(letter) + 1), max_len)).fetchall())
        return out

    def spelled(self, stem: str, like: Callable[[str], bool], rows: int = 20) -> str | None:
        """How the workspace spells a word with this porter stem: the most frequent word of
        a few matching chunks that starts like the stem and passes `like`."""
        counts: Counter[str] = Counter()
        prefix = stem.removesuffix("i")
        for (body,) in self.conn.execute(
                "SELECT body FROM chunk_fts WHERE chunk_fts MATCH ? LIMIT ?", (fts_query([stem]), rows)):
            for w in _WORD.findall(body):
                lw = w.lower()
                if lw.startswith(prefix) and lw.isalpha() and like(lw):
                    counts[lw] += 1
        return counts.most_common(1)[0][0] if counts else None

    def files_writing(self, word: str, cap: int) -> int:
        """How many files write `word` itself (or an inflection: written_forms), counted
        up to `cap`. Why not `document_frequencies`: FTS5 matches porter stems, so it
        also counts files that only write another word with the same stem (porter makes
        "edition" "edit", "incremental" "increment"); a Japanese word's sense chosen by
        that count is the one the code edits, not the one it names (ja_terms.choose_terms).
        Reads the stem's matching chunks that contain the word's letters (a C-side
        `instr` filter) and stops at `cap` files: a few ms on a mid-sized app."""
        if cap <= 0:
            return 0
        prefix, forms = written_forms(word)
        files: set[str] = set()
        rows = self.conn.execute(
            "SELECT c.path, f.name, f.body, f.path FROM chunk_fts f JOIN lex_chunks c ON c.rowid = f.rowid "
            "WHERE chunk_fts MATCH ? AND (instr(f.body, ?) OR instr(f.name, ?) OR instr(f.path, ?))",
            (fts_query([word]), prefix, prefix, prefix))
        for path, *texts in rows:
            if path not in files and any(forms.search(t) for t in texts):
                files.add(path)
                if len(files) >= cap:
                    break
        return len(files)

    def same_matches(self, a: str, b: str) -> bool:
        """Do two terms match the very same files (one porter stem here: duplication and
        duplicate)?"""
        for one, other in ((a, b), (b, a)):
            query = f"{fts_query([one])} NOT {fts_query([other])}"
            if self.conn.execute("SELECT 1 FROM file_fts WHERE file_fts MATCH ? LIMIT 1", (query,)).fetchone():
                return False
        return True

    def select_terms(self, text: str, preferred: set[str], limit: int = MAX_QUERY_TERMS,
                     max_candidates: int = 400) -> list[str]:
        """The terms a long request is searched by (see `rank_terms`)."""
        counts = all_query_terms(text)
        pref = {w for p in preferred for w in _WORD.findall(lexical_text(p).lower())}
        # Check the most promising candidates only: code names and repeated words first.
        candidates = sorted(counts, key=lambda t: (t not in pref, -counts[t]))[:max_candidates]
        df, total = self.document_frequencies(candidates)
        return rank_terms(Counter({t: counts[t] for t in candidates}), df, total, pref, limit)

    def has_path(self, path: str) -> bool:
        return self.conn.execute("SELECT 1 FROM lex_files WHERE path=?", (path,)).fetchone() is not None

    def paths_ending_with(self, suffix: str, limit: int = 5) -> list[str]:
        """Indexed files whose path is `suffix` or ends with `/suffix` (a traceback's
        absolute or site-packages path names a workspace file by its tail)."""
        suffix = suffix.replace("\\", "/").lstrip("./")
        if not suffix:
            return []
        pattern = "%/" + suffix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self.conn.execute(
            "SELECT path FROM lex_files WHERE path = ? OR path LIKE ? ESCAPE '\\' LIMIT ?",
            (suffix, pattern, limit),
        ).fetchall()
        return [r[0] for r in rows]

    def stats(self) -> dict[str, int]:
        return {
            "files": self.conn.execute("SELECT COUNT(*) FROM lex_files").fetchone()[0],
            "chunks": self.conn.execute("SELECT COUNT(*) FROM lex_chunks").fetchone()[0],
        }


def _add_chunk_paths(conn: sqlite3.Connection) -> None:
    """Upgrade a version-1 store in place: chunk_fts gains its rows' path words. FTS5
    tables take no new column, so the table is copied from its own stored text (no chunk
    is read from the index again, and searches keep working until the switch), in one
    transaction that another process opening the store at the same time waits for. Then
    the file is compacted. sympy (44,909 chunks): 1.9 s, and 0.8 s for the compaction."""
    started = time.perf_counter()
    conn.create_function("ci_path_text", 1, path_text, deterministic=True)
    conn.execute("BEGIN IMMEDIATE")
    try:
        row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        upgrade = row is not None and int(row[0]) == 1  # not upgraded meanwhile by another process
        if upgrade:
            conn.execute("DROP TABLE IF EXISTS chunk_fts_v2")
            conn.execute("CREATE VIRTUAL TABLE chunk_fts_v2 USING fts5("
                         "name, body, path, tokenize = 'porter unicode61 remove_diacritics 2')")
            conn.execute("INSERT INTO chunk_fts_v2(rowid, name, body, path) "
                         "SELECT f.rowid, f.name, f.body, ci_path_text(c.path) "
                         "FROM chunk_fts f JOIN lex_chunks c ON c.rowid = f.rowid")
            conn.execute("DROP TABLE chunk_fts")
            conn.execute("ALTER TABLE chunk_fts_v2 RENAME TO chunk_fts")
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    if not upgrade:
        return
    try:  # the old table's pages would stay in the file as free space (+50 % on sympy)
        conn.execute("VACUUM")
    except sqlite3.OperationalError as exc:  # another process is reading: the pages get reused
        log.info("lexical index: not compacted after the upgrade (%s)", exc)
    log.info("lexical index: chunks gained their path words in %.1f s", time.perf_counter() - started)


#: A word's senses after its best-scoring one add this share of their BM25. Chosen on set
#: (b)'s tune halves (hybrid file MRR, 10 cells summed, 8.169 with plain summing): 0.3
#: 8.239 with every Japanese cell higher; 0.0 8.226 (solidtime ja lower), 0.7 8.216 and
#: 1.0 8.228 (linkding ja lower by 0.003 and 0.002).
#: Grouping whole-file BM25 too lowered cells at 0.3 and 1.0.
SENSE_REST_WEIGHT = 0.3
#: a term's matching row ids and their BM25 (higher is better), as two numpy arrays
TermScores = tuple[Any, Any]


def _grouping(terms: list[str], groups: Sequence[Sequence[str]]) -> bool:
    """Grouped scoring only where some group holds more than one of the searched terms:
    otherwise it is the plain OR query, read in one go."""
    searched = set(terms)
    return any(sum(t in searched for t in g) > 1 for g in groups)


def grouped_scores(per_term: dict[str, TermScores], groups: Sequence[Sequence[str]],
                   total: int, rest: float = SENSE_REST_WEIGHT) -> TermScores:
    """Each row's score when each group of terms is one word: `per_term` holds each term's
    matching rows and their BM25 (two arrays), `total` is the number of rows; the answer
    is every matched row with its score. A group scores its best term plus `rest` times
    the others, each term's BM25 carried over to the IDF of the whole group (the rows
    matching any of its terms). A term in no group counts alone, as it is.

    Why: a Japanese word is searched by up to three English senses (保存 → save, store,
    preservation). Summed as separate terms, a file that mentions three senses of one word
    gets three words' credit and outranks the file that matches each of the request's
    words once; and a sense the code barely uses (a comment's "preservation") lends the
    word its high IDF. As Lucene's SynonymQuery does, a word's senses are one term: one
    IDF (the union's), and their matches are not three pieces of evidence.

    Arrays over row ids, not dicts: a common sense matches most of a large workspace's
    chunks (sympy: ~30,000 rows per request), and per-row Python cost more than the BM25
    reads. Each row's sum takes the same floating-point steps in the same order as a
    row-by-row loop would (words in turn; a group's best, then `rest` times the others)."""
    import numpy as np

    size = 1 + max((int(ids.max()) for ids, _ in per_term.values() if len(ids)), default=-1)
    out = np.zeros(size)
    matched = np.zeros(size, dtype=bool)
    grouped = {t for g in groups for t in g}
    words = [w for w in ([t for t in dict.fromkeys(g) if t in per_term] for g in groups) if w]
    words += [[t] for t in per_term if t not in grouped]
    for word in words:
        if len(word) == 1:
            ids, values = per_term[word[0]]
            out[ids] += values
            matched[ids] = True
            continue
        rows = np.zeros(size, dtype=bool)
        for t in word:
            rows[per_term[t][0]] = True
        idf = _fts_idf(int(rows.sum()), total)
        best = np.zeros(size)
        summed = np.zeros(size)
        for t in word:
            ids, values = per_term[t]
            scaled = values * (idf / _fts_idf(len(ids), total))
            best[ids] = np.maximum(best[ids], scaled)
            summed[ids] += scaled
        at = np.flatnonzero(rows)
        out[at] = out[at] + best[at] + rest * (summed[at] - best[at])
        matched |= rows
    at = np.flatnonzero(matched)
    return at, out[at]


def written_forms(word: str) -> tuple[str, re.Pattern[str]]:
    """The letters every written form of `word` starts with, and a pattern for its forms
    as indexed text writes them (lexical_text: lower case, identifiers also split into
    their camelCase/snake parts): the forms of its lemma (ignoring → ignore, ignores,
    ignored; category → categories; stop → stopped), a hyphen also written as nothing or
    "_" (e-mail → email). Inflections only, not a stemmer: "edition" is not "edit"."""
    forms = sorted({f for lemma in _lemmas(word.lower()) for f in _inflections(lemma)}, key=len, reverse=True)
    prefix = forms[0]
    for f in forms:
        while not f.startswith(prefix):
            prefix = prefix[:-1]
    lead = prefix.split("-")[0]
    alternatives = [re.escape(f).replace(r"\-", "[-_]?") for f in forms]
    if not lead:
        return lead, re.compile(rf"(?<![a-z0-9])(?:{'|'.join(alternatives)})(?![a-z0-9])")
    # The letters every form starts with come first, and the look back for a letter before
    # them after: a pattern that starts with its lookbehind is tried at every position of a
    # chunk's text, one that starts with letters only where they are (a Japanese request's
    # senses on sympy: 12 → 6 ms). The same matches.
    head = re.escape(lead)
    rests = "|".join(a[len(head):] for a in alternatives)
    return lead, re.compile(rf"{head}(?<![a-z0-9]{head})(?:{rests})(?![a-z0-9])")


# an inflectional ending and what it replaced: "ies" was "y" (categories), "ing" was
# nothing or "e" (checking, saving)
_ENDINGS = (("ies", "y"), ("ied", "y"), ("ing", ""), ("ing", "e"), ("ed", ""), ("ed", "e"), ("es", ""), ("s", ""))
_DOUBLED = "bdgmnprt"  # stop → stopped, run → running, set → setting


def _lemmas(word: str) -> set[str]:
    """The word and the words it may be an inflection of (guesses; a wrong one is a
    non-word the code does not write)."""
    out = {word}
    for ending, was in _ENDINGS:
        base = word[: -len(ending)] + was
        # a bare root of 3 letters is rarely what was inflected (string is no str)
        if word.endswith(ending) and len(base) >= (3 if was else 4):
            out.add(base)
            if not was and base[-1] == base[-2] and base[-1] in _DOUBLED:
                out.add(base[:-1])
    return out


def _inflections(lemma: str) -> list[str]:
    """A lemma's plural/third person, -ed and -ing forms."""
    if len(lemma) > 2 and lemma.endswith("e"):
        return [lemma, lemma + "s", lemma + "d", lemma[:-1] + "ing"]
    if len(lemma) > 2 and lemma.endswith("y") and lemma[-2] not in "aeiou":
        return [lemma, lemma[:-1] + "ies", lemma[:-1] + "ied", lemma + "ing"]
    out = [lemma, lemma + "s", lemma + "es", lemma + "ed", lemma + "ing"]
    if len(lemma) > 2 and lemma[-1] in _DOUBLED and lemma[-2] in "aeiou" and lemma[-3] not in "aeiou":
        out += [lemma + lemma[-1] + "ed", lemma + lemma[-1] + "ing"]
    return out


def _fts_idf(matching: int, total: int) -> float:
    """FTS5's IDF (fts5_bm25.c): log((N - n + 0.5) / (n + 0.5)), at least 1e-6."""
    idf = math.log((total - matching + 0.5) / (matching + 0.5))
    return idf if idf > 0 else 1e-6


def matched_terms(terms: list[str], text: str) -> tuple[str, ...]:
    """Which of the request's terms a hit's text contains as a word, or (terms over three
    letters) as the start of a word: a cheap stand-in for the stemmer ("login" matches
    "logins"). `str.find` and a look at the neighbours: a hit's text can be a whole
    file's names, and tokenising it per request cost more than the BM25 query itself."""
    low = text.lower()
    return tuple(t for t in terms if t in low and _has_word(low, t))  # `in` spares most calls


def _has_word(text: str, term: str) -> bool:
    whole = len(term) <= 3
    at = text.find(term)
    while at != -1:
        before = text[at - 1] if at else " "
        after = text[at + len(term)] if at + len(term) < len(text) else " "
        if not _is_word_char(before) and not (whole and _is_word_char(after)):
            return True
        at = text.find(term, at + 1)
    return False


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _delete_file(conn: sqlite3.Connection, path: str) -> None:
    row = conn.execute("SELECT rowid FROM lex_files WHERE path=?", (path,)).fetchone()
    if row:
        conn.execute("DELETE FROM file_fts WHERE rowid=?", (row[0],))
        conn.execute("DELETE FROM lex_files WHERE rowid=?", (row[0],))
    ids = [r[0] for r in conn.execute("SELECT rowid FROM lex_chunks WHERE path=?", (path,))]
    for i in range(0, len(ids), 500):
        part = ids[i : i + 500]
        marks = ",".join("?" * len(part))
        conn.execute(f"DELETE FROM chunk_fts WHERE rowid IN ({marks})", part)
        conn.execute(f"DELETE FROM lex_chunks WHERE rowid IN ({marks})", part)
