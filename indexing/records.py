"""The indexer's records built in one call each, where the compiled builder runs.

A frozen dataclass's `__init__` (model.py's Position, Range, Symbol, Chunk) is a Python
frame that sets each field through its slot's descriptor, each set a call that packs its
arguments in a tuple: ~1,000 instructions a Position, ~2,500 a Symbol. The definitions
pass builds seven per definition and the chunks pass one per chunk, for every file of a
first build. `native/records.c`'s makers fill the slots directly: the same objects (a
test compares them with the classes' own). Without the extension these are the classes.

Arguments are positional, every field given, in field order; `new_chunk`'s metadata is
a dict (`Chunk`'s own `None` means `{}`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from .model import Chunk, Position, Range, Symbol

try:
    from ._records import maker as _maker  # type: ignore[import-not-found]
except ImportError:  # not built (optional extension): the classes build them
    _maker = None


def builder(cls: type) -> Callable[..., Any]:
    """What builds `cls` from all its fields' values, in field order: the compiled maker,
    else the class. Only for slotted records whose `__init__` sets each field from the
    argument of the same position; a class whose slots are not its fields in order gets
    the class."""
    if _maker is None or getattr(cls, "__slots__", None) != tuple(f.name for f in dataclasses.fields(cls)):
        return cls
    return _maker(cls)


new_position: Callable[[int, int], Position] = builder(Position)
new_range: Callable[[Position, Position], Range] = builder(Range)
new_symbol: Callable[..., Symbol] = builder(Symbol)
new_chunk: Callable[..., Chunk] = builder(Chunk)
