"""References and workspace symbols run on worker threads, several at once: one
request's batch must not end another's in the middle (the load bench got
`TypeError: 'NoneType' object does not support item assignment` from references)."""

from __future__ import annotations

import threading

from code_intel.lsp_server.navigator import Navigator


def test_a_batch_ending_on_one_thread_leaves_another_threads_batch_alone():
    nav = Navigator(None)  # type: ignore[arg-type] - batches never touch the index
    entered, inside, release = threading.Event(), threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def slow_lookup() -> int:
        inside.set()
        release.wait(10)
        return 1

    def second_request() -> None:
        entered.wait(10)
        try:
            with nav.batch():
                assert nav._memoized("definitions", "x", slow_lookup) == 1
                assert nav._memoized("definitions", "x", lambda: 2) == 1  # memoized in its batch
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    worker = threading.Thread(target=second_request)
    worker.start()
    with nav.batch():  # the first request's batch
        entered.set()
        inside.wait(10)
    release.set()  # the first batch has ended while the second was computing
    worker.join(10)
    assert not errors, errors
