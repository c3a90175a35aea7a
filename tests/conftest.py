"""Shared test helpers: fixture projects copied to a temp dir, and the ctags baseline."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def fixture_copy(tmp_path: Path):
    """Copy a fixture project into a temp dir so tests can modify it freely."""

    def copy(name: str) -> Path:
        target = tmp_path / name
        shutil.copytree(FIXTURES / name, target)
        return target

    return copy


def indexed_words(root: Path, files: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    """`root` with `files` (relative path → text) written into it, indexed for the word
    signals: its store and lexical index (no vector store, no model)."""
    from code_intel.indexing.config import Config
    from code_intel.indexing.lexical import LexicalIndex
    from code_intel.indexing.store import IndexStore
    from code_intel.indexing.sync import sync_workspace

    for rel, text in (files or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    store = IndexStore.for_workspace(root)
    sync_workspace(root, store, Config(workers=1))
    lexical = LexicalIndex.for_workspace(root)
    lexical.sync(store)
    return store, lexical


@pytest.fixture(scope="module")
def laravel_words(tmp_path_factory):
    """The Laravel fixture indexed once per module for the word signals."""
    root = tmp_path_factory.mktemp("words") / "laravel_app"
    shutil.copytree(FIXTURES / "laravel_app", root)
    return indexed_words(root)


def ctags_tags(root: Path, kinds: set[str]) -> list[dict]:
    """Universal Ctags' definitions of the given kinds under `root` (the parity baseline)."""
    exe = shutil.which("ctags")
    assert exe, "Universal Ctags is required for the parity tests: apt-get install universal-ctags"
    proc = subprocess.run(
        [exe, "--output-format=json", "--fields=+nKzS", "-R", "-f", "-", "."],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    tags = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return [t for t in tags if t.get("_type") == "tag" and t.get("kind") in kinds]
