"""Every subcommand's --help says what the command does (issue 36): the line after the usage is a
description, not straight to the options. Run as a person runs it (`hmc <words> --help`: the
parser main builds for those words, only the command's own module loaded)."""

from __future__ import annotations

import argparse

import pytest

from tui.cli.main import build_parser, main

SECTIONS = ("options:", "positional arguments:", "optional arguments:")


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                out.append(path + (name,))
                out += commands(child, path + (name,))
    return out


ALL = commands(build_parser())


def test_the_walk_finds_the_commands_and_their_operations():
    assert {("status",), ("doctor",), ("memory", "add"), ("pending", "approval"), ("log",)} <= set(ALL)


@pytest.mark.parametrize("words", ALL, ids=" ".join)
def test_every_subcommand_help_has_a_description(words, capsys):
    with pytest.raises(SystemExit) as done:
        main([*words, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    blocks = [b.strip() for b in out.split("\n\n") if b.strip()]
    assert blocks[0].startswith("usage: hmc " + " ".join(words))
    assert len(blocks) > 1 and blocks[1].split("\n")[0] not in SECTIONS, \
        f"`hmc {' '.join(words)} --help` has no description line:\n{out}"


@pytest.mark.parametrize("words", [("status",), ("doctor",)], ids=" ".join)
def test_status_and_doctor_say_what_they_do(words, capsys):
    with pytest.raises(SystemExit):
        main([*words, "--help"])
    out = " ".join(capsys.readouterr().out.split("\n\n")[1].split())
    assert "Exit " in out and ("usage and drift" in out if words == ("status",) else "Hermes installed here" in out)
