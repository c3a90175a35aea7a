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
