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
