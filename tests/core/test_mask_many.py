"""A secret is found however many harmless look-alikes come before it (issue 34's probe: the
scanner counted ten rejected "name: word" candidates per rule and stopped, so a password after ten
"S0: reboot." pairs was neither refused nor masked)."""

from __future__ import annotations

import random
import string

import pytest

from core.scan import scanner
from core.scan.mask import Masker


def _password(seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choices(string.ascii_letters, k=8)) + "".join(rng.choices(string.digits, k=3)) + "-Xq"


@pytest.mark.parametrize("before", [0, 9, 10, 11, 50, 400])
def test_a_secret_after_many_harmless_pairs_is_found_and_masked(before):
    secret = _password(before)
    text = " ".join(f"S{i}: rebootx." for i in range(before)) + f" The staging DB password is {secret}"
    assert any(f.secret and text[f.start:f.end] == secret for f in scanner.scan(text)), before
    assert secret not in Masker()(text)


def test_many_secrets_in_one_text_are_all_masked():
    secrets = [_password(1000 + i) for i in range(30)]
    text = "\n".join(f"service {i} password: {s}" for i, s in enumerate(secrets))
    shown = Masker()(text)
    assert not [s for s in secrets if s in shown]


def test_why_never_prints_part_of_a_key_it_cuts(tmp_path, capsys):
    """`hmc why` cut its evidence lines at 90 characters before they were masked, so a key the cut
    split showed its first characters (issue 34's probe: `sk-proj-dywAO6kvN…`)."""
    from core.store.memory import serialize
    from tui.cli.main import main

    rng = random.Random(34)
    key = "sk-" + "proj-" + "".join(rng.choices(string.ascii_letters + string.digits, k=40))
    entry = f"zork filler words zork filler words zork filler words zork fPaylane key {key} end."
    (tmp_path / "memories").mkdir()
    (tmp_path / "memories" / "MEMORY.md").write_text(serialize([entry]), encoding="utf-8")
    assert main(["--home", str(tmp_path), "why", "zork filler"]) in (0, 1)
    out = capsys.readouterr().out
    assert "zork filler" in out
    assert not [key[i:i + 8] for i in range(3, len(key) - 8) if key[i:i + 8] in out]
