"""The parser process pool, whose workers never outlive the process that started them.

A ProcessPoolExecutor's workers block on their task queue forever when the parent is
killed (kill -9 gives the pool no chance to shut down), and a forkserver and its
resource tracker linger with them. So the workers are direct children and each binds
its life to its parent: the kernel kills it when the parent dies (PR_SET_PDEATHSIG on
Linux), and a watchdog thread catches what the kernel does not cover (other platforms,
a parent that died before the signal was armed).

How they start (`start_method`): a process running one thread (`code-intel index`)
forks them, after `warm` has compiled in the parent what every worker needs (grammars,
queries): a forked worker starts with all of it, where a spawned one pays its imports
and query compilation again (≈ 0.25 s CPU per worker on Laravel's PHP) and spawn adds a
resource-tracker process. A process with other threads (the language server, a
progress bar) spawns them: a fork copies only the calling thread, and a lock another
thread held at that moment would stay held in the child forever.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
WATCH_SECONDS = 0.5


def parser_pool(workers: int, warm: Callable[[], None] | None = None) -> ProcessPoolExecutor:
    """A pool of `workers` processes bound to this one; use it in a `with` block so a
    finished command leaves nothing running. `warm` runs here first when the workers
    will be forked (their copy of this process then has its result)."""
    method = start_method()
    if method == "fork" and warm is not None:
        warm()
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context(method),
        initializer=bind_to_parent,
        initargs=(os.getpid(),),
    )


def let_end(pool: ProcessPoolExecutor) -> Callable[[], None]:
    """Tell the workers of a pool whose results are all taken to end, without waiting:
    they exit (the kernel freeing their memory on their own cores) while this process
    finishes its work, e.g. a first build's last rows and the store's install. The
    function returned waits for them: call it before the command ends, so nothing
    outlives it. (The executor drops its manager thread, which joins the workers, on
    `shutdown(wait=False)`; where it has none, this waits at once as `with` would.)"""
    manager = getattr(pool, "_executor_manager_thread", None)
    if not isinstance(manager, threading.Thread):
        pool.shutdown(wait=True)
        return lambda: None
    pool.shutdown(wait=False)
    return manager.join


def single_threaded() -> bool:
    """Whether this process runs one thread: nothing else can hold a lock a fork would
    copy, or read a store while it is being loaded (`code-intel index`, not a server)."""
    return threading.active_count() == 1


def start_method() -> str:
    """`fork` where it is safe (one thread in this process, a platform that forks),
    else `spawn`; see the module docstring."""
    if single_threaded() and "fork" in multiprocessing.get_all_start_methods():
        return "fork"
    return "spawn"


def bind_to_parent(parent_pid: int) -> None:
    """Worker initializer: die with the parent, however the parent ends."""
    set_parent_death_signal()
    threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()


def set_parent_death_signal(sig: int = signal.SIGKILL) -> bool:
    """Ask the kernel to send `sig` when the parent exits; False where unsupported."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent_pid: int) -> None:
    """An orphan is re-parented (to init or a subreaper), so a changed parent pid means
    the parent is gone."""
    while os.getppid() == parent_pid:
        time.sleep(WATCH_SECONDS)
    os._exit(1)
