"""Which binding of a local gives a receiver its type, on the shapes test suites and
clients are written in: a parameter rebound before use, a name rebound from itself,
a value reached through several nested expressions, and an uninformative rebinding
after an informative one. Real tree-sitter and the real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import indexed_tree

FILES = {
    "net/__init__.py": "from .models import URL, Client, Response\n",
    "net/models.py": (
        "class URL:\n"
        "    def __init__(self, text: str) -> None:\n"
        "        self.path = text\n"
        "\n"
        "    def copy_with(self, path: str) -> 'URL':\n"
        "        return URL(path)\n"
        "\n\n"
        "class Response:\n"
        "    def __init__(self) -> None:\n"
        "        self.history: list = []\n"
        "\n\n"
        "class Client:\n"
        "    async def __aenter__(self) -> 'Client':\n"
        "        return self\n"
        "\n"
        "    async def get(self, url: str) -> Response:\n"
        "        return Response()\n"
        "\n\n"
        "class Route:\n"
        "    def __init__(self) -> None:\n"
        "        self.path = '/'\n"
        "        self.history = None\n"
    ),
    "tests/test_client.py": (
        "import net\n"
        "\n\n"
        "async def test_history() -> None:\n"
        "    async with net.Client() as client:\n"
        "        response = await client.get('/')\n"
        "    assert response.history == []\n"
        "\n\n"
        "def test_path(url):\n"
        "    url = net.URL(url)\n"
        "    assert url.path\n"
        "\n\n"
        "def test_copy():\n"
        "    url = net.URL('/')\n"
        "    url = url.copy_with(path='/a')\n"
        "    assert url.path == '/a'\n"
        "\n\n"
        "def test_rebound(make):\n"
        "    url = net.URL('/')\n"
        "    url = make(url)\n"
        "    assert url.path  # rebound\n"
        "\n\n"
        "def test_flow(flow):\n"
        "    url = net.URL('/')\n"
        "    url = next(flow)\n"
        "    url = flow.send(url)\n"
        "    assert url.path  # flow\n"
        "\n\n"
        "HOME = net.URL('/')\n"
        "\n\n"
        "def test_global():\n"
        "    global HOME\n"
        "    HOME = HOME.copy_with(path='/home')  # global\n"
        "\n\n"
        "def test_loop(paths):\n"
        "    for path in paths:\n"
        "        last = last.copy_with(path=path)  # loop\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("bind") / "repo", FILES)


def defs(live: LiveIndex, line_text: str, name: str) -> list[str]:
    rel = "tests/test_client.py"
    lines = FILES[rel].splitlines()
    n = lines.index(line_text)
    _, found = live.resolve(rel, n, lines[n].index("." + name) + 1)
    return [s.symbol.qualified_name for s in found]


def test_member_through_await_call_on_a_with_target(live: LiveIndex):
    # before: each level of `await net.Client().get()` used up the chain budget
    assert defs(live, "    assert response.history == []", "history") == ["net.models.Response.history"]


def test_parameter_rebound_before_the_use(live: LiveIndex):
    # before: the unannotated parameter `url` won over `url = net.URL(url)`
    assert defs(live, "    assert url.path", "path")[:1] == ["net.models.URL.path"]
    assert len(defs(live, "    assert url.path", "path")) == 1


def test_name_rebound_from_itself(live: LiveIndex):
    # before: `url = url.copy_with(...)` followed itself until the budget ran out
    assert defs(live, "    assert url.path == '/a'", "path") == ["net.models.URL.path"]


def test_uninformative_rebinding_falls_back_to_the_informative_one(live: LiveIndex):
    # before: `url = make(url)` (an untyped callable) left the receiver unknown
    assert defs(live, "    assert url.path  # rebound", "path") == ["net.models.URL.path"]


def test_what_an_outside_function_returns_is_unknown_not_outside(live: LiveIndex):
    # before: `next(flow)` is a builtin, so its result counted as an outside object and
    # `url.path` answered nothing; now the earlier `url = net.URL(...)` decides
    assert defs(live, "    assert url.path  # flow", "path") == ["net.models.URL.path"]


def test_name_rebound_from_itself_with_no_earlier_binding_in_the_function(live: LiveIndex):
    # before: RecursionError (`code-intel refs` printed a traceback on sympy): the only
    # binding found for the right side's `HOME` was the statement's own left side, taken as
    # a loop's later binding, so the search before the statement found it again, forever
    assert defs(live, "    HOME = HOME.copy_with(path='/home')  # global", "copy_with") == [
        "net.models.URL.copy_with"]
    assert defs(live, "        last = last.copy_with(path=path)  # loop", "copy_with") == [
        "net.models.URL.copy_with"]
