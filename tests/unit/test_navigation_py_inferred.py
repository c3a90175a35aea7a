"""Python values whose type the code does not write but pyright infers, the way
alembic's tests are written: a helper without a return annotation (`def staging_env():
...; sc = ScriptDirectory.from_config(cfg); return sc`), and a class attribute set in
`setup_class` from a call on such a value (`cls.c1 = env.generate_revision(...)`).
Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import definitions_at, indexed_tree

FILES = {
    "alembic/__init__.py": "",
    "alembic/script/__init__.py": "",
    "alembic/script/revision.py": (
        "class Revision:\n    def __init__(self, revision: str) -> None:\n        self.revision = revision\n"
    ),
    "alembic/script/base.py": (
        "from typing import Optional\n\nfrom .revision import Revision\n\n\n"
        "class Script(Revision):\n    pass\n\n\n"
        "class ScriptDirectory:\n"
        "    @classmethod\n    def from_config(cls, cfg: str) -> \"ScriptDirectory\":\n        return cls()\n\n"
        "    def generate_revision(self, rev: str, msg: str) -> Optional[Script]:\n        return Script(rev)\n"
    ),
    "alembic/runtime/__init__.py": "",
    "alembic/runtime/migration.py": (
        "class RevisionStep:\n    def __init__(self) -> None:\n        self.revision = None\n\n"
        "    def generate_revision(self) -> None:\n        pass\n"
    ),
    "alembic/testing/__init__.py": "",
    "alembic/testing/env.py": (
        "from alembic.script.base import ScriptDirectory\n\n\n"
        "def staging_env(create=True):\n    cfg = \"x\"\n    if not create:\n        return None\n"
        "    sc = ScriptDirectory.from_config(cfg)\n    return sc\n\n\n"
        "def countdown(n):\n    if n:\n        return countdown(n - 1)\n    return n\n"
    ),
    "tests/test_version_traversal.py": (
        "from alembic.testing.env import countdown, staging_env\n\n\n"
        "class BranchedPathTest:\n"
        "    @classmethod\n    def setup_class(cls):\n        cls.env = env = staging_env()\n"
        "        cls.c1 = env.generate_revision(\"c1\", \"b->c1\")\n\n"
        "    def test_it(self):\n        assert self.c1.revision\n"
        "        assert countdown(3).revision\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("pyinfer") / "repo", FILES)


def defs(live: LiveIndex, rel: str, needle: str, word: str) -> list[str]:
    return [f"{s.path}:{s.symbol.qualified_name}" for s in definitions_at(live, FILES, rel, needle, word)]


def test_a_helper_without_return_annotation(live: LiveIndex):
    # before: `env.generate_revision` listed nothing decided (staging_env's type unknown)
    rel = "tests/test_version_traversal.py"
    assert defs(live, rel, "env.generate_revision", "generate_revision") == [
        "alembic/script/base.py:alembic.script.base.ScriptDirectory.generate_revision"
    ]


def test_a_class_attribute_set_from_a_call_in_setup_class(live: LiveIndex):
    # before: `self.c1.revision` ranked Revision's and RevisionStep's `revision`
    rel = "tests/test_version_traversal.py"
    assert defs(live, rel, "self.c1.revision", "revision") == [
        "alembic/script/revision.py:alembic.script.revision.Revision.revision"
    ]


def test_a_recursive_helper_infers_nothing_from_itself(live: LiveIndex):
    rel = "tests/test_version_traversal.py"
    assert len(defs(live, rel, "countdown(3).revision", "revision")) == 2  # undecided, no hang
