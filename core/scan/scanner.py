"""The security scan: Hermes's own checks first, then wider ones.

Hermes-compatible part (HERMES-FORMATS.md §3): cap the text at 65,536 chars, report
the 17 invisible characters found in the raw text, NFKC-normalise, then match every
Hermes pattern id case-insensitively. Those findings carry `hermes_blocks=True`.

Wider part: provider key shapes, private keys, URL passwords, secret assignments,
injections in six languages, Unicode tag characters (decoded and re-scanned), and
explanations for known false positives (emoji joined with U+200D, "SSH key is at
~/.ssh/x"). The checks are tables of `Rule`s in the scanner_* modules.

`scan()` never raises; spans refer to the original text.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Iterable, Sequence

from core.hermes import scan as release_scan
from core.hermes.release import NEWEST

from core.scan.hermes_rules import (
    CATEGORY_HELP,
    HERMES_IDS,
    HERMES_RULES,
    INVISIBLE_CHARS,
    INVISIBLE_RE,
    MAX_SCAN_CHARS,
)
from core.scan.injections import INJECTION_IDS, INJECTION_RULES
from core.scan.rules import KEEP, Rule, Verdict, gate_text
from core.scan.secrets import PROVIDER_IDS, SECRET_RULES

if TYPE_CHECKING:  # pragma: no cover
    from core.hermes.release import Release

__all__ = [
    "ScanFinding", "SEVERITY_ORDER", "MAX_SCAN_CHARS", "HERMES_IDS", "scan", "hermes_scan",
    "hermes_ids", "hermes_message", "blocked_notice", "blocking", "mask", "mask_text", "explain",
]

SEVERITY_ORDER = {"info": 0, "warning": 1, "error": 2, "critical": 3}
HERMES_NOTE = "Hermes will replace this entry in the prompt by a [BLOCKED: …] notice"
# A finding of a Hermes pattern the detected release doesn't block: a warning that was hmc's heads-up
# about the release's own block (a note saying where an SSH key lives) is only information then.
LET_THROUGH = {("ssh_access", "warning"): "info"}
HIDDEN_NOTE = "invisible on screen; Hermes does not decode tag characters"

ALL_RULES: tuple[Rule, ...] = HERMES_RULES + SECRET_RULES + INJECTION_RULES
_RULES_BY_ID: dict[str, Rule] = {}
for _r in ALL_RULES:
    _RULES_BY_ID.setdefault(_r.id, _r)

_MAX_PER_RULE = 10        # matches reported per rule
_MAX_SECRETS_PER_RULE = 1_000  # a secret rule's: every one must be masked (the text is bounded by the caller)
_MAX_CHAR_FINDINGS = 50   # invisible-character / tag findings reported
_EXCERPT = 60


@dataclass(frozen=True)
class ScanFinding:
    rule: str            # Hermes pattern id, "invisible_char", "emoji_zwj", "secret_openai", …
    severity: str        # "info" | "warning" | "error" | "critical"
    start: int           # span in the ORIGINAL text
    end: int
    detail: str          # one line; secrets inside it are masked
    hermes_blocks: bool  # Hermes's own scan blocks this entry from the prompt
    secret: bool = False # the span holds a secret value (masked until revealed)


# ── public helpers ───────────────────────────────────────────────────────────

def blocking(findings: Iterable[ScanFinding]) -> list[ScanFinding]:
    """Findings that should refuse a write without confirmation."""
    return [f for f in findings if f.hermes_blocks or f.severity in ("error", "critical")]


_MASK_PREFIX = re.compile(r"[A-Za-z0-9]{1,6}[-_]+")


def mask(secret: str) -> str:
    """`sk-…9f2a`: a recognisable prefix, an ellipsis and the last 4 chars."""
    try:
        s = "".join(str(secret).split())
    except Exception:
        return "…"
    if len(s) < 12:
        return "…"
    m = _MASK_PREFIX.match(s)
    if m and len(m.group()) <= 7:
        prefix = m.group()
    else:
        head = s[:4]
        prefix = head if head.isascii() and head.isalnum() else ""
    while prefix and len(prefix) + 4 > len(s) // 2:
        prefix = prefix[:-1]
    return f"{prefix}…{s[-4:]}"


def mask_text(text: str, findings: Iterable[ScanFinding]) -> str:
    """The text with every secret span masked."""
    spans = _merge((max(0, f.start), min(len(text), f.end)) for f in findings if f.secret)
    return _replace_spans(text, spans)


def explain(finding: ScanFinding) -> str:
    """A longer explanation for help panes."""
    special = {
        "invisible_char": "Invisible and bidirectional characters can hide or reorder text, so "
                          "what you read is not what the model reads. Hermes refuses every one "
                          "of its 17 listed characters, wherever it appears.",
        "emoji_zwj": "U+200D (zero width joiner) glues emoji into one picture, as in 👩‍💻. It "
                     "is harmless here, but Hermes's scan blocks every U+200D, so the entry "
                     "never reaches the prompt. Use a single emoji or plain words instead.",
        "tag_chars": "Unicode tag characters (U+E0000–U+E007F) render as nothing but spell out "
                     "ASCII the model can read: a known way to smuggle instructions. They are "
                     "only legitimate inside flag emoji such as England's.",
        "oversize": "Hermes only scans the first 65,536 characters and removes larger entries "
                    "from the prompt entirely.",
        "scanner_error": "Part of the scan failed on this text; check it by hand.",
    }
    parts: list[str] = []
    if finding.rule in special:
        parts.append(special[finding.rule])
    else:
        r = _RULES_BY_ID.get(finding.rule)
        if r is not None:
            parts.append(r.summary[:1].upper() + r.summary[1:] + ".")
            parts.append(r.explanation or CATEGORY_HELP.get(r.kind, ""))
    if finding.hermes_blocks:
        parts.append("Hermes's own scan blocks this entry: it refuses to write it, and at "
                     "session start it replaces the entry in the prompt with a [BLOCKED: …] "
                     "notice (the file keeps the original).")
    elif finding.rule in INJECTION_IDS or finding.rule == "tag_chars":
        parts.append("Hermes's English-only patterns miss this, so it would reach the prompt.")
    if finding.secret:
        parts.append("Move the secret to a password manager or environment variable and keep "
                     "only a pointer to it in memory.")
    parts.append(f"Detail: {finding.detail}")
    return " ".join(p for p in parts if p)


# ── Hermes-compatible entry points ───────────────────────────────────────────

def hermes_scan(text: str, release: "Release | None" = None) -> str | None:
    """The release's first finding, as its refusal names it: a pattern id or `U+XXXX` (None: clean)."""
    try:
        ids = hermes_ids(text, release)
    except Exception:
        return None
    if not ids:
        return None
    return ids[0].removeprefix("invisible_unicode_")


def hermes_ids(text: str, release: "Release | None" = None) -> list[str]:
    """Every id the release's scan reports (`invisible_unicode_U+XXXX`, then pattern ids)."""
    try:
        return release_scan.threat_ids(_coerce(text), release or NEWEST)
    except Exception:
        return []


def hermes_message(text: str, release: "Release | None" = None) -> str | None:
    """The error the release's memory tool returns when it refuses this text, or None."""
    try:
        return release_scan.refusal(_coerce(text), release or NEWEST)
    except Exception:
        return None


def blocked_notice(entry: str, filename: str = "MEMORY.md", release: "Release | None" = None) -> str | None:
    """What the release puts in the prompt instead of this entry at session start, or None."""
    try:
        return release_scan.blocked_notice(_coerce(entry), filename, release or NEWEST)
    except Exception:
        return None


# ── the scan ─────────────────────────────────────────────────────────────────

def scan(text: str, release: "Release | None" = None) -> list[ScanFinding]:
    """All findings, most severe first, then by position. Never raises.

    `hermes_blocks` follows the release's own scan exactly (core.hermes.scan): a finding of hmc's
    that the release doesn't make is kept (hmc still asks about it) but not marked as blocked, and an
    id the release reports that hmc's rules didn't is added.
    """
    try:
        text = _coerce(text)
        findings = _align(text, _scan(text, hidden=False), release or NEWEST)
    except Exception as exc:  # the scan is advisory: report, don't crash the caller
        findings = [_scanner_error(exc)]
    return sorted(findings, key=_sort_key)


def _align(text: str, findings: list[ScanFinding], release: "Release") -> list[ScanFinding]:
    exact = release_scan.threat_ids(text, release)
    ids = set(exact)
    invisible = release_scan.invisible_set(release)
    out: list[ScanFinding] = []
    for f in findings:
        if f.rule in HERMES_IDS:
            blocks = f.rule in ids
            if f.hermes_blocks and not blocks:  # hmc's pattern, which this release no longer blocks
                f = replace(f, detail=f.detail.replace(f"; {HERMES_NOTE}", "")
                            + f"; Hermes {release.name}'s own scan lets it through",
                            severity=LET_THROUGH.get((f.rule, f.severity), f.severity))
            elif blocks and not f.hermes_blocks and HERMES_NOTE not in f.detail:
                f = replace(f, detail=f"{f.detail}; {HERMES_NOTE}")
        elif f.rule in ("invisible_char", "emoji_zwj") and f.start < len(text):
            blocks = text[f.start] in invisible
        elif f.rule == "oversize":
            blocks = False  # the releases scan the first 65,536 chars and keep the entry otherwise
        else:
            blocks = f.hermes_blocks
        out.append(f if blocks == f.hermes_blocks else replace(f, hermes_blocks=blocks))
    covered = {f.rule for f in out if f.hermes_blocks}
    for pid in exact:
        if pid.startswith("invisible_unicode_") or pid in covered:
            continue
        start, end = _span_of(text, pid, release)
        out.append(ScanFinding(pid, "error", start, end,
                               f"Hermes {release.name}'s own scan matches its pattern '{pid}'", True))
    return out


def _span_of(text: str, pid: str, release: "Release") -> tuple[int, int]:
    for rid, rx in release_scan.compiled(release.scan):
        if rid == pid:
            m = rx.search(text)
            if m:
                return m.start(), m.end()
    return 0, 0


def _sort_key(f: ScanFinding) -> tuple:
    return (-SEVERITY_ORDER.get(f.severity, 0), f.start, f.end, f.rule)


def _coerce(text: object) -> str:
    if isinstance(text, str):
        return text
    if isinstance(text, (bytes, bytearray)):
        return bytes(text).decode("utf-8", errors="replace")
    return "" if text is None else str(text)


def _scanner_error(exc: BaseException) -> ScanFinding:
    return ScanFinding("scanner_error", "warning", 0, 0,
                       f"part of the scan failed ({type(exc).__name__}); check this entry by hand",
                       False)


def _scan(text: str, *, hidden: bool) -> list[ScanFinding]:
    capped = text[:MAX_SCAN_CHARS]
    out: list[ScanFinding] = []
    if len(text) > MAX_SCAN_CHARS and not hidden:
        out.append(ScanFinding(
            "oversize", "error", MAX_SCAN_CHARS, len(text),
            f"entry is {len(text):,} chars; only the first {MAX_SCAN_CHARS:,} are scanned (Hermes "
            f"0.18 and later scan no further either)", False))
    for stage in (_invisible_findings, _tag_findings, _pattern_findings):
        if hidden and stage is _tag_findings:
            continue
        try:
            out.extend(stage(capped, hidden))
        except Exception as exc:
            out.append(_scanner_error(exc))
    return out


# ── stage 1: invisible characters (raw text) ─────────────────────────────────

def _is_pictographic(ch: str) -> bool:
    cp = ord(ch)
    return (0x1F000 <= cp <= 0x1FAFF or 0x2600 <= cp <= 0x27BF or 0x2300 <= cp <= 0x23FF
            or 0x2B00 <= cp <= 0x2BFF or 0x2190 <= cp <= 0x21FF or 0x25A0 <= cp <= 0x25FF
            or cp in (0x00A9, 0x00AE, 0x203C, 0x2049, 0x2122, 0x2139, 0x3030, 0x303D, 0x3297,
                      0x3299))


_EMOJI_SKIP = {"\ufe0f", "\ufe0e", "\u20e3"}


def _emoji_neighbours(text: str, start: int, end: int) -> bool:
    i = start - 1
    while i >= 0 and text[i] in _EMOJI_SKIP:
        i -= 1
    return (i >= 0 and end < len(text) and _is_pictographic(text[i])
            and _is_pictographic(text[end]))


def _letter_neighbours(text: str, start: int, end: int) -> bool:
    """Non-Latin letters (or marks, like a Devanagari virama) on both sides."""
    def scriptish(ch: str) -> bool:
        return not ch.isascii() and unicodedata.category(ch)[0] in "LM"

    return start > 0 and end < len(text) and scriptish(text[start - 1]) and scriptish(text[end])


def _invisible_findings(text: str, hidden: bool) -> list[ScanFinding]:
    runs: list[tuple[int, int, str]] = []
    for m in INVISIBLE_RE.finditer(text):
        ch, i = m.group(), m.start()
        if runs and runs[-1][1] == i and runs[-1][2] == ch:
            runs[-1] = (runs[-1][0], i + 1, ch)
        else:
            runs.append((i, i + 1, ch))
    out: list[ScanFinding] = []
    for n, (s, e, ch) in enumerate(runs):
        if n >= _MAX_CHAR_FINDINGS:
            rest = len(runs) - n
            out.append(ScanFinding("invisible_char", "error", s, runs[-1][1],
                                   f"…and {rest} more runs of invisible characters; {HERMES_NOTE}",
                                   True))
            break
        code = f"U+{ord(ch):04X}"
        count = f" ×{e - s}" if e - s > 1 else ""
        label = f"{code} ({INVISIBLE_CHARS[ch]}){count}"
        if ch == "\u200d" and _emoji_neighbours(text, s, e):
            out.append(ScanFinding(
                "emoji_zwj", "warning", s, e,
                f"{label} joins emoji into one picture — harmless, but Hermes's scan blocks every "
                f"{code}: {HERMES_NOTE}; use a single emoji or words", True))
        elif ch in "\u200c\u200d" and _letter_neighbours(text, s, e):
            out.append(ScanFinding(
                "invisible_char", "warning", s, e,
                f"invisible character {label} between letters — normal in scripts such as "
                f"Persian or Hindi, but {HERMES_NOTE}", True))
        elif ch == "\ufeff" and s == 0:
            out.append(ScanFinding(
                "invisible_char", "warning", s, e,
                f"invisible character {label} at the very start, usually left by an editor; "
                f"{HERMES_NOTE}; delete it", True))
        else:
            out.append(ScanFinding(
                "invisible_char", "error", s, e,
                f"invisible character {label} can hide or reorder text; {HERMES_NOTE}", True))
    return out


# ── stage 2: Unicode tag characters (raw text), decoded and re-scanned ───────

_TAG_RUN = re.compile("[\U000e0000-\U000e007f]+")
_FLAG_TAGS = re.compile("[\U000e0030-\U000e0039\U000e0061-\U000e007a]{2,7}\U000e007f")


def _tag_findings(text: str, hidden: bool) -> list[ScanFinding]:
    out: list[ScanFinding] = []
    reported = 0
    for m in _TAG_RUN.finditer(text):
        s, e = m.span()
        if s > 0 and text[s - 1] == "\U0001f3f4" and _FLAG_TAGS.fullmatch(m.group()):
            continue  # a subdivision flag such as England's: legitimate
        if reported >= _MAX_CHAR_FINDINGS:
            break
        reported += 1
        decoded = "".join(chr(ord(c) - 0xE0000) for c in m.group() if 0xE0020 <= ord(c) <= 0xE007E)
        inner = _scan(decoded, hidden=True) if decoded.strip() else []
        shown = mask_text(decoded, inner)
        shown = _one_line(shown if len(shown) <= _EXCERPT else shown[:_EXCERPT - 1] + "…")
        severity = "critical" if any(f.severity == "critical" for f in inner) else "error"
        out.append(ScanFinding(
            "tag_chars", severity, s, e,
            f"{e - s} Unicode tag characters hide the text “{shown}” — {HIDDEN_NOTE}", False,
            secret=any(f.secret for f in inner)))
        for f in inner:
            if f.rule == "scanner_error":
                continue
            out.append(ScanFinding(f.rule, f.severity, s, e, f"hidden in tag characters: {f.detail}",
                                   False, f.secret))
    return out


# ── stage 3: regex rules on the NFKC text ────────────────────────────────────

@dataclass(frozen=True)
class _Hit:
    rule: Rule
    start: int          # reported span (the secret group for secret rules), NFKC coordinates
    end: int
    mstart: int         # whole match
    mend: int
    verdict: Verdict


def _pattern_findings(text: str, hidden: bool) -> list[ScanFinding]:
    try:
        norm = unicodedata.normalize("NFKC", text)
    except Exception:
        norm = text
    folded = gate_text(norm)
    seen: dict[str, bool] = {}
    hits: list[_Hit] = []
    for r in ALL_RULES:
        if not r.gate_open(folded, seen):
            continue
        kept = 0
        for m in r.regex.finditer(norm):
            if kept >= (_MAX_SECRETS_PER_RULE if r.secret_group else _MAX_PER_RULE):
                break  # counted in kept hits: harmless candidates ("S0: word") never use up the slots
            verdict = r.refine(m) if r.refine else KEEP
            if verdict is None:
                if not r.hermes:
                    continue
                verdict = KEEP  # a Hermes hit always counts: Hermes has no second thoughts
            if r.secret_group:
                if m.start(r.secret_group) < 0:
                    continue
                s, e = m.span(r.secret_group)
            else:
                s, e = m.span()
            if e <= s:
                continue
            hits.append(_Hit(r, s, e, m.start(), m.end(), verdict))
            kept += 1
    hits = _dedupe(hits)

    hermes_spans = [(h.mstart, h.mend) for h in hits if h.rule.hermes]
    secret_spans = _merge((h.start, h.end) for h in hits if h.rule.secret_group)
    mapper = _OffsetMap(text, norm)
    out: list[ScanFinding] = []
    for h in hits:
        r, v = h.rule, h.verdict
        blocks = not hidden and (r.hermes or _overlaps(h.start, h.end, hermes_spans))
        if r.secret_group:
            detail = f"{r.summary} {mask(norm[h.start:h.end])}"
        else:
            detail = f"{r.summary} — “{_excerpt(norm, h.start, h.end, secret_spans)}”"
        if r.hermes:
            detail = f"{r.id}: {detail}"
        if v.note:
            detail += f" ({v.note})"
        if blocks:
            detail += f"; {HERMES_NOTE}"
        elif hidden and r.hermes:
            detail += " (a Hermes pattern, but Hermes cannot see hidden text)"
        s, e = mapper.to_orig(h.start, h.end)
        out.append(ScanFinding(r.id, v.severity or r.severity, s, e, _one_line(detail), blocks,
                               secret=bool(r.secret_group)))
    return out


def _dedupe(hits: list[_Hit]) -> list[_Hit]:
    """Drop wider hits that only repeat a more specific one."""
    specific = [(h.start, h.end) for h in hits
                if h.rule.id in PROVIDER_IDS or h.rule.id == "hardcoded_secret"]
    hermes = [(h.mstart, h.mend) for h in hits if h.rule.hermes and not h.rule.secret_group]
    kept: list[_Hit] = []
    seen_injection: dict[str, list[tuple[int, int]]] = {}
    for h in hits:
        rid = h.rule.id
        if rid in ("secret_generic", "secret_bearer") and _overlaps(h.start, h.end, specific):
            continue
        if rid in INJECTION_IDS:
            if _overlaps(h.start, h.end, hermes):
                continue
            spans = seen_injection.setdefault(rid, [])
            if _overlaps(h.start, h.end, spans):
                continue
            spans.append((h.start, h.end))
        kept.append(h)
    return kept


# ── spans, excerpts, offsets ─────────────────────────────────────────────────

def _overlaps(s: int, e: int, spans: Sequence[tuple[int, int]]) -> bool:
    return any(s < se and ss < e for ss, se in spans)


def _merge(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for s, e in sorted(sp for sp in spans if sp[1] > sp[0]):
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return merged


def _replace_spans(text: str, spans: Sequence[tuple[int, int]]) -> str:
    parts, pos = [], 0
    for s, e in spans:
        if s < pos:
            continue
        parts.append(text[pos:s])
        parts.append(mask(text[s:e]))
        pos = e
    parts.append(text[pos:])
    return "".join(parts)


_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff"
                          r"\ud800-\udfff\U000e0000-\U000e007f]")


def _one_line(s: str) -> str:
    s = re.sub(r"\s+", " ", s).strip()
    return _UNPRINTABLE.sub(lambda m: f"<U+{ord(m.group()):04X}>", s)


def _excerpt(norm: str, s: int, e: int, secret_spans: Sequence[tuple[int, int]]) -> str:
    inside = [(max(s, a) - s, min(e, b) - s) for a, b in secret_spans if a < e and s < b]
    text = _replace_spans(norm[s:e], inside)
    text = _one_line(text)
    return text if len(text) <= _EXCERPT else text[:_EXCERPT - 1] + "…"


_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")


class _OffsetMap:
    """Maps spans in the NFKC text back to the original (best effort).

    ASCII is stable under NFKC, so only non-ASCII runs that NFKC changes are mapped
    segment by segment (a starter plus its combining marks); the rest is 1:1.
    """

    def __init__(self, orig: str, norm: str) -> None:
        self.orig_len = len(orig)
        self.norm_len = len(norm)
        self.identity = orig == norm
        self.starts: list[int] = []
        self.ends: list[int] = []
        if not self.identity and not self._build(orig, norm):
            self.starts = self.ends = []

    def _build(self, orig: str, norm: str) -> bool:
        starts, ends = self.starts, self.ends
        pieces: list[str] = []
        pos = 0
        for m in _NON_ASCII_RUN.finditer(orig):
            a, b = m.span()
            if a > pos and unicodedata.combining(orig[a]):
                a -= 1  # an ASCII letter followed by a combining mark belongs to the run
            pieces.append(orig[pos:a])
            starts.extend(range(pos, a))
            ends.extend(range(pos + 1, a + 1))
            run = orig[a:b]
            if unicodedata.is_normalized("NFKC", run):
                pieces.append(run)
                starts.extend(range(a, b))
                ends.extend(range(a + 1, b + 1))
            else:
                pieces.append(self._map_run(run, a, starts, ends))
            pos = b
        pieces.append(orig[pos:])
        starts.extend(range(pos, len(orig)))
        ends.extend(range(pos + 1, len(orig) + 1))
        return "".join(pieces) == norm and len(starts) == len(norm)

    @staticmethod
    def _map_run(run: str, offset: int, starts: list[int], ends: list[int]) -> str:
        whole = unicodedata.normalize("NFKC", run)
        pieces: list[str] = []
        local_s: list[int] = []
        local_e: list[int] = []
        i, n = 0, len(run)
        while i < n:
            j = i + 1
            while j < n and unicodedata.combining(run[j]):
                j += 1
            out = unicodedata.normalize("NFKC", run[i:j])
            pieces.append(out)
            local_s.extend([offset + i] * len(out))
            local_e.extend([offset + j] * len(out))
            i = j
        if "".join(pieces) != whole:  # composition across segments: map the run proportionally
            scale = n / len(whole) if whole else 0
            local_s = [offset + int(k * scale) for k in range(len(whole))]
            local_e = [min(offset + n, s + 1) for s in local_s]
        starts.extend(local_s)
        ends.extend(local_e)
        return whole

    def to_orig(self, s: int, e: int) -> tuple[int, int]:
        if self.identity:
            return s, e
        if self.starts:
            os_ = self.starts[s] if s < self.norm_len else self.orig_len
            oe = self.ends[e - 1] if 0 < e <= self.norm_len else os_
        else:
            scale = self.orig_len / self.norm_len if self.norm_len else 0
            os_, oe = round(s * scale), round(e * scale)
        os_ = min(max(os_, 0), self.orig_len)
        oe = min(max(oe, os_), self.orig_len)
        return os_, oe
