"""`codeIntel/semanticSearch` and `codeIntel/query` over the workspace's search
service. While the model loads, semantic search answers `initializing` with a retry
delay and the hybrid query answers from its lexical and definition signals."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from .. import protocol as p
from ..protocol import custom_request

if TYPE_CHECKING:
    from ..server import CodeIntelServer


async def _off_loop(fn: Any, *args: Any) -> Any:
    """Embedding a query and reading Chroma take milliseconds to seconds: off the loop,
    with bad input reported as InvalidParams."""
    from code_intel.indexing.search import SearchError  # loaded with the service

    try:
        return await asyncio.get_running_loop().run_in_executor(None, fn, *args)
    except SearchError as exc:
        raise JsonRpcInvalidParams(str(exc)) from None


def register(server: CodeIntelServer) -> None:
    @custom_request(server, p.SEMANTIC_SEARCH, p.SemanticSearchParams)
    async def semantic_search(ls: CodeIntelServer, params: p.SemanticSearchParams) -> dict[str, Any]:
        search = await ls.hub.services.ready("search")
        return await _off_loop(
            search.semantic_search_answer, params.query, params.collection, params.n_results
        )

    @custom_request(server, p.QUERY, p.QueryParams)
    async def query(ls: CodeIntelServer, params: p.QueryParams) -> dict[str, Any]:
        search = await ls.hub.services.ready("search")
        result = await _off_loop(search.query, params.text, params.top, params.fusion, params.include_prose)
        return result.to_json()
