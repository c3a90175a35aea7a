"""The stdio front end's pure parts: the first frame read without losing what follows,
which `initialize` requests may be answered early, and a cache that goes stale with
the files that decide the answer."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from code_intel.lsp_server import front


def _frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": 7, "capabilities": {}}}


def test_the_first_frame_is_read_without_losing_the_frames_behind_it():
    second = _frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    stream = io.BufferedReader(io.BytesIO(_frame(INIT) + second))
    raw, body = front.read_first_frame(stream)
    assert raw == _frame(INIT) and json.loads(body) == INIT
    assert stream.read() == second


@pytest.mark.parametrize("data", [b"", b"Content-Length: x\r\n\r\n{}", b"Content-Length: 99\r\n\r\n{}"])
def test_a_broken_first_frame_is_kept_for_the_server_to_report(data):
    stream = io.BufferedReader(io.BytesIO(data))
    raw, body = front.read_first_frame(stream)
    assert body is None
    assert raw + stream.read() == data  # replayed, then read on: the same bytes


@pytest.mark.parametrize(
    "change",
    [
        {"method": "shutdown"},
        {"id": True},
        {"id": None},
        {"jsonrpc": "1.0"},
        {"params": {"processId": True, "capabilities": {}}},
        {"params": {"processId": "7", "capabilities": {}}},
        {"params": {"processId": 7}},
        {"params": {"capabilities": {}, "trace": "loud"}},
        {"params": {"capabilities": {}, "unknownField": 1}},
        {"params": {"capabilities": {}, "workspaceFolders": [{"uri": "file:///x"}]}},
        {"params": {"capabilities": {}, "clientInfo": {"version": "1"}}},
    ],
)
def test_only_a_well_formed_initialize_is_answered_early(change):
    assert front.parse_initialize(json.dumps({**INIT, **change}).encode()) is None


def test_a_well_formed_initialize_is_recognised():
    params = {
        "processId": None, "rootUri": "file:///w", "capabilities": {"general": {}}, "trace": "off",
        "clientInfo": {"name": "nvim"}, "initializationOptions": {"token": "t"},
        "workspaceFolders": [{"uri": "file:///w", "name": "w"}],
    }
    assert front.parse_initialize(json.dumps({**INIT, "params": params}).encode())["params"] == params


def test_the_cache_answers_only_its_fingerprint_and_capabilities(tmp_path: Path):
    path = str(tmp_path / "c" / front.CACHE_FILE)
    front.store_result(path, "fp1", {"a": 1}, {"capabilities": {"x": 1}})
    front.store_result(path, "fp1", {"b": 2}, {"capabilities": {"x": 2}})
    entries = front.load_entries(path)
    assert front.cached_result(entries, "fp1", {"a": 1}) == {"capabilities": {"x": 1}}
    assert front.cached_result(entries, "fp1", {"b": 2}) == {"capabilities": {"x": 2}}
    assert front.cached_result(entries, "fp2", {"a": 1}) is None
    front.store_result(path, "fp2", {"a": 1}, {"capabilities": {"x": 3}})
    assert front.load_entries(path) == [{"fingerprint": "fp2", "capabilities": {"a": 1}, "result": {"capabilities": {"x": 3}}}]


def test_an_unreadable_cache_is_a_miss(tmp_path: Path):
    path = tmp_path / front.CACHE_FILE
    path.write_text("{not json")
    assert front.load_entries(str(path)) == []


def test_the_fingerprint_changes_with_the_protocol_library(tmp_path: Path, monkeypatch):
    fake = tmp_path / "pygls"
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    (fake / "capabilities.py").write_text("A = 1\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    before = front.fingerprint()
    assert front.fingerprint() == before
    (fake / "capabilities.py").write_text("A = 22\n")
    assert front.fingerprint() != before


def test_the_cache_lives_under_xdg_cache_home():
    assert front.cache_path({"XDG_CACHE_HOME": "/c"}) == f"/c/code-intel/{front.CACHE_FILE}"
