"""Shell completion: `hmc completion bash|zsh|fish` prints a script made from hmc's own parser, and
`--profile` (and `memory move --to`) complete with the names of the home being typed, asked from
`hmc profiles --names`, which lists folders and opens no profile. The scripts are run in the real
shells where the box has them (bash always; zsh and fish when installed)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.runner import ROOT
from tui.cli.completion import tree
from tui.cli.main import main


@pytest.fixture
def home(tmp_path):
    base = tmp_path / "h"
    (base / "memories").mkdir(parents=True)
    for name in ("contenu", "ops"):
        (base / "profiles" / name).mkdir(parents=True)
        (base / "profiles" / name / "config.yaml").write_text("memory: {}\n")
    (base / "profiles" / "Bad Name").mkdir()  # Hermes refuses it: never offered
    (base / "profiles" / "half").mkdir()  # no marker file: not a profile for 0.22
    return base


@pytest.fixture
def bin_dir(tmp_path):
    """An `hmc` on PATH that runs this checkout (what an installed hmc is to the shell)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    launcher = folder / "hmc"
    launcher.write_text(f"#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m tui.cli \"$@\"\n")
    launcher.chmod(0o755)
    return folder


def script(capsys, shell: str) -> str:
    assert main(["completion", shell]) == 0
    return capsys.readouterr().out


def test_profile_names_come_from_the_folders_without_opening_a_profile(capsys, monkeypatch, home):
    import core.curator

    monkeypatch.setattr(core.curator, "open_curator", lambda *a, **k: pytest.fail("a profile was opened"))
    assert main(["--home", str(home), "profiles", "--names"]) == 0
    assert capsys.readouterr().out == "default\ncontenu\nops\n"


@pytest.mark.parametrize("where", ["missing", "file"])
def test_no_home_gives_no_names_and_no_error(capsys, tmp_path, where):
    target = tmp_path / "nothing"
    if where == "file":
        target.write_text("x")
    assert main(["--home", str(target), "profiles", "--names"]) == 0
    assert capsys.readouterr() == ("", "")


def test_every_command_subcommand_option_and_choice_is_in_the_scripts(capsys):
    commands = tree()
    bash, fish = script(capsys, "bash"), script(capsys, "fish")
    for name, (words, options, choices) in commands.items():
        for word in words + options + [v for values in choices.values() for v in values]:
            assert word in bash, (name, word)
            assert word.lstrip("-") in fish, (name, word)
    assert {"memory", "pending", "profiles", "completion"} <= set(commands[""][0])
    assert commands["memory list"][2]["--target"] == ["memory", "user"]


def _bash_cases(home: Path) -> list[tuple[list[str], list[str]]]:
    h = str(home)
    return [
        (["hmc", "--home", h, "--profile", ""], ["default", "contenu", "ops"]),
        (["hmc", "--home", h, "--profile", "o"], ["ops"]),
        (["hmc", "--home", h, "memory", "move", "-t", "memory", "x", "--to", ""], ["default", "contenu", "ops"]),
        (["hmc", "mem"], ["memory"]),
        (["hmc", "memory", "list", "--target", ""], ["memory", "user"]),
        (["hmc", "pending", "list", "--subsystem", ""], ["memory", "skills", "all"]),
        (["hmc", "completion", ""], ["bash", "zsh", "fish", "--help", "--json"]),
    ]


def _run(shell: list[str], code: str, bin_dir: Path) -> str:
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    out = subprocess.run(shell + [code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _quoted(words: list[str]) -> str:
    return " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)


def test_bash_completes_commands_choices_and_the_homes_profiles(capsys, tmp_path, home, bin_dir):
    if shutil.which("bash") is None:  # pragma: no cover
        pytest.skip("no bash here")
    (tmp_path / "c.bash").write_text(script(capsys, "bash"))
    cases = _bash_cases(home)
    code = f"source {tmp_path / 'c.bash'}\n" + "".join(
        f"COMP_WORDS=({_quoted(words)}); COMP_CWORD={len(words) - 1}; COMPREPLY=(); _hmc; echo \"${{COMPREPLY[*]}}\"\n"
        for words, _ in cases)
    lines = _run(["bash", "-c"], code, bin_dir).splitlines()
    assert [line.split() for line in lines] == [want for _, want in cases]


def test_zsh_completes_through_bashcompinit(capsys, tmp_path, home, bin_dir):
    if shutil.which("zsh") is None:  # pragma: no cover
        pytest.skip("no zsh here")
    (tmp_path / "c.zsh").write_text(script(capsys, "zsh"))
    cases = _bash_cases(home)
    # bashcompinit calls the function in sh emulation (arrays from 0): the same here
    code = (f"source {tmp_path / 'c.zsh'}\n"
            "t() { emulate -L sh; setopt kshglob noshglob braceexpand; COMP_WORDS=(\"$@\"); "
            "COMP_CWORD=$(( $# - 1 )); COMPREPLY=(); _hmc; echo \"${COMPREPLY[*]}\"; }\n"
            + "".join(f"t {_quoted(words)}\n" for words, _ in cases))
    lines = _run(["zsh", "-f", "-c"], code, bin_dir).splitlines()
    # zsh's compgen offers every word and zsh keeps those the typed word starts (compadd): the same here
    assert [[w for w in line.split() if w.startswith(words[-1])] for line, (words, _) in zip(lines, cases)] \
        == [want for _, want in cases]


def test_fish_completes_the_homes_profiles_and_choices(capsys, tmp_path, home, bin_dir):
    if shutil.which("fish") is None:  # pragma: no cover
        pytest.skip("no fish here")
    (tmp_path / "c.fish").write_text(script(capsys, "fish"))
    code = (f"source {tmp_path / 'c.fish'}; complete -C 'hmc --home {home} --profile '; echo ---; "
            "complete -C 'hmc memory list --target '; echo ---; complete -C 'hmc memory '")
    parts = [p.split() for p in _run(["fish", "--no-config", "-c"], code, bin_dir).split("---")]
    assert sorted(parts[0]) == ["contenu", "default", "ops"]
    assert sorted(parts[1]) == ["memory", "user"]
    assert {"list", "add", "move", "prompt"} <= set(parts[2])
