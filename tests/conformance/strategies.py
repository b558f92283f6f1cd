"""Hypothesis strategies for store files, entries and operations, built from the pieces that
trip readers up: the section sign with and without its newlines, CRLF and CR, a BOM, tabs and
odd Unicode whitespace, duplicates, CJK, emoji (with and without a zero-width joiner) and the
invisible characters the releases' scan looks for."""

from __future__ import annotations

import itertools
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

SETTINGS = dict(deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


SCALE_ENV = "HMC_CONFORMANCE_SCALE"


def examples(n: int):
    """Modest, reproducible hypothesis settings (the default run stays well under a minute).
    HMC_CONFORMANCE_SCALE=K runs K times as many examples, freshly drawn (a deeper search)."""
    scale = max(1, int(os.environ.get(SCALE_ENV, "1") or 1))
    if scale == 1:
        return settings(max_examples=n, **SETTINGS)
    return settings(max_examples=n * scale, **{**SETTINGS, "derandomize": False})


WORDS = ["alpha", "beta", "Ada", "pytest", "uses ruff", "Debian 12", "foo", "foo bar", "bar",
         "x", "Project", "deploy", "Ünïcödé", "ß", "İ"]
ODD = [" ", "  ", "\t", "\u00a0", "\u3000", "\x85", "\u2028", "\x1c", "\v", "\f"]
CJK = ["中文", "日本語", "記憶", "한국어"]
EMOJI = ["😀", "🚀", "👩\u200d💻", "🏳️\u200d🌈", "✅"]
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u202e", "\u2066", "\u2064"]
SECTION = ["§", " § ", "§\n", "\n§"]

ATOMS = WORDS * 3 + ODD + CJK + EMOJI + INVISIBLE + SECTION + ["\n", "\r\n", "\r"]

SEPARATORS = (["\n§\n"] * 6 + ["\r\n§\r\n", "\r§\r", "\n § \n", "\n§ \n", "\n\t§\n", "\n§\t\n",
              "\n\n§\n", "\n§\n\n", "\n§\n§\n", "\n§\n \n§\n", "§", "\n", "\r\n§\n", "\n§\r\n"])
CLEAN_SEPARATORS = ["\n§\n"]

entry_text = st.lists(st.sampled_from(ATOMS), min_size=0, max_size=6).map("".join)
clean_word = st.sampled_from(WORDS + CJK + ["😀", "🚀", "✅"])
clean_entry = st.lists(clean_word, min_size=1, max_size=4).map(" ".join)


@st.composite
def store_text(draw, separators=SEPARATORS, entry=entry_text, max_entries=6):
    """A store file's text: entries (some repeated) joined by separators, maybe a BOM and a
    trailing newline or blank lines."""
    entries = draw(st.lists(entry, min_size=0, max_size=max_entries))
    if entries and draw(st.booleans()):
        entries.insert(draw(st.integers(0, len(entries))), draw(st.sampled_from(entries)))  # a duplicate
    seps = [draw(st.sampled_from(separators)) for _ in range(max(0, len(entries) - 1))]
    text = entries[0] if entries else ""
    for sep, e in zip(seps, entries[1:]):
        text += sep + e
    if draw(st.booleans()):
        text = "\ufeff" + text
    text += draw(st.sampled_from(["", "", "\n", "\r\n", "\n\n", " "]))
    return text


@st.composite
def store_bytes(draw, **kw):
    """Store-file bytes; one in eight holds a byte sequence that is not UTF-8."""
    data = draw(store_text(**kw)).encode("utf-8")
    if draw(st.integers(0, 7)) == 0:
        bad = draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf8\x88"]))
        at = draw(st.integers(0, len(data)))
        data = data[:at] + bad + data[at:]
    return data


class Scratch:
    """Fresh folders under one test's tmp_path (hypothesis runs many examples per test)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self._n = itertools.count(1)

    def __call__(self, prefix: str = "h") -> Path:
        return Path(tempfile.mkdtemp(prefix=f"{prefix}{next(self._n)}-", dir=self.root))
