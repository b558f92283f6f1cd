"""Measured quality of the scanner on the corpora in tests/corpora.

Floors: secrets recall >= 0.95, injection recall >= 0.9 (and >= 0.8 in every language),
benign notes flagged at warning or above <= 2%. The figures are printed on one line.
Note the injection corpus includes batches that were added after the rules were widened
for them; tests/corpora/injections.py records how each batch scored on first contact.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from core.scan.scanner import SEVERITY_ORDER, hermes_scan, scan
from tests.corpora.benign import BENIGN
from tests.corpora.injections import all_injections
from tests.corpora.secrets import build_secret_samples

WARNING = SEVERITY_ORDER["warning"]


@dataclass(frozen=True)
class Quality:
    secrets: tuple[int, int]
    injections: tuple[int, int]
    per_language: dict[str, tuple[int, int]]
    benign: tuple[int, int]
    misses: list[str]

    def line(self) -> str:
        s, i, b = self.secrets, self.injections, self.benign
        return (f"scanner quality: secrets recall {s[0] / s[1]:.2f} ({s[0]}/{s[1]}), "
                f"injections recall {i[0] / i[1]:.2f} ({i[0]}/{i[1]}), "
                f"benign flagged {100 * b[0] / b[1]:.1f}% ({b[0]}/{b[1]})")


def _measure() -> Quality:
    misses: list[str] = []
    samples = build_secret_samples()
    found_secrets = 0
    for s in samples:
        at = s.text.index(s.secret)
        hit = any(f.secret and SEVERITY_ORDER[f.severity] >= WARNING
                  and f.start < at + len(s.secret) and at < f.end for f in scan(s.text))
        found_secrets += hit
        if not hit:
            misses.append(f"secret {s.provider}")
    per_language: dict[str, list[int]] = {}
    for lang, text in all_injections():
        hit = any(not f.secret and SEVERITY_ORDER[f.severity] >= WARNING for f in scan(text))
        counts = per_language.setdefault(lang, [0, 0])
        counts[0] += hit
        counts[1] += 1
        if not hit:
            misses.append(f"injection {lang}: {text}")
    flagged = 0
    for lang, text in BENIGN:
        loud = [f for f in scan(text) if SEVERITY_ORDER[f.severity] >= WARNING]
        flagged += bool(loud)
        if loud:
            misses.append(f"benign {lang} flagged ({loud[0].rule}): {text}")
    inj = (sum(c[0] for c in per_language.values()), sum(c[1] for c in per_language.values()))
    return Quality((found_secrets, len(samples)), inj,
                   {k: (v[0], v[1]) for k, v in per_language.items()},
                   (flagged, len(BENIGN)), misses)


@pytest.fixture(scope="module")
def quality() -> Quality:
    return _measure()


def test_corpus_sizes():
    assert len(build_secret_samples()) >= 60
    langs: dict[str, int] = {}
    for lang, _ in all_injections():
        langs[lang] = langs.get(lang, 0) + 1
    assert set(langs) == {"en", "fr", "es", "it", "ru", "zh"} and min(langs.values()) >= 10
    assert len(BENIGN) >= 150
    assert {lang for lang, _ in BENIGN} == {"en", "fr", "es", "it", "ru", "zh"}


def test_benign_corpus_is_free_of_hermes_patterns():
    assert [t for _, t in BENIGN if hermes_scan(t) is not None] == []


def test_quality_floors(quality, capsys):
    with capsys.disabled():
        print("\n" + quality.line())
        for m in quality.misses:
            print("  " + m)
    found, total = quality.secrets
    assert found / total >= 0.95
    found, total = quality.injections
    assert found / total >= 0.90
    for lang, (found, total) in quality.per_language.items():
        assert found / total >= 0.80, lang
    flagged, total = quality.benign
    assert flagged / total <= 0.02
