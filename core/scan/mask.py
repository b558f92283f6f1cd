"""Masking secrets for display (`sk-…9f2a`): the one masker, shared by the command line and the TUI.

`Masker` scans each string it is given (and the texts a message was built from) with hmc's scanner
and masks every secret it finds, also where a message quotes one cut short; `reveal=True` shows
them as they are. Imports only core.scan.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any, Iterable

SCAN_WINDOW = 65_536        # the scanner's own cap per call
SCAN_OVERLAP = 1_024        # a secret across a window edge is still seen whole
MASK_SCAN_LIMIT = 1_000_000  # past this, text is not printed at all unless revealed
MIN_PREFIX = 8              # a known secret cut short (`AKIAQWER…`) is masked from this length
MAX_DEPTH = 64              # JSON output shows nested values this deep


# On the command line, the texts a run before found clean (core.clean_texts sets it): anything with
# `text in kept_clean` and `kept_clean.add(text)`.
kept_clean: Any = None


def secrets_in(text: str) -> tuple[str, ...]:
    """Every secret value the scanner finds in `text` (scanned in windows, up to MASK_SCAN_LIMIT).
    On the command line, a text a run before found clean isn't scanned again (core.clean_texts)."""
    if len(text) <= SCAN_WINDOW and not maybe_secret(text):
        return ()  # nothing the scanner could find: cheaper to see again than to look up
    kept = kept_clean
    if kept is not None and text in kept:
        return ()
    found = _secrets_cached(text) if len(text) <= 4_096 else _secrets(text)  # a short text recurs often
    if kept is not None and not found and maybe_secret(text[:SCAN_WINDOW]):  # it cost a full scan: kept
        kept.add(text)
    return found


@lru_cache(maxsize=4096)
def _secrets_cached(text: str) -> tuple[str, ...]:
    return _secrets(text)


# A secret the scanner can find has a long token, a secret-ish word, a URL with credentials, a PEM
# block or hidden tag characters; text with none of them (most entries, most messages) skips the full
# scan, so masking a 100,000-entry listing stays cheap. tests/cli/test_hostile_cli_literal.py checks
# every secret shape of the scanner's corpus passes this filter.
_MAYBE_SECRET = re.compile(
    r"[A-Za-z0-9_+/=.~-]{16}|PRIVATE KEY|://|pass|pwd|secret|token|key|cred|auth|bearer|mot\s+de|contrase"
    r"|пароль|密码|口令|[\U000e0000-\U000e007f]", re.IGNORECASE)


def maybe_secret(text: str) -> bool:
    if _MAYBE_SECRET.search(text):
        return True
    return not text.isascii() and _MAYBE_SECRET.search(unicodedata.normalize("NFKC", text)) is not None


def _secrets(text: str) -> tuple[str, ...]:
    found: set[str] = set()
    end = min(len(text), MASK_SCAN_LIMIT)
    start = 0
    while start < end:
        chunk = text[start:min(end, start + SCAN_WINDOW)]
        if maybe_secret(chunk):  # the scanner is imported only for a text that may hold a secret
            from core.scan import scanner

            for f in scanner.scan(chunk):
                if f.secret and f.end > f.start:
                    found.add(chunk[f.start:f.end])
        if start + SCAN_WINDOW >= end:
            break
        start += SCAN_WINDOW - SCAN_OVERLAP
    return tuple(sorted(found, key=len, reverse=True))


def _mask_one(secret: str) -> str:
    from core.scan import scanner

    return scanner.mask(secret)


def finding_detail(finding, text: str, reveal: bool = False) -> str:
    """A finding's detail as the command line and the TUI show it (one wording, from here): a secret
    named once (the scanner's detail quotes it masked; `reveal` shows it there as it is), and a
    finding Hermes's own scan blocks saying so once, in the scanner's words (HERMES_NOTE)."""
    from core.scan import scanner

    detail = str(finding.detail)
    if getattr(finding, "secret", False) and 0 <= finding.start < finding.end <= len(text):
        found = text[finding.start:finding.end]
        masked = scanner.mask(found)
        if masked in detail:
            detail = detail.replace(masked, found) if reveal else detail
        else:  # the detail quotes the secret as the scan normalised it: name it as it is in the text
            detail += " " + (found if reveal else masked)
    if getattr(finding, "hermes_blocks", False) and scanner.HERMES_NOTE not in detail:
        detail += f"; {scanner.HERMES_NOTE}"
    return detail


class Masker:
    """Masks secrets (`sk-…9f2a`) in untrusted strings; `reveal=True` leaves them as they are.

    Each string is scanned itself; secrets found in `sources` (the texts a message was built from:
    the entry a replace overwrote, a record's payload) are masked too, also when a message quotes
    them cut short (`was 'AWS key AKIAQWER…'`).
    """

    def __init__(self, reveal: bool = False, sources: Iterable[object] = ()) -> None:
        self.reveal = reveal
        self.known: set[str] = set()
        if not reveal:
            self.learn(*sources)

    def know(self, *secrets: str) -> None:
        """Mask these values too (secrets already found in a longer text that a shown part quotes)."""
        if not self.reveal:
            self.known.update(s for s in secrets if isinstance(s, str) and s)

    def learn(self, *sources: object) -> None:
        if self.reveal:
            return
        for source in sources:
            for text in _strings(source):
                self.known.update(secrets_in(text))

    def __call__(self, text: object) -> str:
        if not isinstance(text, str):
            text = "" if text is None else str(text)
        if self.reveal or not text:
            return text
        tail = ""
        if len(text) > MASK_SCAN_LIMIT:
            tail = f"… ({len(text) - MASK_SCAN_LIMIT:,} more characters not shown: --reveal prints them)"
            text = text[:MASK_SCAN_LIMIT]
        for secret in sorted(self.known.union(secrets_in(text)), key=len, reverse=True):
            if secret in text:
                text = text.replace(secret, _mask_one(secret))
        for secret in self.known:
            text = _mask_suffixes(_mask_prefixes(text, secret), secret)
        return text + tail

    def obj(self, obj: Any, depth: int = 0) -> Any:
        """`obj` (JSON-like) with every string masked; past MAX_DEPTH levels, a note instead."""
        if isinstance(obj, str):
            return self(obj)
        if isinstance(obj, list | tuple | dict) and depth >= MAX_DEPTH:
            return f"… (nested more than {MAX_DEPTH} levels deep: not shown)"
        if isinstance(obj, list | tuple):
            return [self.obj(x, depth + 1) for x in obj]
        if isinstance(obj, dict):
            return {self(str(k)): self.obj(v, depth + 1) for k, v in obj.items()}
        return obj


def _mask_prefixes(text: str, secret: str) -> str:
    """Mask `secret` where `text` quotes only its beginning (a preview cut at a length)."""
    head = secret[:MIN_PREFIX]
    if len(secret) <= MIN_PREFIX or head not in text:
        return text
    out, i = [], 0
    for m in re.finditer(re.escape(head), text):
        if m.start() < i:
            continue
        n = MIN_PREFIX
        while n < len(secret) and m.start() + n < len(text) and text[m.start() + n] == secret[n]:
            n += 1
        out.append(text[i:m.start()])
        out.append(_mask_one(secret))
        i = m.start() + n
    out.append(text[i:])
    return "".join(out)


def _mask_suffixes(text: str, secret: str) -> str:
    """Mask `secret` where `text` quotes only its end (a snippet that starts inside it)."""
    end = secret[-MIN_PREFIX:]
    if len(secret) <= MIN_PREFIX or end not in text:
        return text
    out, i = [], 0
    for m in re.finditer(re.escape(end), text):
        if m.start() < i:
            continue
        n = MIN_PREFIX
        while n < len(secret) and m.end() - n - 1 >= i and text[m.end() - n - 1] == secret[-n - 1]:
            n += 1
        out.append(text[i:m.end() - n])
        out.append(_mask_one(secret))
        i = m.end()
    out.append(text[i:])
    return "".join(out)


def _strings(obj: object) -> Iterable[str]:
    """Every string in `obj` (nested lists and dicts), without recursion: any depth is fine."""
    stack = [obj]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            yield node
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list | tuple | set | frozenset):
            stack.extend(node)


def mask_untrusted(text: object, reveal: bool = False) -> str:
    """`text` with every secret the scanner finds in it masked (unless `reveal`)."""
    return Masker(reveal)(text)


def _secret_spans(text: str) -> list[tuple[int, int]]:
    """Where the secrets of `text` are (every occurrence), in order."""
    spans = []
    for secret in secrets_in(text):
        at = text.find(secret)
        while at >= 0:
            spans.append((at, at + len(secret)))
            at = text.find(secret, at + 1)
    return sorted(spans)


def clip(text: str, width: int, start: int = 0, mark: str = "…") -> str:
    """`text[start:start + width]`, marked `…` where it was cut, never cut inside a secret: a
    secret the cut would split is left out whole (the cut moves to its edge), so that no key
    shows in part, whatever masks the text later (a masker can't tell a key cut short). Mask
    first, then cut, is the rule; this is the cut that keeps it when the masking comes later."""
    if start <= 0 and len(text) <= width:
        return text
    start = max(0, start)
    end = start + width
    if maybe_secret(text):
        for s, e in _secret_spans(text):
            if s < start < e:
                start = e
            if s < end < e:
                end = s
    if end <= start:
        return mark
    return (mark if start else "") + text[start:end] + (mark if end < len(text) else "")
