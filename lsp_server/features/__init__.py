"""Feature modules, each with a `register(server)`; adding one is one line here."""

from __future__ import annotations

from . import commands, documents, index_requests, navigation, search_requests, session, watcher

FEATURES = [
    documents.register,
    navigation.register,
    index_requests.register,
    search_requests.register,
    session.register,
    commands.register,
    watcher.register,
]
