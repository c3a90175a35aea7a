"""`code-intel index` leaves without the interpreter's teardown (0.06-0.09 s after a
large build): what the command printed and its exit status must survive that."""

from __future__ import annotations

import sys

import pytest

from code_intel import cli


class Exited(Exception):
    def __init__(self, code: int) -> None:
        self.code = code


@pytest.fixture
def exits(monkeypatch):
    def fake_exit(code: int) -> None:
        raise Exited(code)

    monkeypatch.setattr("os._exit", fake_exit)


def leave(run) -> int:
    with pytest.raises(Exited) as left:
        cli.exit_without_teardown(run)
    return left.value.code


def test_a_finished_command_leaves_with_status_0_and_its_output_flushed(exits, capsys):
    def command() -> None:
        sys.stdout.write("summary without a newline")  # only a flush gets this out

    assert leave(command) == 0
    assert capsys.readouterr().out == "summary without a newline"


def test_the_commands_exit_status_is_kept(exits):
    def fails() -> None:
        raise SystemExit(2)

    def typer_done() -> None:
        raise SystemExit(0)

    def bare() -> None:
        raise SystemExit

    assert leave(fails) == 2
    assert leave(typer_done) == 0
    assert leave(bare) == 0


def test_an_exit_message_is_printed_and_the_status_is_1(exits, capsys):
    def message() -> None:
        raise SystemExit("no workspace here")

    assert leave(message) == 1
    assert "no workspace here" in capsys.readouterr().err


def test_other_exceptions_are_not_swallowed(exits):
    def broken() -> None:
        raise RuntimeError("bug")

    with pytest.raises(RuntimeError):
        cli.exit_without_teardown(broken)
