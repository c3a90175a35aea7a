"""Python names bound inside a function (a class or helper each test defines for
itself, the way attrs' and pytest suites write them): a use inside that function is
its own definition, never a same-named one of another function or of the module.
Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import definitions_at, indexed_tree

FILES = {
    "src/pkg/__init__.py": "",
    "src/pkg/make.py": (
        "def attrib(default=None):\n    return default\n\n\n"
        "class C:\n    \"\"\"A module-level class of the same name.\"\"\"\n\n"
        "    def __init__(self) -> None:\n        self.x = 0\n"
    ),
    "tests/test_setattr.py": (
        "import pytest\n\nfrom pkg.make import attrib\n\n\n"
        "class TestSetAttr:\n"
        "    def test_change(self):\n"
        "        class C:\n            x = attrib()\n            y = attrib()\n\n"
        "        c = C()\n        c.x = 2\n\n"
        "    def test_frozen(self):\n"
        "        class C:\n            x = attrib()\n\n"
        "        C().x = 3\n\n"
        "        def helper() -> C:\n            return C()\n\n"
        "        helper().x\n\n\n"
        "def test_plain():\n"
        "    class C:\n        x = attrib()\n\n"
        "    with pytest.raises(ValueError):\n        C().x = 4\n\n\n"
        "def helper():\n    return 1\n\n\n"
        "def test_module_level():\n    assert helper() == 1\n"
    ),
    # attrs' _make.py: a class re-bound by a decorator-like call after its body
    "src/pkg/_make.py": (
        "def _add_repr(cls):\n    return cls\n\n\n"
        "class Converter:\n    __slots__ = (\"converter\", \"takes_self\")\n\n"
        "    def __init__(self, converter, takes_self=False):\n"
        "        self.converter = converter\n        self.takes_self = takes_self\n\n"
        "    def __call__(self, value):\n        if self.takes_self:\n            return self.converter(value)\n\n\n"
        "Converter = _add_repr(Converter)\n\n\n"
        "class Other:\n    def __init__(self):\n        self.takes_self = True\n\n\n"
        "def make() -> None:\n    c = Converter(int)\n    print(c.takes_self)\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("pyscope") / "repo", FILES)


def defs(live: LiveIndex, rel: str, needle: str, word: str) -> list[str]:
    return [f"{s.path}:{s.symbol.range.start.line + 1}:{s.symbol.qualified_name}" for s in definitions_at(live, FILES, rel, needle, word)]


def line_of(rel: str, needle: str, after: str = "") -> int:
    lines = FILES[rel].splitlines()
    start = next(i for i, line in enumerate(lines) if after in line) if after else 0
    return next(i for i in range(start, len(lines)) if needle in lines[i]) + 1


def test_class_defined_in_the_enclosing_test_method(live: LiveIndex):
    # before: every `C` of the file (three in test functions) was an answer
    rel = "tests/test_setattr.py"
    assert [f.split(":")[1] for f in defs(live, rel, "c = C()", "C")] == [str(line_of(rel, "class C:"))]
    want = line_of(rel, "class C:", after="def test_frozen")
    assert [f.split(":")[1] for f in defs(live, rel, "C().x = 3", "C")] == [str(want)]


def test_member_of_a_locally_defined_class(live: LiveIndex):
    # before: `C().x` listed every `x` of the file
    rel = "tests/test_setattr.py"
    want = line_of(rel, "x = attrib()", after="def test_frozen")
    assert [f.split(":")[1] for f in defs(live, rel, "C().x = 3", "x")] == [str(want)]
    assert [f.split(":")[1] for f in defs(live, rel, "c.x = 2", "x")] == [str(line_of(rel, "x = attrib()"))]
    want = line_of(rel, "x = attrib()", after="def test_plain")
    assert [f.split(":")[1] for f in defs(live, rel, "C().x = 4", "x")] == [str(want)]


def test_a_nested_function_sees_the_enclosing_functions_class(live: LiveIndex):
    # `def helper() -> C:` inside test_frozen names test_frozen's C
    rel = "tests/test_setattr.py"
    want = line_of(rel, "x = attrib()", after="def test_frozen")
    assert [f.split(":")[1] for f in defs(live, rel, "helper().x", "x")] == [str(want)]


def test_a_function_local_to_another_function_is_not_reachable(live: LiveIndex):
    # `helper()` at module level is the module's, not test_frozen's inner helper
    rel = "tests/test_setattr.py"
    want = line_of(rel, "def helper():", after="def test_plain")
    assert [f.split(":")[1] for f in defs(live, rel, "assert helper()", "helper")] == [str(want)]


def test_attributes_of_a_class_rebound_after_its_body(live: LiveIndex):
    # before: `Converter = _add_repr(Converter)` hid the class, so `self.converter = …`
    # made no field and `self.takes_self` answered nothing
    rel = "src/pkg/_make.py"
    want = f"{rel}:{line_of(rel, 'self.takes_self = takes_self')}:pkg._make.Converter.takes_self"
    assert defs(live, rel, "if self.takes_self", "takes_self") == [want]
    assert defs(live, rel, "c.takes_self", "takes_self") == [want]


def test_the_class_is_the_definition_not_its_rebinding(live: LiveIndex):
    rel = "src/pkg/_make.py"
    assert defs(live, rel, "c = Converter(int)", "Converter") == [
        f"{rel}:{line_of(rel, 'class Converter:')}:pkg._make.Converter"
    ]
