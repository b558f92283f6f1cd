"""hmc's whole scan for texts that come back run after run: `scan(text, release)` is
`scanner.scan`, except that on the command line a text a run before found nothing at all in
(core.clean_texts, handed over as core.scan.mask.kept_clean) isn't scanned again, and the scanner
(~35 ms to load and compile) isn't loaded for it. `hmc pending list` inspects every staged record
on every run: the same texts each time.

Only "nothing found" is kept, for one release's rules ("scan 0.22.2": which of hmc's findings the
release's own scan blocks depends on it). A text with any finding is scanned every time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.scan import mask

if TYPE_CHECKING:  # pragma: no cover
    from core.hermes.release import Release


def scan(text: str, release: "Release | None" = None) -> list[Any]:
    """scanner.scan(text, release): every finding, most severe first."""
    kept = mask.kept_clean
    kind = ""
    if kept is not None and type(text) is str:
        from core.hermes.release import NEWEST

        kind = f"scan {(release or NEWEST).name}"
        if kept.holds(text, kind):
            return []
    from core.scan import scanner

    found = scanner.scan(text, release)
    if kind and not found:
        kept.keep(text, kind)
    return found
