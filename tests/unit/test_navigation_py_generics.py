"""Python generic base classes the way polyfactory writes them: a factory subclass binds
its base's type parameter (`class MyFactory(DataclassFactory[VanillaDC])`), and a class
method declared `-> T` far up the hierarchy returns that model. Real tree-sitter, real
index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import definitions_at, indexed_tree

FILES = {
    "polyfactory/__init__.py": "",
    "polyfactory/factories/__init__.py": "",
    "polyfactory/factories/base.py": (
        "from abc import ABC\nfrom typing import Any, Generic, TypeVar, cast\n\n"
        "from polyfactory.field_meta import FieldMeta\n\n"
        "T = TypeVar(\"T\")\n\n\n"
        "class BaseFactory(ABC, Generic[T]):\n"
        "    __model__: type[T]\n\n"
        "    @classmethod\n"
        "    def build(cls, *_: Any, **kwargs: Any) -> T:\n"
        "        return cls.__model__(**kwargs)\n\n"
        "    @classmethod\n"
        "    def get_model_fields(cls) -> list[FieldMeta]:  # pragma: no cover\n"
        "        return []\n\n"
        "    @classmethod\n"
        "    def check(cls) -> None:\n"
        "        names = {field_meta.name for field_meta in cls.get_model_fields()}\n\n"
        "    @classmethod\n"
        "    def coerce(cls, value: Any) -> str:\n"
        "        meta = cast(\"FieldMeta\", value)\n"
        "        return meta.name\n"
    ),
    "polyfactory/field_meta.py": "class FieldMeta:\n    name: str  # the field's name\n",
    "polyfactory/factories/dataclass_factory.py": (
        "from typing import Generic, TypeVar\n\n"
        "from polyfactory.factories.base import BaseFactory\n\n"
        "T = TypeVar(\"T\")\n\n\n"
        "class DataclassFactory(BaseFactory[T], Generic[T]):\n"
        "    \"\"\"Dataclass models.\"\"\"\n"
    ),
    "tests/models.py": (
        "from dataclasses import dataclass\n\n\n"
        "@dataclass\nclass Person:\n    name: str\n    age: float\n\n\n"
        "@dataclass\nclass Pet:\n    name: str\n"
    ),
    "tests/test_build.py": (
        "from dataclasses import dataclass\n\n"
        "from polyfactory.factories.dataclass_factory import DataclassFactory\n"
        "from tests.models import Person\n\n\n"
        "def test_build() -> None:\n"
        "    class PersonFactory(DataclassFactory[Person]):\n        __model__ = Person\n\n"
        "    result = PersonFactory.build()\n"
        "    assert result.name\n\n\n"
        "def test_local_model() -> None:\n"
        "    @dataclass\n    class Local:\n        name: str\n\n"
        "    class LocalFactory(DataclassFactory[Local]):\n        __model__ = Local\n\n"
        "    local = LocalFactory.build()\n"
        "    assert local.name\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("pygenerics") / "repo", FILES)


def defs(live: LiveIndex, rel: str, needle: str, word: str) -> list[str]:
    return [
        f"{s.path}:{s.symbol.selection_range.start.line + 1}"
        for s in definitions_at(live, FILES, rel, needle, word)
    ]


def test_a_method_returning_the_type_parameter_gives_the_subclass_model(live: LiveIndex):
    # before: `-> T` said nothing and every `name` field was listed
    assert defs(live, "tests/test_build.py", "assert result.name", "name") == ["tests/models.py:6"]


def test_the_bound_model_may_be_local_to_the_test(live: LiveIndex):
    assert defs(live, "tests/test_build.py", "assert local.name", "name") == ["tests/test_build.py:18"]


def test_a_return_annotation_followed_by_a_comment(live: LiveIndex):
    # before: `-> list[FieldMeta]:  # pragma: no cover` was read with its comment, and
    # the items of the list were taken as outside the workspace
    got = defs(live, "polyfactory/factories/base.py", "{field_meta.name for", "name")
    assert got == ["polyfactory/field_meta.py:2"]


def test_cast_gives_the_type_it_names(live: LiveIndex):
    # before: `cast(...)` was an outside call; every `name` was listed
    assert defs(live, "polyfactory/factories/base.py", "return meta.name", "name") == ["polyfactory/field_meta.py:2"]
