"""core.scan.mask.clip: a text cut short never shows part of a secret. On seeded random texts with
keys of several families at random places, cut at random windows, every cut lands outside every
key, so a masker run later masks every key it sees whole; and a key that fits is kept. A failure
prints its seed. Keys are built at run time."""

from __future__ import annotations

import random
import string

import pytest

from core.scan.mask import clip, mask_untrusted, secrets_in

ALNUM = string.ascii_letters + string.digits


def keys(rng: random.Random) -> list[str]:
    return ["sk-proj-" + "".join(rng.choice(ALNUM) for _ in range(48)),
            "ghp_" + "".join(rng.choice(ALNUM) for _ in range(36)),
            "AKIA" + "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(16))]


@pytest.mark.parametrize("seed", range(12))
def test_a_cut_never_lands_inside_a_secret(seed):
    rng = random.Random(seed)
    words = ["deploy", "the", "token", "is", "staging", "db", "on", "port", "8443", "é", "密码"]
    for n in range(60):
        parts = [rng.choice(words) for _ in range(rng.randrange(3, 30))]
        secret = rng.choice(keys(rng))
        parts.insert(rng.randrange(len(parts) + 1), secret)
        text = " ".join(parts)
        assert secret in secrets_in(text), f"seed {seed}: the scanner must see the key in {text!r}"
        width, start = rng.randrange(1, len(text) + 5), rng.choice([0, 0, rng.randrange(len(text))])
        got = clip(text, width, start, mark="")
        at = text.find(got) if got else 0
        assert got == "" or text[at:at + len(got)] == got
        s, e = text.find(secret), text.find(secret) + len(secret)
        if got:
            assert not (s < at < e) and not (s < at + len(got) < e), f"seed {seed}, #{n}: cut inside the key: {got!r}"
            masked = mask_untrusted(got)
            assert secret[:8] not in masked or secret in got, f"seed {seed}, #{n}: part of a key shows: {masked!r}"
        if start == 0 and e <= width:
            assert secret in got, f"seed {seed}, #{n}: a key that fits was dropped"


def test_the_marks_say_where_text_was_left_out():
    text = "one two three four five"
    assert clip(text, 100) == text
    assert clip(text, 7) == "one two…"
    assert clip(text, 5, start=4) == "…two t…"
    key = keys(random.Random(1))[0]
    assert clip(f"the key is {key} ok", 20) == "the key is …"  # the key left out whole
    assert clip(f"the key is {key} ok", 20, start=15) == "…"
