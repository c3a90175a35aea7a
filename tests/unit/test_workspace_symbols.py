"""Workspace symbol search ranks every name that fits the query, however many share
its letters: a short query matches thousands of names in a real tree."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import indexed_tree

# 300 names that hold e…v…a…l in order, defined before the one that is exactly `eval`
CROWD = "".join(f"def every_value_{i}_label():\n    pass\n\n\n" for i in range(300))
FILES = {
    "pkg/a_crowd.py": CROWD,
    "pkg/z_exact.py": "def eval(expr):\n    return expr\n\n\ndef evaluate(expr):\n    return expr\n",
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("wsym") / "repo", FILES)


def test_the_exact_name_comes_first_behind_a_crowd_of_subsequence_matches(live: LiveIndex):
    found = [s.symbol.name for s in live.workspace_symbols("eval", limit=5)]
    assert found[:2] == ["eval", "evaluate"], found
    assert len(found) == 5


def test_a_query_that_fits_nothing_finds_nothing(live: LiveIndex):
    assert live.workspace_symbols("zzqq", limit=5) == []
