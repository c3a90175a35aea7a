"""Records ↔ JSON-ready data: one converter for the store and for the agent's answers."""

from __future__ import annotations

import enum
from typing import Any, TypeVar

import cattrs

from . import model

T = TypeVar("T")

_converter = cattrs.Converter(unstruct_collection_overrides={tuple: list})
# Enums go out as their plain values (a StrEnum would otherwise pass through as itself).
for _cls in vars(model).values():
    if isinstance(_cls, type) and issubclass(_cls, enum.Enum) and _cls.__module__ == model.__name__:
        _converter.register_unstructure_hook(_cls, lambda v: v.value)


def to_json(obj: Any) -> Any:
    """attrs records, enums, tuples → dicts, strings, lists (json.dumps-ready)."""
    return _converter.unstructure(obj)


def from_json(data: Any, cls: type[T]) -> T:
    return _converter.structure(data, cls)
