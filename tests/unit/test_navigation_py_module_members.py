"""Python: the members of a module are its own and its stub's. The filter that keeps a
class's members to its own declaration (a test's `class Ninja` declared again in the next
test) must not apply to a module, whose symbol has no range. Real tree-sitter, real index."""

from __future__ import annotations

from tests.unit.source_tree import indexed_tree


def test_a_modules_members_are_not_filtered_by_its_range(tmp_path):
    # a module symbol has an empty range: the filter of same-named classes kept only the
    # members of the .py beside a .pyi, and lost the stub's overloads (attrs, a regression
    # caught by the Python bench: `attr.converters.optional`)
    files = {
        "src/attr/__init__.py": "from . import converters\n",
        "src/attr/converters.py": "def optional(converter):\n    return converter\n",
        "src/attr/converters.pyi": (
            "from typing import overload\n\n"
            "@overload\ndef optional(converter: int) -> int: ...\n"
            "@overload\ndef optional(converter: str) -> str: ...\n"
        ),
        "tests/test_annotations.py": "import attr\n\nattr.converters.optional(str)\n",
    }
    live = indexed_tree(tmp_path / "repo", files)
    _, found = live.resolve("tests/test_annotations.py", 2, len("attr.converters.op"))
    assert sorted((s.path, s.symbol.selection_range.start.line) for s in found) == [
        ("src/attr/converters.py", 0), ("src/attr/converters.pyi", 3), ("src/attr/converters.pyi", 5),
    ]
