"""A chunk read back from the store carries the metadata its chunker gave it (search
payloads, embedding texts and outlines read it), while the store keeps a definition's
qualified name, signature, docstring and container once, in its symbol row."""

from __future__ import annotations

from code_intel.indexing.analyze import analyze_source
from code_intel.indexing.chunking import ChunkSettings
from code_intel.indexing.config import Config
from code_intel.indexing.store import IndexStore
from code_intel.indexing.sync import index_buffer, sync_workspace

DOC = "Convert the amount into the currency given, rounding half to even. " * 40

SOURCE = f'''"""Money helpers."""
import decimal


class Money:
    """An amount in one currency."""

    @property
    def amount(self) -> decimal.Decimal:
        """The amount."""
        return self._amount

    @amount.setter
    def amount(self, value: decimal.Decimal) -> None:
        self._amount = value


def convert(money: Money, currency: str) -> Money:
    """{DOC}"""
''' + "".join(f"    step_{i} = money.amount * {i}\n" for i in range(400)) + "    return money\n"


def as_read(chunks):
    return [(c.symbol_name, c.start_line, c.end_line, c.content, list(c.metadata.items())) for c in chunks]


def analysed(rel, text):
    return as_read(analyze_source(rel, text.encode(), ChunkSettings()).chunks)


def test_chunks_read_back_carry_their_definitions_metadata_stored_once(tmp_path):
    (tmp_path / "money.py").write_text(SOURCE)
    store = IndexStore.for_workspace(tmp_path)
    sync_workspace(tmp_path, store, Config())

    chunks = store.chunks_in_file("money.py")
    assert as_read(chunks) == analysed("money.py", SOURCE)  # same keys, same order
    parts = [c for c in chunks if c.symbol_name == "convert"]
    assert len(parts) > 2 and {c.metadata["docstring"][:18] for c in parts} == {"Convert the amount"}
    setter = [c for c in chunks if c.symbol_name == "amount"][-1]
    assert setter.metadata["signature"].startswith("def amount(self, value")
    by_id = store.chunks_by_id([c.id for c in chunks])
    assert [by_id[c.id].metadata for c in chunks] == [c.metadata for c in chunks]
    spans = store.chunk_spans("money.py")
    assert [s.qualified_name for s in spans] == [c.metadata.get("qualified_name", "") for c in chunks]

    # the split docstring is not copied into every part's row (nor into any chunk row)
    stored = store.conn.execute("SELECT metadata FROM chunks WHERE path='money.py'").fetchall()
    assert not any("rounding half to even" in m for (m,) in stored)
    assert sum(len(m) for (m,) in stored) < len(DOC)


def test_chunks_stay_joined_to_their_symbols_across_edits(tmp_path):
    (tmp_path / "money.py").write_text(SOURCE)
    (tmp_path / "other.py").write_text("def helper(x):\n    '''Help.'''\n    return x\n")
    store = IndexStore.for_workspace(tmp_path)
    sync_workspace(tmp_path, store, Config())

    # a definition added above the others renumbers the file's symbols; another file
    # written after it takes the next symbol ids
    edited = "def first(a, b):\n    '''First of all.'''\n    return a\n\n\n" + SOURCE
    (tmp_path / "money.py").write_text(edited)
    (tmp_path / "other.py").write_text("def helper(y):\n    '''Help more.'''\n    return y\n")
    sync_workspace(tmp_path, store, Config())
    assert as_read(store.chunks_in_file("money.py")) == analysed("money.py", edited)
    assert as_read(store.chunks_in_file("other.py")) == analysed("other.py", (tmp_path / "other.py").read_text())

    # an editor's buffer written over the disk version
    buffer = edited.replace("def convert(", "def exchange(")
    index_buffer(store, "money.py", buffer.encode(), ChunkSettings())
    assert as_read(store.chunks_in_file("money.py")) == analysed("money.py", buffer)
