"""Python packages that ship stubs beside their modules (attrs, alembic): a type
checker reads `pkg/__init__.pyi`, not `pkg/__init__.py`, for what `pkg.name` is, and
answers the stub's declarations (pyright does). Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import definitions_at, indexed_tree

FILES = {
    "src/attr/__init__.py": "from . import exceptions\nfrom ._next_gen import define\n",
    "src/attr/__init__.pyi": (
        "from . import exceptions as exceptions\nfrom attrs import define as define\n"
    ),
    "src/attr/_next_gen.py": "def define(maybe_cls=None):\n    return maybe_cls\n",
    "src/attr/exceptions.py": "class FrozenError(AttributeError):\n    pass\n",
    "src/attr/exceptions.pyi": "class FrozenError(AttributeError): ...\n",
    "src/attrs/__init__.py": "from attr import exceptions\nfrom attr._next_gen import define\n",
    "src/attrs/__init__.pyi": (
        "from typing import overload\n\nfrom attr import exceptions as exceptions\n\n\n"
        "@overload\ndef define(maybe_cls: None = None) -> int: ...\n"
        "@overload\ndef define(maybe_cls: type) -> type: ...\n"
    ),
    "src/attrs/exceptions.py": "from attr.exceptions import *\n",
    "tests/test_next_gen.py": (
        "import attr\nimport attrs\n\n\n@attr.define()\nclass C:\n    x: int\n\n\n"
        "def test_frozen():\n    raise attrs.exceptions.FrozenError()\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("pystub") / "repo", FILES)


def defs(live: LiveIndex, rel: str, needle: str, word: str) -> list[str]:
    return sorted(f"{s.path}:{s.symbol.range.start.line + 1}" for s in definitions_at(live, FILES, rel, needle, word))


def test_a_package_member_is_read_from_its_stub(live: LiveIndex):
    # before: attr/__init__.py's import of _next_gen.define answered
    assert defs(live, "tests/test_next_gen.py", "@attr.define", "define") == [
        "src/attrs/__init__.pyi:7", "src/attrs/__init__.pyi:9"
    ]


def test_a_stub_names_the_submodule_it_imports(live: LiveIndex):
    # before: attrs/exceptions.py (a submodule file) beat the stub's `from attr import
    # exceptions as exceptions`
    assert defs(live, "tests/test_next_gen.py", "attrs.exceptions.FrozenError", "exceptions") == [
        "src/attr/exceptions.pyi:1"
    ]
