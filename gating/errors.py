"""The one error the engine raises for bad or untimely requests.

It subclasses `InvalidInput` so the language server's existing edge turns it into
`InvalidParams`; the MCP bridge turns it into a tool error. `code` is stable for
programs, `message` says what was wrong and what to do, `details` carries the lists
(unknown symbols, allowed phases, …) the agent needs to act.
"""

from __future__ import annotations

from typing import Any

from code_intel.indexing.validation import InvalidInput


class GatingError(InvalidInput):
    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        return {"error": self.code, "message": self.message, **self.details}
