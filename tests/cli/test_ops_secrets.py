"""The secrets agents really write in ops work (issue 34): a Grafana token, a Datadog key named by
its context, a password said in a sentence, a Sentry DSN. `memory add` refuses each (until
--force), and an entry already holding one is masked in `memory list`. Secrets built at run time
from a seeded Random."""

from __future__ import annotations

import random
import string

import pytest

from core.store.memory import serialize
from tests.cli.runner import hmc

RNG = random.Random(34)
ALNUM = string.ascii_letters + string.digits


def _r(alphabet: str, n: int) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


HEX = "0123456789abcdef"
CASES = {
    "grafana": ("Grafana service token is ", "gl" + "sa_" + _r(ALNUM, 32) + "_" + _r(HEX, 8)),
    "datadog": ("Datadog API key is ", _r(HEX, 32)),
    "password": ("The staging DB password is ", "Tr0ub4dor-" + _r(ALNUM, 4)),
    "sentry": ("Sentry: https://", _r(HEX, 32) + "@o4504.ingest.sentry.io/4505"),
    "mot de passe": ("Le mot de passe de la base est ", _r(ALNUM, 12) + "!" + _r(ALNUM, 3)),
    "密码": ("数据库密码是", _r(ALNUM, 12) + "#" + _r(ALNUM, 3)),
}


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "hermes"
    (home / "memories").mkdir(parents=True)
    (home / "memories" / "MEMORY.md").write_text(serialize(["Project uses pnpm"]), encoding="utf-8")
    return home


@pytest.mark.parametrize("name", CASES)
def test_memory_add_refuses_it_and_memory_list_masks_it(home, name):
    head, secret = CASES[name]
    out = hmc("memory", "add", "-t", "memory", head + secret, home=home)
    assert out.returncode == 1 and "security scan flagged" in out.stderr and secret not in out.stderr
    assert secret not in (home / "memories" / "MEMORY.md").read_text(encoding="utf-8")
    (home / "memories" / "MEMORY.md").write_text(serialize(["Project uses pnpm", head + secret]), encoding="utf-8")
    listed = hmc("memory", "list", "-t", "memory", home=home).stdout
    key = secret.split("@")[0]
    assert key not in listed and head.strip()[:10] in listed
    assert key in hmc("memory", "list", "-t", "memory", "--reveal", home=home).stdout
