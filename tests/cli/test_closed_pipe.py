"""A closed pipe ends a command quietly (`hmc log | head -1`), with exit 0 and nothing on stderr, as
other command-line tools do: never exit 1 (the code for refusals and findings), never "can't read:
broken pipe", never a traceback. The reader here is gone before hmc writes its first byte, so every
command meets the closed pipe on its first write."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.cli.runner import ROOT


@pytest.fixture(scope="module")
def demo(demo_module):
    return demo_module


COMMANDS = [
    ["log"], ["log", "--json"], ["search", "deploy"], ["search", "deploy", "--json"], ["memory", "list"],
    ["memory", "list", "--json"], ["memory", "prompt"], ["pending", "list"], ["pending", "list", "--subsystem", "skills"],
    ["pending", "list", "--subsystem", "all"], ["pending", "list", "--json"], ["sessions"], ["status"],
    ["status", "--json"], ["blame"], ["review"], ["log", "--chart"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_reader_that_went_away_ends_the_command_quietly(demo, command):
    read, write = os.pipe()
    os.close(read)  # the reader is gone: the first write meets a closed pipe
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1",
               PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p))
    proc = subprocess.run([sys.executable, "-m", "tui.cli", "--home", str(demo), "--today", "2026-11-15", *command],
                          stdout=write, stderr=subprocess.PIPE, text=True, env=env, timeout=120)
    os.close(write)
    assert (proc.returncode, proc.stderr) == (0, ""), command
