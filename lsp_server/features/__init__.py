"""Feature modules, each with a `register(server)`; adding one is one line here."""

from __future__ import annotations

from . import documents, index_requests, navigation, watcher

FEATURES = [documents.register, navigation.register, index_requests.register, watcher.register]
