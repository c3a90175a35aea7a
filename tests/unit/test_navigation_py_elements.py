"""Python receivers that are items of a container, the way rich writes them: a loop
over a typed attribute (`for span in self._spans:` with `_spans: List[Span]`), a
subscript (`self._spans[0]`, `layout["left"]` through `__getitem__`), a loop unpacking
tuples (`for position, text, tag in _parse(markup):` with `Iterable[Tuple[int, str,
Optional[Tag]]]`). Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import definitions_at, indexed_tree

FILES = {
    "rich/__init__.py": "",
    "rich/text.py": (
        "from typing import List, NamedTuple\n\n\n"
        "class Span(NamedTuple):\n    start: int\n    end: int\n\n\n"
        "class Text:\n"
        "    def __init__(self) -> None:\n        self._spans: List[Span] = []\n\n"
        "    @property\n    def spans(self) -> List[Span]:\n        return self._spans\n\n"
        "    def trim(self, max_offset: int) -> None:\n"
        "        for span in self._spans:\n"
        "            if span.end < max_offset:\n                pass\n"
        "        first = self._spans[0]\n"
        "        print(first.end)\n"
        "        for item in self.spans:\n"
        "            print(item.start)\n"
    ),
    "rich/layout.py": (
        "from typing import Dict\n\n\n"
        "class Layout:\n"
        "    def __init__(self) -> None:\n        self._named: Dict[str, \"Layout\"] = {}\n\n"
        "    def update(self, renderable: str) -> None:\n        pass\n\n"
        "    def __getitem__(self, name: str) -> \"Layout\":\n        return self._named[name]\n\n"
        "    def refresh(self) -> None:\n"
        "        for name in self._named:\n            print(name.upper())\n"
        "        self._named[\"x\"].update(\"y\")\n"
    ),
    "rich/markup.py": (
        "from typing import Iterable, NamedTuple, Optional, Tuple\n\n\n"
        "class Tag(NamedTuple):\n    name: str\n    parameters: Optional[str]\n\n\n"
        "def _parse(markup: str) -> Iterable[Tuple[int, Optional[str], Optional[Tag]]]:\n"
        "    yield 0, None, Tag(\"b\", None)\n\n\n"
        "def render(markup: str) -> None:\n"
        "    for position, text, tag in _parse(markup):\n"
        "        if tag is not None:\n            print(tag.name)\n"
    ),
    # the same member names on an unrelated class: ranking by name alone cannot tell
    "rich/bar.py": (
        "class Bar:\n    def __init__(self) -> None:\n        self.start = 0\n        self.end = 1\n"
        "        self.name = \"bar\"\n\n    def update(self) -> None:\n        pass\n"
    ),
    "tests/test_layout.py": (
        "from rich.layout import Layout\n\n\ndef test_render():\n    layout = Layout()\n"
        "    layout[\"left\"].update(\"foobar\")\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("pyelem") / "repo", FILES)


def defs(live: LiveIndex, rel: str, needle: str, word: str) -> list[str]:
    return [f"{s.path}:{s.symbol.qualified_name}" for s in definitions_at(live, FILES, rel, needle, word)]


def test_loop_over_a_typed_list_attribute(live: LiveIndex):
    # before: `span.end` was ranked among every `end` (Bar's too)
    assert defs(live, "rich/text.py", "span.end", "end") == ["rich/text.py:rich.text.Span.end"]
    assert defs(live, "rich/text.py", "item.start", "start") == ["rich/text.py:rich.text.Span.start"]  # a property


def test_subscript_of_a_typed_list_and_getitem(live: LiveIndex):
    assert defs(live, "rich/text.py", "first.end", "end") == ["rich/text.py:rich.text.Span.end"]
    assert defs(live, "tests/test_layout.py", "].update", "update") == ["rich/layout.py:rich.layout.Layout.update"]
    assert defs(live, "rich/layout.py", "].update", "update") == ["rich/layout.py:rich.layout.Layout.update"]  # Dict value


def test_loop_unpacking_tuples(live: LiveIndex):
    assert defs(live, "rich/markup.py", "tag.name", "name") == ["rich/markup.py:rich.markup.Tag.name"]


def test_loop_over_a_dict_gives_keys_outside_the_workspace(live: LiveIndex):
    assert defs(live, "rich/layout.py", "name.upper", "upper") == []


def test_an_attribute_assigned_from_a_conditional_construction(tmp_path):
    # httpx: `self.url = URL(url) if params is None else URL(url, params=params)`; the
    # first branch types the field (a chained `Foo().bar()` would not)
    files = {
        "httpx/__init__.py": "",
        "httpx/_urls.py": "class URL:\n    @property\n    def path(self) -> str:\n        return ''\n",
        "httpx/_other.py": "class Route:\n    path = '/'\n",
        "httpx/_models.py": (
            "from ._urls import URL\n\n\nclass Request:\n"
            "    def __init__(self, url, params=None) -> None:\n"
            "        self.url = URL(url) if params is None else URL(url, params=params)\n\n\n"
            "def app(request: Request) -> str:\n    return request.url.path\n"
        ),
    }
    live = indexed_tree(tmp_path / "repo", files)
    lines = files["httpx/_models.py"].splitlines()
    n = next(i for i, line in enumerate(lines) if "request.url.path" in line)
    _, found = live.resolve("httpx/_models.py", n, lines[n].index("path") + 1)
    assert [s.symbol.qualified_name for s in found] == ["httpx._urls.URL.path"]


def test_an_attribute_set_on_cls_in_a_classmethod_is_a_field(tmp_path):
    # alembic's tests: `cls.a = env.generate_revision(...)` in `setup_class`, read as
    # `self.a` in the tests (pyright answers the assignment)
    files = {
        "tests/test_command.py": (
            "class HistoryTest:\n    @classmethod\n    def setup_class(cls):\n"
            "        cls.a = 'rev-a'\n        cls.cfg = object()\n        cls.b, cls.c = 'b', 'c'\n\n"
            "    def test_history(self):\n        return (self.a, self.cfg, self.c)\n"
        ),
        "tests/test_other.py": "class Other:\n    def __init__(self):\n        self.a = 1\n",
    }
    live = indexed_tree(tmp_path / "repo", files)
    lines = files["tests/test_command.py"].splitlines()
    n = next(i for i, line in enumerate(lines) if "self.a" in line)
    _, found = live.resolve("tests/test_command.py", n, lines[n].index("self.a") + 6)
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("tests/test_command.py", 3)]
    _, found = live.resolve("tests/test_command.py", n, lines[n].index("self.c)") + 6)  # tuple targets
    assert [(s.path, s.symbol.selection_range.start.line) for s in found] == [("tests/test_command.py", 5)]
