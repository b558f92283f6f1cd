"""Texts a scan found clean, remembered between runs of the command line: the ones hmc's scanner
found no secret in, and the entries the release's own threat scan lets into the prompt.

Every string the command line prints is masked (core.scan.mask), and a string that passes the
masker's quick filter (any path, session id or 16-character word does) costs a full scan: the
scanner's import and ~100 patterns compiled (~35 ms), then ~0.3 ms a string. The same paths, ids
and entries come back run after run (`hmc status --json` in a shell prompt, a script polling
`hmc pending list --json`), so the command line keeps a digest of each text a full scan found
clean, and a later run skips the scan for a text whose digest is kept.

The same goes for Hermes's threat scan (core.hermes.scan), which `hmc status` and `hmc memory list`
run on every entry for the prompt's figures: its ~40 patterns are compiled only when an entry is new.
For that scan a flagged entry is kept too, as which of the table's patterns matched (a rule's
number, never where or what: the release blocks the whole entry either way).

For hmc's own scans only "nothing found" is kept, never a secret or where one is: a text they find
anything in is scanned every time. A digest is BLAKE2b-128 of the text's UTF-8, keyed with the
scan it stands for (the masker's secrets; hmc's whole scan under a release, "scan 0.22.2"; the
release's own table, "hermes t2"), so one scan's verdict is never read as another's. The file is
`<user cache dir>/hmc/clean-texts.cache`, private (0600), in the frame every hmc cache has
(core.hmc_cache: a torn or edited file is never read); its body is a fingerprint of the scanner (a
SHA-256 of core/scan's sources, the release scan it imports, this file, the Python and Unicode
versions: any change to a rule, a lexicon or the masker's filter makes every kept digest void), then the
digests, oldest first, at most MAX_KEPT. The TUI `hmc` opens doesn't use it: a long-running process
keeps its own verdicts in memory.
"""

from __future__ import annotations

import hashlib
import sys
import unicodedata
from pathlib import Path

from core.hermes import scan as hermes_scan
from core.scan import mask

MAX_KEPT = 8192          # digests kept (16 bytes each: 128 KiB at most)
MAX_TEXT_CHARS = 65_536  # a longer text is scanned every time (its verdict isn't worth keeping)
DIGEST_BYTES = 16
FILE_NAME = "clean-texts.cache"


def digest(text: str, kind: str = "") -> bytes:
    """`kind`: the scan whose verdict it keys ("": the masker's secrets), BLAKE2b's key."""
    key = kind.encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=DIGEST_BYTES,
                           key=key if len(key) <= 64 else hashlib.sha256(key).digest()).digest()


def sources() -> list[Path]:
    """The sources a scan's verdict comes from: core/scan (every rule, lexicon and the masker's
    filter), the release scan the scanner imports (core/hermes/scan.py, release.py), and this file
    (what each kind of verdict means)."""
    core = Path(__file__).resolve().parent
    return sorted((core / "scan").glob("*.py")) + [core / "hermes" / "scan.py", core / "hermes" / "release.py",
                                                   core / "clean_texts.py"]


def fingerprint() -> bytes:
    """What the kept verdicts hold for: the sources above, Python's version (its `re`) and the
    Unicode data (NFKC)."""
    from core.store.atomic import read_regular

    h = hashlib.sha256(f"{sys.version}\n{unicodedata.unidata_version}\n".encode())
    for source in sources():
        h.update(f"{source.parent.name}/{source.name}".encode() + b"\0" + read_regular(source) + b"\0")
    return h.digest()


class CleanTexts:
    """The kept digests of one cache file, read when first asked, written by `save` when it gained any."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._kept: dict[bytes, None] | None = None  # insertion-ordered: the oldest first
        self._print: bytes | None = None
        self._added = False

    def _load(self) -> dict[bytes, None]:
        if self._kept is None:
            self._kept = {}
            try:
                self._print = fingerprint()
            except OSError:  # a source that can't be read: nothing is kept, or trusted
                return self._kept
            from core.hmc_cache import framed_body
            from core.store.atomic import read_regular

            try:
                checked = framed_body(read_regular(self.path, 64 + MAX_KEPT * DIGEST_BYTES + 128))
            except OSError:
                checked = None  # none yet, unreadable, too large or not a regular file: start empty
            if checked is not None:
                body = bytes(checked[0])
                if body[:32] == self._print and (len(body) - 32) % DIGEST_BYTES == 0:
                    self._kept = dict.fromkeys(body[at:at + DIGEST_BYTES] for at in range(32, len(body), DIGEST_BYTES))
        return self._kept

    def __contains__(self, text: str) -> bool:
        return self.holds(text)

    def add(self, text: str) -> None:
        """Keep `text` as one a full scan found no secret in."""
        self.keep(text)

    def holds(self, text: str, kind: str = "") -> bool:
        """True when the `kind` scan found `text` clean in a run before."""
        return len(text) <= MAX_TEXT_CHARS and digest(text, kind) in self._load()

    def keep(self, text: str, kind: str = "") -> None:
        """Keep `text` as one the `kind` scan found clean: as the newest digest, also when it was
        kept already (digests kept together stay in the order they were kept: core.hermes.scan keeps
        a flagged verdict first and its patterns after it, so the oldest-first cut never leaves the
        verdict without a pattern it had)."""
        if len(text) > MAX_TEXT_CHARS:
            return
        kept, key = self._load(), digest(text, kind)
        kept.pop(key, None)
        kept[key] = None
        self._added = True

    def save(self) -> None:
        """Write the digests kept (the newest MAX_KEPT) when this run added any; a cache that can't
        be written costs only the scans it would have saved."""
        if not self._added or self._kept is None or self._print is None:
            return
        from core.hmc_cache import frame
        from core.store.atomic import private_dir, write_private

        keys = list(self._kept)[-MAX_KEPT:]
        body = self._print + b"".join(keys)
        try:
            private_dir(self.path.parent)
            write_private(self.path, frame(body) + body, durable=False)  # atomic; a lost cache only costs scans
            self._added = False
        except OSError:
            pass


def activate(path: Path | None = None) -> CleanTexts:
    """Remember clean texts in this process (the command line), in hmc's cache unless `path`: the
    masker (core.scan.mask, a lower layer) is handed them."""
    if path is None:
        from core.hmc_cache import hmc_cache

        path = hmc_cache() / FILE_NAME
    mask.kept_clean = hermes_scan.kept_clean = CleanTexts(path)
    return mask.kept_clean


def active() -> CleanTexts | None:
    return mask.kept_clean


def deactivate() -> None:
    """Write what was kept and stop keeping."""
    kept, mask.kept_clean, hermes_scan.kept_clean = mask.kept_clean, None, None
    if kept is not None:
        kept.save()
