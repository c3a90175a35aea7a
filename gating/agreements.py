"""Learned pairs on disk (SPEC §4.9, §6): `.code-intel/learned_pairs.json` and one
agreement per pair in `.code-intel/agreements/*.md`.

A `PairSink`: the engine calls it whenever the set of learned pairs changes (a
success, a purge, a sync that dropped vanished symbols). The JSON file is rewritten
atomically from the complete set; agreement files are written for added pairs and
removed for dropped ones. The `map` collection is another sink, wired by the language
server, fed from the same calls.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from code_intel.indexing.config import write_json_atomic
from code_intel.indexing.private import store_dir

from .model import LearnedPair

PAIRS_FILE = "learned_pairs.json"
AGREEMENTS_DIR = "agreements"


def agreement_name(pair: LearnedPair) -> str:
    digest = hashlib.sha1(f"{pair.nl_term}\0{pair.symbol}".encode()).hexdigest()[:12]
    safe = "".join(c if c.isalnum() else "_" for c in pair.symbol)[:60]
    return f"{safe}-{digest}.md"


def agreement_text(pair: LearnedPair) -> str:
    learned = datetime.fromtimestamp(pair.learned_at, UTC).isoformat(timespec="seconds")
    return (
        f"# {pair.nl_term} → {pair.symbol}\n\n"
        f"- nl_term: {pair.nl_term}\n"
        f"- symbol: {pair.symbol}\n"
        f"- similarity: {pair.similarity:.4f}\n"
        f"- session_id: {pair.session_id}\n"
        f"- learned_at: {learned}\n"
        f"- request: {pair.query}\n\n"
        f"## Code evidence\n\n{pair.code_evidence}\n"
    )


class AgreementFiles:
    def __init__(self, root: Path) -> None:
        self.dir = store_dir(Path(root))
        self.pairs_file = self.dir / PAIRS_FILE
        self.agreements = self.dir / AGREEMENTS_DIR

    def pairs_changed(
        self,
        current: Sequence[LearnedPair],
        added: Sequence[LearnedPair],
        removed: Sequence[LearnedPair],
    ) -> None:
        write_json_atomic(
            self.pairs_file,
            {
                "version": 1,
                "pairs": [
                    {
                        "nl_term": p.nl_term,
                        "symbol": p.symbol,
                        "similarity": p.similarity,
                        "code_evidence": p.code_evidence,
                        "session_id": p.session_id,
                        "learned_at": datetime.fromtimestamp(p.learned_at, UTC).isoformat(
                            timespec="seconds"
                        ),
                    }
                    for p in current
                ],
            },
        )
        self.agreements.mkdir(parents=True, exist_ok=True)
        for p in removed:
            (self.agreements / agreement_name(p)).unlink(missing_ok=True)
        for p in added:
            _write_text_atomic(self.agreements / agreement_name(p), agreement_text(p))


def _write_text_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
