"""tools/screenshots.py saves SVGs that keep their spaces in librsvg too (rsvg-convert dropped the
NBSPs at the ends of Rich's text runs: "a add" read "aadd")."""

from __future__ import annotations

import re
from pathlib import Path

from tools.screenshots import save, spaces_kept

RICH = ('<svg class="rich-terminal" viewBox="0 0 10 10" xmlns="http://www.w3.org/2000/svg">\n'
        '<text class="r1" x="0" y="20" textLength="12">a</text>'
        '<text class="r2" x="12" y="20" textLength="48">&#160;add&#160;</text></svg>\n')


def test_the_root_says_whitespace_is_preserved_and_the_text_is_unchanged():
    kept = spaces_kept(RICH)
    assert re.match(r'<svg xml:space="preserve" class="rich-terminal"', kept)
    assert kept.replace(' xml:space="preserve"', "", 1) == RICH
    assert spaces_kept(kept) == kept  # once


def test_save_writes_the_kept_svg(tmp_path: Path):
    class App:
        def save_screenshot(self, path: str) -> None:
            Path(path).write_text(RICH, encoding="utf-8")

    out = tmp_path / "shot.svg"
    save(App(), out)
    assert out.read_text(encoding="utf-8") == spaces_kept(RICH)
