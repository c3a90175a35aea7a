"""The index's records (Position, Range, Symbol, Chunk) build through hand-written
__init__s that assign through their slots (speed: the indexer builds seven per
definition). What every consumer relies on must hold as with dataclass's own __init__:
each field set from its argument, defaults, immutability, equality, pickling."""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import pickle
from pathlib import Path

import pytest
from code_intel.indexing.model import Chunk, Position, Range, Symbol, SymbolKind, sha256_text
from code_intel.indexing.store import _metadata_json
from hypothesis import given, settings
from hypothesis import strategies as st

A, B = Position(1, 2), Position(3, 4)
SAMPLES = {
    Position: {"line": 7, "character": 9},
    Range: {"start": A, "end": B},
    Symbol: {"name": "n", "kind": SymbolKind.METHOD, "range": Range(A, B), "selection_range": Range(B, B),
             "qualified_name": "C::n", "container": "C", "signature": "function n()", "doc": "Does n."},
    Chunk: {"path": "a.php", "language": "php", "symbol_name": "n", "symbol_type": "method",
            "start_line": 3, "end_line": 8, "content": "function n() {}", "metadata": {"k": [1]}},
}


@pytest.mark.parametrize("cls", list(SAMPLES), ids=lambda c: c.__name__)
def test_each_record_takes_its_fields_in_order_and_sets_every_one(cls):
    fields = dataclasses.fields(cls)
    params = list(inspect.signature(cls.__init__).parameters)[1:]
    assert params == [f.name for f in fields]
    values = SAMPLES[cls]
    by_keyword, by_position = cls(**values), cls(*values.values())
    for f in fields:
        assert getattr(by_keyword, f.name) is values[f.name]
        assert getattr(by_position, f.name) is values[f.name]
    assert by_keyword == by_position
    if cls is not Chunk:  # a Chunk holds a dict: unhashable, as ever
        assert hash(by_keyword) == hash(by_position)
    assert pickle.loads(pickle.dumps(by_keyword)) == by_keyword
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(by_keyword, fields[0].name, values[fields[0].name])


def test_the_compiled_builders_build_what_the_classes_build():
    """`records.new_*` (native/records.c, which the indexer's definitions and chunks
    passes use) fill the slots directly: the same records as the classes', field by field."""
    from code_intel.indexing import records
    from code_intel.indexing.chunking.base import _Def, _new_def

    assert records._maker is not None, "code_intel.indexing._records did not build"
    for cls, new in ((Position, records.new_position), (Range, records.new_range),
                     (Symbol, records.new_symbol), (Chunk, records.new_chunk)):
        values = SAMPLES[cls]
        built = new(*values.values())
        assert type(built) is cls and built == cls(*values.values())
        for f in dataclasses.fields(cls):
            assert getattr(built, f.name) is values[f.name]
        assert pickle.loads(pickle.dumps(built)) == built
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(built, "path" if cls is Chunk else dataclasses.fields(cls)[0].name, None)
        with pytest.raises(TypeError):  # every field, positionally
            new(*list(values.values())[:-1])
    d = _new_def(None, None, Symbol(**SAMPLES[Symbol]), 1, 2, 3)
    assert (d.start, d.end, d.name_start, d.symbol) == (1, 2, 3, Symbol(**SAMPLES[Symbol]))
    assert d == _Def(None, None, Symbol(**SAMPLES[Symbol]), 1, 2, 3)
    with pytest.raises(ValueError):  # not a slotted class of object
        records._maker(dict)


def test_optional_fields_keep_their_defaults():
    s = Symbol("n", SymbolKind.CLASS, Range(A, B), Range(A, A), "n")
    assert (s.container, s.signature, s.doc) == (None, None, None)
    one, two = Chunk("a", "php", "n", "class", 0, 1, "x"), Chunk("a", "php", "n", "class", 0, 1, "x")
    assert one.metadata == {} and one.metadata is not two.metadata  # a fresh dict each
    assert dataclasses.replace(s, name="m").name == "m"
    assert dataclasses.replace(one, metadata={"a": 1}).metadata == {"a": 1}


def test_a_chunk_fingerprint_is_the_sha256_of_its_text_lone_surrogates_included():
    for text in ("", "plain", "naïve ☃", "half \ud800 pair"):
        chunk = Chunk("a", "x", "n", "t", 0, 0, text)
        assert chunk.fingerprint == sha256_text(text)
    assert Chunk("a", "x", "n", "t", 0, 0, "abc").fingerprint == hashlib.sha256(b"abc").hexdigest()


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(), _JSON_VALUES, max_size=6))
def test_chunk_metadata_is_stored_as_json_dumps_writes_it(metadata):
    assert _metadata_json(metadata) == json.dumps(metadata, ensure_ascii=False, default=str)


def test_metadata_json_writes_what_json_cannot_as_text_as_before():
    metadata = {"path": Path("app/Models"), "n": (1, 2), "quote": 'say "hi"\\n', "ns": "App\\Models"}
    assert _metadata_json(metadata) == json.dumps(metadata, ensure_ascii=False, default=str)
