"""Strict JSON → typed object conversion with messages that name the offending key.

Shared by the config file and the language server's request params: both are JSON
written by someone else, and both deserve "key 'port': expected an integer" rather
than a traceback or a silently coerced value.

cattrs is imported by the first converter, not with this module: a workspace without a
config file never converts anything, and the import was 7 ms of every CLI start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import cattrs

T = TypeVar("T")


class InvalidInput(ValueError):
    """Input of the wrong shape; the message names the key and what was expected."""


def _structure_strict(value: Any, typ: type) -> Any:
    """JSON has no int/bool/str ambiguity we want to paper over: `"10"` is not 10."""
    if typ is bool and not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    if typ is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise ValueError(f"expected an integer, got {value!r}")
    if typ is float and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise ValueError(f"expected a number, got {value!r}")
    if typ is str and not isinstance(value, str):
        raise ValueError(f"expected a string, got {value!r}")
    return typ(value)


def _structure_str_list(value: Any, typ: Any) -> list[str]:
    # Without this a bare string would be iterated into a list of characters.
    if not isinstance(value, list):
        raise ValueError(f"expected a list of strings, got {value!r}")  # noqa: TRY004 -- reported as a bad value
    return [_structure_strict(v, str) for v in value]


def strict_converter() -> cattrs.Converter:
    import cattrs

    converter = cattrs.Converter(forbid_extra_keys=True)
    for t in (bool, int, float, str):
        converter.register_structure_hook(t, _structure_strict)
    converter.register_structure_hook_func(lambda t: t == list[str], _structure_str_list)
    return converter


def structure(converter: cattrs.Converter, data: Any, cls: type[T], source: str) -> T:
    import cattrs  # loaded already: `converter` is one

    if not isinstance(data, dict):
        raise InvalidInput(f"{source}: expected a JSON object, got {type(data).__name__}")
    try:
        return converter.structure(data, cls)
    except (cattrs.BaseValidationError, ValueError, TypeError) as exc:
        if isinstance(exc, cattrs.BaseValidationError):
            messages = cattrs.transform_error(exc, path="$", format_exception=_format)
            problems = "; ".join(_describe(m) for m in messages)
        else:
            problems = str(exc)
        raise InvalidInput(f"{source}: {problems}") from None


def _format(exc: BaseException, typ: Any) -> str:
    import cattrs

    if isinstance(exc, KeyError):
        return "required key is missing"
    text = str(exc)
    if " not in literal " in text:
        value, _, allowed = text.partition(" not in literal ")
        options = allowed.removeprefix("typing.Literal[").rstrip("]")
        return f"{value!r} is not allowed, expected one of {options}"
    return cattrs.v.format_exception(exc, typ) if not isinstance(exc, ValueError) else text


def _describe(message: str) -> str:
    """cattrs says `... @ $.vector_store.port`; users know keys, not JSON paths."""
    text, _, where = message.rpartition(" @ ")
    key = where.removeprefix("$.").removeprefix("$")
    if "extra fields found" in text:
        names = text.split("extra fields found", 1)[1].strip(" ():")
        return f"unknown key(s) {names}" + (f" in {key}" if key else "")
    if not key:
        return text
    return f"key '{key}': {text}"
