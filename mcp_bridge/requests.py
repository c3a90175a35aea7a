"""From a tool call to a `codeIntel/*` request: check the arguments against the
tool's schema, fill in the session the bridge remembers, and remember new ones.

Pure logic. The bridge checks arguments itself so that a typo gets an answer naming
the field before anything reaches the server; the server checks them again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema

from .tools import SessionArg, ToolSpec

_INT = re.compile(r"-?\d+")


class ArgumentError(ValueError):
    """The arguments do not fit the tool's input schema; the message names the field."""


def coerce_scalars(spec: ToolSpec, args: Mapping[str, Any]) -> dict[str, Any]:
    """Some clients send every argument as a string (`--tool-arg limit=5`): turn a
    string that is unmistakably an integer or a boolean into one where the schema
    asks for that type. Anything else is left for validation to report."""
    out = dict(args)
    for key, value in args.items():
        kind = spec.properties.get(key, {}).get("type")
        if not isinstance(value, str):
            continue
        if kind == "integer" and _INT.fullmatch(value.strip()):
            out[key] = int(value)
        elif kind == "boolean" and value.strip().lower() in ("true", "false"):
            out[key] = value.strip().lower() == "true"
    return out


def validate_arguments(spec: ToolSpec, args: Mapping[str, Any] | None) -> dict[str, Any]:
    """The arguments as a dict, or ArgumentError listing every problem by field."""
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        raise ArgumentError(f"{spec.name}: arguments must be a JSON object")
    data = coerce_scalars(spec, args)
    validator = jsonschema.Draft202012Validator(spec.input_schema())
    problems = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if problems:
        lines = [_describe(e) for e in problems[:8]]
        raise ArgumentError(f"{spec.name}: invalid arguments: " + "; ".join(lines))
    return data


def _describe(error: jsonschema.ValidationError) -> str:
    message = error.message
    if error.context:  # anyOf: say what the closest branch needs, not "none matched"
        wrong_type = [e for e in error.context if e.validator == "type"]
        other = [e for e in error.context if e.validator != "type"]
        if other:
            error = max(other, key=lambda e: len(e.absolute_path))
            message = error.message
        else:
            kinds = " or ".join(str(e.validator_value) for e in wrong_type)
            message = f"{error.instance!r} must be {kinds}"
    where = "".join(
        f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p))
        for i, p in enumerate(error.absolute_path)
    )
    return f"{where}: {message}" if where else message


@dataclass
class SessionMemory:
    """The session this conversation works in.

    start_session's answer sets it; a session the agent names explicitly is adopted
    when none is remembered yet (e.g. after the bridge restarted); end_session of the
    remembered session forgets it. Index requests and session requests without a
    `session_id` get this one, so the server gates and counts them.
    """

    session_id: str | None = None

    def needs_session(self, spec: ToolSpec, args: Mapping[str, Any]) -> bool:
        """A session request that cannot be sent: no session given, none remembered."""
        return (
            spec.session is SessionArg.SESSION
            and "session_id" not in args
            and self.session_id is None
        )

    def params_for(self, spec: ToolSpec, args: Mapping[str, Any]) -> dict[str, Any]:
        params = dict(args)
        if (
            spec.session is not SessionArg.NONE
            and "session_id" not in params
            and self.session_id is not None
        ):
            params["session_id"] = self.session_id
        return params

    def observe(self, spec: ToolSpec, params: Mapping[str, Any], answer: Any) -> None:
        """Update the memory from a successful call."""
        if not isinstance(answer, Mapping):
            return
        if spec.name == "start_session" and isinstance(answer.get("session_id"), str):
            self.session_id = answer["session_id"]
        elif spec.name == "end_session" and params.get("session_id") == self.session_id:
            self.session_id = None
        elif (
            self.session_id is None
            and spec.session is SessionArg.SESSION
            and isinstance(params.get("session_id"), str)
            and answer.get("status") not in ("initializing", "ended", "expired")
        ):
            self.session_id = params["session_id"]
