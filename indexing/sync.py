"""Fingerprint-based incremental sync of a workspace into the store.

Only added, modified and deleted files are processed: size and mtime screen out the
untouched files cheaply, and a SHA-256 of the content decides for the rest (a touched
but unchanged file costs a hash, not a parse). Parsing runs in a process pool across
the machine's cores (workers that die with their parent, see `workers`); the
parent alone writes the store, in per-batch transactions. In a first build by
`code-intel index` the forked workers bind the rows themselves, into files of their
own, and the parent copies them into the store in SQLite (`_process_into`).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from itertools import chain
from pathlib import Path

from .analyze import analyze_source
from .chunking import ChunkSettings, strategy_for
from .config import Config
from .discovery import Candidate, discover
from .languages import detect_language
from .model import sha256_bytes
from .store import FileRows, IndexedFile, IndexStore, RowsFile, RowSpan
from .workers import let_end, parser_pool, single_threaded, start_method

log = logging.getLogger(__name__)

BINARY_SNIFF_BYTES = 8192
BATCH_FILES = 200
#: The last 1/TAIL of the files: a first build indexes its names when it starts (see
#: below), and writes it in batches of TAIL_BATCH_FILES, since what is pending when the
#: last result arrives is written after the workers are done. On Laravel's `src/` that
#: was up to 200 files plus the sorts, 0.08-0.12 s with nothing beside it; now the
#: writing costs 0.29 s CPU instead of 0.27, beside the workers' last files.
TAIL = 10
TAIL_BATCH_FILES = 25
BATCH_SECONDS = 1.0
PARALLEL_THRESHOLD = 24  # below this, a process pool costs more than it saves
POOL_CHUNK_FILES = 8  # files per task sent to a worker
LAST_TASKS_PER_WORKER = 2  # ... but the last this many tasks' worth per worker: 1 file a task
#: A language with fewer files than two tasks' worth is compiled by the worker(s) that
#: meet it, beside the other's parsing, instead of by the parent before any worker
#: starts: Laravel's `src/` has 3 JavaScript, 3 CSS and 3 Filament files, whose
#: strategies cost 14 ms serial. Never more wall: at worst each worker compiles it at
#: the same time, as long as the parent would have.
WARM_MIN_FILES = 2 * POOL_CHUNK_FILES

ProgressFn = Callable[[int, int, str], None]


@dataclass
class SyncReport:
    added: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unchanged: int = 0
    touched: int = 0  # mtime moved, content identical: hashed, not parsed
    skipped: dict[str, str] = field(default_factory=dict)  # newly skipped: path -> reason
    elapsed: float = 0.0
    workers: int = 1

    @property
    def processed(self) -> int:
        return len(self.added) + len(self.modified)


@dataclass(frozen=True)
class _Job:
    candidate: Candidate
    stored_fingerprint: str | None
    settings: ChunkSettings


@dataclass(frozen=True)
class _Result:
    rel_path: str
    size: int
    mtime_ns: int
    indexed: IndexedFile | None = None
    skip_reason: str | None = None
    rows: RowSpan | None = None  # analysed, its rows in a worker's rows file (a first build)

    @property
    def analysed(self) -> bool:
        return self.indexed is not None or self.rows is not None


def is_binary(data: bytes) -> bool:
    return b"\0" in data[:BINARY_SNIFF_BYTES]


def analyze_bytes(
    rel_path: str, data: bytes, settings: ChunkSettings, size: int = -1, mtime_ns: int = 0
) -> IndexedFile:
    """Analyse file content (from disk or an editor buffer) into a writable record."""
    note = None
    text = data
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            # Parse what an editor would show (U+FFFD for bad bytes), so names and
            # columns agree with the buffer the user sees.
            text = data.decode("utf-8", errors="replace").encode("utf-8")
            note = f"invalid UTF-8 at byte {exc.start}; decoded with replacement characters"
    analysis = analyze_source(rel_path, text, settings, detect_language(rel_path), packed=True)
    if note:
        analysis.notes.append(note)
    return IndexedFile(
        rel_path, sha256_bytes(data), size, mtime_ns, FileRows.from_analysis(rel_path, analysis)
    )


def _process(job: _Job) -> _Result:
    c = job.candidate
    try:
        with open(c.abs_path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        return _Result(c.rel_path, c.size, c.mtime_ns, skip_reason=f"unreadable ({exc.strerror})")
    if is_binary(data):
        return _Result(c.rel_path, c.size, c.mtime_ns, skip_reason="binary")
    if job.stored_fingerprint is not None and sha256_bytes(data) == job.stored_fingerprint:
        return _Result(c.rel_path, c.size, c.mtime_ns)
    return _Result(
        c.rel_path,
        c.size,
        c.mtime_ns,
        indexed=analyze_bytes(c.rel_path, data, job.settings, c.size, c.mtime_ns),
    )


#: The worker's own rows file in a first build (see `_process_into`): one per process.
_rows_file: RowsFile | None = None


def _process_into(rows_prefix: str, jobs: list[_Job]) -> list[_Result]:
    """A forked worker's task in a first build (`IndexStore.bulk_load`): the files'
    rows go into this worker's own rows file, in one transaction, and the parent gets
    only where they are (`RowSpan`) to copy them over in SQLite. Pickling the rows here,
    unpickling them in the parent and binding them there cost more than binding them
    once here and copying them in C: sympy's parent 1.0 s CPU of 5.1 s, most of it that.

    No automatic garbage collection while the files are analysed: a file's Nodes,
    symbols and chunks hold no reference cycle (sympy, collecting after every file of
    the 162 of core/ and printing/: nothing after the first, whose lazy first uses
    leave 832 objects), so the collections found nothing and only walked the young
    objects (callgrind: 2-3 % of a worker's instructions above the parse)."""
    global _rows_file
    with collector_paused():  # see the docstring: the analyses hold no reference cycle
        results = [_process(job) for job in jobs]
    indexed = [r.indexed for r in results if r.indexed is not None]
    if not indexed:
        return results
    path = f"{rows_prefix}{os.getpid()}"
    if _rows_file is None or _rows_file.path != path:
        _rows_file = RowsFile(path)
    spans = iter(_rows_file.write(indexed))
    return [replace(r, indexed=None, rows=next(spans)) if r.indexed is not None else r for r in results]


def _run(
    jobs: list[_Job], workers: int, rows_prefix: str | None = None, ending: contextlib.ExitStack | None = None
) -> Iterator[_Result]:
    """The jobs' results, in order. `rows_prefix` (a first build's, `IndexStore.rows_prefix`):
    forked workers write the rows themselves (`_process_into`); elsewhere it is ignored.
    `ending`: once the last result is taken the workers are told to end, and this stack
    waits for them when it closes (the caller's work after the last result runs beside
    their exit: sympy's 20-30 ms); without it, they are waited for here."""
    if workers <= 1 or len(jobs) < PARALLEL_THRESHOLD:
        yield from map(_process, jobs)
        return
    forks = start_method() == "fork"  # as `parser_pool` decides, before it adds threads
    last = max(0, len(jobs) - LAST_TASKS_PER_WORKER * POOL_CHUNK_FILES * workers)
    with parser_pool(workers, warm=lambda: _warm(jobs)) as pool:
        yield from _results(pool, jobs, last, forks, rows_prefix)
        if ending is not None:
            ending.callback(let_end(pool))


def _results(
    pool: ProcessPoolExecutor, jobs: list[_Job], last: int, forks: bool, rows_prefix: str | None
) -> Iterator[_Result]:
    """`_run`'s results from its pool (see there)."""
    # The last files go one per task: a worker that finds no task left idles
    # until the other's last one ends, up to 8 files (Laravel's `src/`: 9 ms).
    if forks and rows_prefix is not None:
        head = jobs[:last]  # in tasks as `map(..., chunksize)` cuts them
        tasks = [head[i : i + POOL_CHUNK_FILES] for i in range(0, last, POOL_CHUNK_FILES)]
        tasks += [[job] for job in jobs[last:]]
        results = chain.from_iterable(pool.map(functools.partial(_process_into, rows_prefix), tasks))
    else:
        results = chain(
            pool.map(_process, jobs[:last], chunksize=POOL_CHUNK_FILES),
            pool.map(_process, jobs[last:], chunksize=1),
        )
    if not forks:
        yield from results
        return
    # The workers are forked now (a forking pool starts them all at the first task):
    # what `_warm` froze for them is collectable here again.
    gc.unfreeze()
    with collector_paused():
        yield from results


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic garbage collection in this process while the forking parent (the
    CLI, one thread before its pool) takes the workers' results and writes them: the
    unpickled rows hold no reference cycle (Laravel's `src/`: 0 cyclic objects found
    after the whole sync), and the 80-90 gen-0/1 collections that walked them cost the
    parent 20-30 ms of CPU."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _warm(jobs: list[_Job]) -> None:
    """Build, in this process, the strategy (grammar and queries compiled) of each
    language with at least WARM_MIN_FILES files, so forked workers start with them
    instead of each compiling its own; the worker that meets a rarer one builds it.

    Then freeze what this process holds (`gc.freeze`, as its documentation advises
    right before a fork): no collection, in the workers or here, walks those objects
    again or writes to their pages, which each worker would otherwise copy. Laravel's
    `src/`, 8 alternating rounds: 3.5k fewer page faults, CPU 2.24 -> 2.20 s. The cost:
    a reference cycle that is garbage by now is never collected in this process."""
    for language in warm_languages(detect_language(job.candidate.rel_path) for job in jobs):
        strategy_for(language)
    gc.freeze()


def warm_languages(languages: Iterable[str]) -> list[str]:
    """The languages (one entry per file) worth building before the workers fork, in
    first-seen order."""
    return [lang for lang, n in Counter(languages).items() if n >= WARM_MIN_FILES]


def sync_workspace(
    root: Path,
    store: IndexStore,
    config: Config,
    force: bool = False,
    progress: ProgressFn | None = None,
    exclude_paths: Iterable[str] = (),
) -> SyncReport:
    """Bring the store in line with the files on disk.

    `exclude_paths` are left alone (the language server passes its open documents:
    their buffer, not the disk, is the truth while they are open).
    """
    started = time.perf_counter()
    report = SyncReport()
    found = discover(root, config)
    if config.supported_languages:
        allowed = set(config.supported_languages)
        found.files = {
            p: c for p, c in found.files.items() if detect_language(p) in allowed
        }
    held = set(exclude_paths)
    stored = store.file_states()

    gone = [p for p in stored if p not in found.files and p not in found.skipped and p not in held]
    if gone:
        store.delete_files(gone)
        report.deleted = [p for p in gone if stored[p].skip_reason is None]

    newly_skipped = []
    for rel, reason in found.skipped.items():
        prev = stored.get(rel)
        if prev is None or prev.skip_reason != reason:
            newly_skipped.append((rel, reason, -1, 0))
            report.skipped[rel] = reason
    if newly_skipped:
        store.mark_skipped(newly_skipped)

    jobs: list[_Job] = []
    for rel, cand in found.files.items():
        if rel in held:
            continue
        prev = stored.get(rel)
        if not force and prev and prev.size == cand.size and prev.mtime_ns == cand.mtime_ns:
            report.unchanged += prev.skip_reason is None
            continue
        fp = None if force or prev is None or prev.skip_reason else prev.fingerprint
        jobs.append(_Job(cand, fp, ChunkSettings(config.chunk_max_tokens)))

    workers = config.workers or os.cpu_count() or 1
    report.workers = workers if len(jobs) >= PARALLEL_THRESHOLD else 1
    pending_files: list[IndexedFile] = []
    pending_rows: list[RowSpan] = []
    pending_touch: list[tuple[str, int, int]] = []
    pending_skip: list[tuple[str, str, int, int]] = []
    last_flush = time.monotonic()

    def flush() -> None:
        nonlocal last_flush
        if pending_files:
            store.write_files(pending_files)
            pending_files.clear()
        if pending_rows:
            store.copy_rows(pending_rows)
            pending_rows.clear()
        if pending_touch:
            store.touch(pending_touch)
            pending_touch.clear()
        if pending_skip:
            store.mark_skipped(pending_skip)
            pending_skip.clear()
        last_flush = time.monotonic()

    # A first build of a tree worth a pool loads the rows, then indexes their names (and
    # the chunk ids: the keys that arrive in random order, see `bulk_load`). Only
    # in a process with one thread (`code-intel index`): a language server answers
    # lookups while it builds, and those would scan the tables instead. The names are
    # indexed once the last tenth of the files is left to the workers: the sorts run
    # beside that parsing instead of after it, when nothing else is left to do.
    bulk = (store.bulk_load() if single_threaded() and len(jobs) >= PARALLEL_THRESHOLD
            else contextlib.nullcontext(lambda: None))
    names_at = len(jobs) - len(jobs) // TAIL
    with contextlib.ExitStack() as ending, bulk as index_names:  # the workers end last
        for done, result in enumerate(_run(jobs, workers, store.rows_prefix(), ending), 1):
            prev = stored.get(result.rel_path)
            if result.analysed:
                if result.rows is not None:
                    pending_rows.append(result.rows)
                else:
                    pending_files.append(result.indexed)
                was_indexed = prev is not None and prev.skip_reason is None
                (report.modified if was_indexed else report.added).append(result.rel_path)
            elif result.skip_reason is not None:
                pending_skip.append((result.rel_path, result.skip_reason, result.size, result.mtime_ns))
                if prev is None or prev.skip_reason != result.skip_reason:
                    report.skipped[result.rel_path] = result.skip_reason
                if prev is not None and prev.skip_reason is None:
                    report.deleted.append(result.rel_path)
            else:
                pending_touch.append((result.rel_path, result.size, result.mtime_ns))
                report.touched += 1
            batch = BATCH_FILES if done < names_at else TAIL_BATCH_FILES
            if done == names_at or len(pending_files) + len(pending_rows) >= batch or time.monotonic() - last_flush > BATCH_SECONDS:
                flush()
            if done == names_at:
                index_names()
            if progress:
                progress(done, len(jobs), result.rel_path)
        flush()
        # a first build's go into its side file: the installed store's first write (its
        # WAL begun) cost that build's tail 7-11 ms
        store.set_meta("last_sync", str(time.time()))
        store.set_meta("sync_count", str(int(store.get_meta("sync_count") or 0) + 1))

    report.elapsed = time.perf_counter() - started
    return report


def index_buffer(store: IndexStore, rel_path: str, data: bytes, settings: ChunkSettings) -> IndexedFile:
    """Index an editor buffer (unsaved text) in place of the disk version of the file.

    Size -1 makes the next disk sync re-read the file once the buffer is closed.
    """
    indexed = analyze_bytes(rel_path, data, settings, size=-1, mtime_ns=0)
    store.write_files([indexed])
    return indexed
