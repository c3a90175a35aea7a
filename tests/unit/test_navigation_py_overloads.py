"""Python `@overload` stubs before their implementation (alembic's fixtures, typed
libraries' APIs): a use goes to the implementation, the one definition that runs
(pyright answers so); a stub file with overloads only keeps them all."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import definitions_at, indexed_tree

FILES = {
    "alembic/__init__.py": "",
    "alembic/fixtures.py": (
        "import io\nfrom contextlib import contextmanager\nfrom typing import Any, Generator, Literal, overload\n\n\n"
        "@overload\n@contextmanager\ndef capture_context_buffer(\n    bytes_io: Literal[True], **kw: Any\n"
        ") -> Generator[io.BytesIO]: ...\n\n\n"
        "@overload\n@contextmanager\ndef capture_context_buffer(\n    **kw: Any,\n) -> Generator[io.StringIO]: ...\n\n\n"
        "@contextmanager\ndef capture_context_buffer(\n    **kw: Any,\n) -> Generator[io.StringIO | io.BytesIO]:\n"
        "    yield io.StringIO()\n\n\n"
        "class Migration:\n"
        "    @overload\n    def run(self, n: int) -> int: ...\n\n"
        "    @typing.overload\n    def run(self, n: str) -> str: ...\n\n"
        "    def run(self, n):\n        return n\n\n\n"
        "def go(m: Migration) -> None:\n    m.run(1)\n"
    ),
    "tests/test_batch.py": (
        "from alembic.fixtures import capture_context_buffer\n\n\n"
        "def test_buf():\n    with capture_context_buffer() as buf:\n        assert buf\n"
    ),
    "stubs/api.pyi": (
        "from typing import overload\n\n@overload\ndef field(a: int) -> int: ...\n"
        "@overload\ndef field(a: str) -> str: ...\n\n\ndef use() -> None:\n    field(1)\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("pyover") / "repo", FILES)


def defs(live: LiveIndex, rel: str, needle: str, word: str) -> list[str]:
    return [f"{s.path}:{s.symbol.range.start.line + 1}" for s in definitions_at(live, FILES, rel, needle, word)]


def line_of(rel: str, needle: str) -> int:
    return [i for i, line in enumerate(FILES[rel].splitlines()) if needle in line][-1] + 1


def test_an_imported_overloaded_function_is_its_implementation(live: LiveIndex):
    # before: the three definitions, the stubs first
    rel = "alembic/fixtures.py"
    assert defs(live, "tests/test_batch.py", "capture_context_buffer()", "capture_context_buffer") == [
        f"{rel}:{line_of(rel, 'def capture_context_buffer(')}"
    ]


def test_an_overloaded_method_is_its_implementation(live: LiveIndex):
    rel = "alembic/fixtures.py"
    assert defs(live, rel, "m.run(1)", "run") == [f"{rel}:{line_of(rel, 'def run(self, n):')}"]


def test_overloads_without_implementation_all_stay(live: LiveIndex):
    assert len(defs(live, "stubs/api.pyi", "field(1)", "field")) == 2
