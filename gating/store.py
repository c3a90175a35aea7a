"""SQLite persistence of sessions and their logs (SPEC §4.1, §4.9, §6).

One file (by default `.code-intel/sessions.db`, a sibling of the index, which is
rebuilt on schema changes while sessions must survive them) in WAL mode so the
Claude Code hook can read while the language server writes. A new `SessionStore` on
the same file continues every session where it was.

Tables: `sessions` (one JSON row per session), `tool_calls` (the server's call log),
`decisions` (DecisionLog), `outcomes` (OutcomeLog), `learned_pairs`, and
`blocked_writes`. The call log and both logs are append-only: SQLite triggers refuse
UPDATE and DELETE on them. A file of another schema version, or one that is not a
database, is moved aside and a fresh store is created, with a message.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs
from code_intel.indexing.private import private_dir

from .codec import from_json, to_json
from .model import (
    BlockedWrite,
    DecisionRecord,
    LearnedPair,
    OutcomeRecord,
    Session,
    SessionStatus,
    ToolCall,
)

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1

_APPEND_ONLY = ("tool_calls", "decisions", "outcomes")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    phase TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tool_calls (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tool_calls_session ON tool_calls(session_id, seq);
CREATE TABLE IF NOT EXISTS decisions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS decisions_session ON decisions(session_id, seq);
CREATE TABLE IF NOT EXISTS outcomes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS outcomes_session ON outcomes(session_id, seq);
CREATE TABLE IF NOT EXISTS learned_pairs (
    nl_term TEXT NOT NULL,
    symbol TEXT NOT NULL,
    learned_at REAL NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (nl_term, symbol)
);
CREATE TABLE IF NOT EXISTS blocked_writes (
    session_id TEXT NOT NULL,
    path TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, path)
);
""" + "".join(
    f"""
CREATE TRIGGER IF NOT EXISTS {t}_no_update BEFORE UPDATE ON {t}
BEGIN SELECT RAISE(ABORT, '{t} is append-only'); END;
CREATE TRIGGER IF NOT EXISTS {t}_no_delete BEFORE DELETE ON {t}
BEGIN SELECT RAISE(ABORT, '{t} is append-only'); END;
"""
    for t in _APPEND_ONLY
)


class SessionStore:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.messages: list[str] = []
        self._lock = threading.RLock()
        private_dir(self.path.parent)
        self._conn = self._open()

    # ---- connection -------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path, timeout=30, isolation_level=None, check_same_thread=False
        )
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    def _open(self) -> sqlite3.Connection:
        existed = self.path.exists() and self.path.stat().st_size > 0
        try:
            conn = self._connect()
            if existed:
                check = conn.execute("PRAGMA quick_check(1)").fetchone()  # garbage pages
                if check is None or check[0] != "ok":
                    raise sqlite3.DatabaseError(f"integrity check failed: {check[0] if check else '?'}")
                version = _version(conn)
                if version != SCHEMA_VERSION:
                    conn.close()
                    self._move_aside(
                        f"session store schema version {version} does not match {SCHEMA_VERSION}"
                    )
                    conn = self._connect()
            _init(conn)
        except sqlite3.DatabaseError as exc:
            self._move_aside(f"session store is corrupt ({exc})")
            conn = self._connect()
            _init(conn)
        return conn

    def _move_aside(self, why: str) -> None:
        aside = self.path.with_name(f"{self.path.name}.broken-{int(time.time())}")
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(self.path) + suffix)
            if src.exists():
                src.replace(Path(str(aside) + suffix))
        msg = (
            f"the session store was unreadable ({why}); moved it to {aside.name}: "
            "earlier sessions could not be recovered, start a new one"
        )
        log.warning(msg)
        self.messages.append(msg)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic unit; nested use joins the outer transaction."""
        with self._lock:
            if self._conn.in_transaction:
                yield self._conn
                return
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _query(self, sql: str, args: Iterable[Any] = ()) -> list[tuple]:
        with self._lock:
            return self._conn.execute(sql, tuple(args)).fetchall()

    # ---- sessions ---------------------------------------------------------------

    def save_session(self, session: Session) -> None:
        with self.transaction() as c:
            c.execute(
                "INSERT OR REPLACE INTO sessions VALUES (?,?,?,?,?,?)",
                (
                    session.id,
                    session.status.value,
                    session.phase.value,
                    session.created_at,
                    session.updated_at,
                    _dump(session),
                ),
            )

    def load_session(self, session_id: str) -> Session | None:
        rows = self._query("SELECT data FROM sessions WHERE id=?", (session_id,))
        return from_json(json.loads(rows[0][0]), Session) if rows else None

    def list_sessions(self, status: SessionStatus | None = None) -> list[Session]:
        """Most recently active first."""
        where, args = ("WHERE status=?", (status.value,)) if status else ("", ())
        rows = self._query(f"SELECT data FROM sessions {where} ORDER BY updated_at DESC", args)
        return [from_json(json.loads(r[0]), Session) for r in rows]

    # ---- call log ---------------------------------------------------------------

    def append_tool_call(self, call: ToolCall) -> ToolCall:
        """Stores `call` and returns it with its sequence number."""
        return self._append("tool_calls", call)

    def tool_calls(self, session_id: str) -> list[ToolCall]:
        rows = self._query(
            "SELECT data FROM tool_calls WHERE session_id=? ORDER BY seq", (session_id,)
        )
        return [from_json(json.loads(r[0]), ToolCall) for r in rows]

    def last_call_seq(self) -> int:
        return int(self._query("SELECT COALESCE(MAX(seq), 0) FROM tool_calls")[0][0])

    # ---- logs -------------------------------------------------------------------

    def append_decision(self, record: DecisionRecord) -> DecisionRecord:
        return self._append("decisions", record)

    def decisions(self, session_id: str | None = None) -> list[DecisionRecord]:
        return self._read("decisions", DecisionRecord, session_id)

    def append_outcome(self, record: OutcomeRecord) -> OutcomeRecord:
        return self._append("outcomes", record)

    def outcomes(self, session_id: str | None = None) -> list[OutcomeRecord]:
        return self._read("outcomes", OutcomeRecord, session_id)

    def _append(self, table: str, record: Any) -> Any:
        with self.transaction() as c:
            # Under BEGIN IMMEDIATE no other writer can take the same number.
            seq = int(
                c.execute(f"SELECT COALESCE(MAX(seq), 0) + 1 FROM {table}").fetchone()[0]
            )
            stored = _with_seq(record, seq)
            c.execute(
                f"INSERT INTO {table}(seq, session_id, data) VALUES (?,?,?)",
                (seq, record.session_id, _dump(stored)),
            )
        return stored

    def _read(self, table: str, cls: type, session_id: str | None) -> list[Any]:
        if session_id is None:
            rows = self._query(f"SELECT data FROM {table} ORDER BY seq")
        else:
            rows = self._query(
                f"SELECT data FROM {table} WHERE session_id=? ORDER BY seq", (session_id,)
            )
        return [from_json(json.loads(r[0]), cls) for r in rows]

    # ---- learned pairs ----------------------------------------------------------

    def add_learned_pairs(self, pairs: Iterable[LearnedPair]) -> None:
        """A pair learned again replaces the older one (same NL term and symbol)."""
        with self.transaction() as c:
            c.executemany(
                "INSERT OR REPLACE INTO learned_pairs VALUES (?,?,?,?)",
                [(p.nl_term, p.symbol, p.learned_at, _dump(p)) for p in pairs],
            )

    def learned_pairs(self) -> list[LearnedPair]:
        rows = self._query("SELECT data FROM learned_pairs ORDER BY learned_at, nl_term, symbol")
        return [from_json(json.loads(r[0]), LearnedPair) for r in rows]

    def delete_learned_pairs(self, pairs: Iterable[LearnedPair]) -> None:
        with self.transaction() as c:
            c.executemany(
                "DELETE FROM learned_pairs WHERE nl_term=? AND symbol=?",
                [(p.nl_term, p.symbol) for p in pairs],
            )

    # ---- blocked writes ---------------------------------------------------------

    def put_blocked_write(self, blocked: BlockedWrite) -> None:
        with self.transaction() as c:
            c.execute(
                "INSERT OR REPLACE INTO blocked_writes VALUES (?,?,?)",
                (blocked.session_id, blocked.path, _dump(blocked)),
            )

    def clear_blocked_write(self, session_id: str, path: str) -> bool:
        with self.transaction() as c:
            cur = c.execute(
                "DELETE FROM blocked_writes WHERE session_id=? AND path=?", (session_id, path)
            )
            return cur.rowcount > 0

    def clear_blocked_writes(self, session_id: str) -> list[BlockedWrite]:
        with self.transaction() as c:
            gone = self.blocked_writes(session_id)
            c.execute("DELETE FROM blocked_writes WHERE session_id=?", (session_id,))
        return gone

    def blocked_writes(self, session_id: str | None = None) -> list[BlockedWrite]:
        if session_id is None:
            rows = self._query("SELECT data FROM blocked_writes ORDER BY session_id, path")
        else:
            rows = self._query(
                "SELECT data FROM blocked_writes WHERE session_id=? ORDER BY path", (session_id,)
            )
        return [from_json(json.loads(r[0]), BlockedWrite) for r in rows]


def _init(conn: sqlite3.Connection) -> None:
    conn.executescript(_SCHEMA)
    conn.execute(
        "INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
    )


def _version(conn: sqlite3.Connection) -> int | None:
    has_meta = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'"
    ).fetchone()
    if not has_meta:
        return None
    row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    return int(row[0]) if row else None


def _dump(obj: Any) -> str:
    return json.dumps(to_json(obj), ensure_ascii=False, sort_keys=True)


def _with_seq(record: Any, seq: int) -> Any:
    return attrs.evolve(record, seq=seq)
