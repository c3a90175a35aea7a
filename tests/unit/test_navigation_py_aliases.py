"""Python type aliases and guards the way uvicorn's tests and alembic write them: `HTTPProtocol: TypeAlias =
"type[HttpToolsProtocol | H11Protocol]"` under `if TYPE_CHECKING:`, a parameter of that
type called to build the protocol (`http_protocol_cls(config=...)`), and a
`Union[...]` alias; a value narrowed by a `TypeGuard` function (`if is_index_sig(obj):`).
Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import definitions_at, indexed_tree

FILES = {
    "uvicorn/__init__.py": "",
    "uvicorn/h11_impl.py": (
        "class H11Protocol:\n    def __init__(self, config: str) -> None:\n        self.transport = None\n"
    ),
    "uvicorn/httptools_impl.py": (
        "class HttpToolsProtocol:\n    def __init__(self, config: str) -> None:\n        self.transport = None\n"
    ),
    "uvicorn/cycle.py": (
        "class RequestResponseCycle:\n    def __init__(self) -> None:\n        self.transport = None\n"
    ),
    "tests/test_http.py": (
        "from __future__ import annotations\n\nfrom typing import TYPE_CHECKING, Union\n\n"
        "if TYPE_CHECKING:\n    from typing import TypeAlias\n\n"
        "    from uvicorn.h11_impl import H11Protocol\n    from uvicorn.httptools_impl import HttpToolsProtocol\n\n"
        "    HTTPProtocol: TypeAlias = \"type[HttpToolsProtocol | H11Protocol]\"\n"
        "    AnyProtocol = Union[HttpToolsProtocol, H11Protocol]\n\n\n"
        "def get_connected_protocol(http_protocol_cls: HTTPProtocol):\n"
        "    protocol = http_protocol_cls(config=\"x\")\n    return protocol\n\n\n"
        "def test_undersized_request(http_protocol_cls: HTTPProtocol) -> None:\n"
        "    protocol = get_connected_protocol(http_protocol_cls)\n    assert protocol.transport.is_closing()\n\n\n"
        "def check(p: AnyProtocol) -> None:\n    print(p.transport)\n"
    ),
    "alembic/__init__.py": "",
    "alembic/ddl/__init__.py": "",
    "alembic/ddl/_autogen.py": (
        "from typing import TypeGuard\n\n\n"
        "class _constraint_sig:\n    def __init__(self) -> None:\n        self.const = None\n\n\n"
        "class _ix_constraint_sig(_constraint_sig):\n    @property\n    def column_names(self) -> tuple:\n        return ()\n\n\n"
        "class _uq_constraint_sig(_constraint_sig):\n    @property\n    def column_names(self) -> tuple:\n        return ()\n\n\n"
        "def is_index_sig(sig: _constraint_sig) -> TypeGuard[_ix_constraint_sig]:\n    return True\n"
    ),
    "alembic/builder.py": (
        "from typing_extensions import Self\n\n\nclass Builder:\n"
        "    def option(self, name: str) -> Self:\n        return self\n\n\n"
        "class TableBuilder(Builder):\n    def column(self, name: str) -> None:\n        pass\n\n\n"
        "class IndexBuilder(Builder):\n    def column(self, name: str) -> None:\n        pass\n\n\n"
        "def build(t: TableBuilder) -> None:\n    t.option(\"x\").column(\"a\")\n"
    ),
    "alembic/compare.py": (
        "from .ddl._autogen import _constraint_sig, is_index_sig\n\n\n"
        "def _compare(obj: _constraint_sig) -> None:\n"
        "    if is_index_sig(obj):\n        print(obj.column_names)\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("pyalias") / "repo", FILES)


def defs(live: LiveIndex, rel: str, needle: str, word: str) -> list[str]:
    return sorted(s.path for s in definitions_at(live, FILES, rel, needle, word))


def test_an_instance_of_a_type_alias_of_classes(live: LiveIndex):
    # before: every `transport` (RequestResponseCycle's too) ranked by name
    assert defs(live, "tests/test_http.py", "protocol.transport", "transport") == [
        "uvicorn/h11_impl.py", "uvicorn/httptools_impl.py"
    ]


def test_a_union_alias(live: LiveIndex):
    assert defs(live, "tests/test_http.py", "p.transport", "transport") == [
        "uvicorn/h11_impl.py", "uvicorn/httptools_impl.py"
    ]


def test_a_value_narrowed_by_a_type_guard(live: LiveIndex):
    # before: `obj` stayed a _constraint_sig, which has no column_names: nothing decided
    assert defs(live, "alembic/compare.py", "obj.column_names", "column_names") == ["alembic/ddl/_autogen.py"]
    lines = FILES["alembic/ddl/_autogen.py"].splitlines()
    n = next(i for i, line in enumerate(FILES["alembic/compare.py"].splitlines()) if "obj.column_names" in line)
    line = FILES["alembic/compare.py"].splitlines()[n]
    _, found = live.resolve("alembic/compare.py", n, line.index("column_names") + 1)
    ix = next(i for i, t in enumerate(lines) if "class _ix_constraint_sig" in t)
    assert [s.symbol.range.start.line for s in found] == [ix + 2]


def test_a_self_return_is_the_class_called_on(live: LiveIndex):
    # before: `Self` was Builder, which has no column(): both builders' column ranked
    assert defs(live, "alembic/builder.py", ".column(", "column") == ["alembic/builder.py"]
    lines = FILES["alembic/builder.py"].splitlines()
    n = next(i for i, line in enumerate(lines) if ".column(" in line)
    _, found = live.resolve("alembic/builder.py", n, lines[n].index(".column(") + 2)
    assert [s.symbol.qualified_name for s in found] == ["alembic.builder.TableBuilder.column"]
