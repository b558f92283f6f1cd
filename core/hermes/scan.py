"""The scan a Hermes release applies to memory, exactly: which ids it reports and what it says.

Three generations (HERMES-FORMATS.md §3, measured against the releases):
- "t0" (0.13, 0.14): 10 invisible characters and 12 patterns inside the memory tool; no
  normalisation, no cap, no load-time scan. The first hit refuses a write.
- "t1" (0.15 – 0.17): the shared threat-pattern list at its strict scope (36 patterns, unbounded
  fillers), 17 invisible characters; entries with a hit are replaced in the prompt by a
  `[BLOCKED: …]` notice.
- "t2" (0.18 – 0.20): the same ids with bounded fillers, the text capped at 65,536 chars and the
  patterns matched on its NFKC form; `praxis` no longer counts as a C2 framework.
- "t3" (0.22): t2 with five patterns narrowed: `ssh_access` needs a write verb (or a redirect)
  before the path, `exfil_curl`/`exfil_wget` want a variable *ending* in KEY/TOKEN/SECRET/PASSWORD/
  CREDENTIAL (API is gone), `translate_execute` allows at most three words for the language, and
  `hardcoded_secret` skips a quoted SHOUTY_SNAKE variable name. The `[BLOCKED: …]` notice names
  the target to remove from.

Every pattern is matched with IGNORECASE only (no DOTALL), as the releases do. The releases report
invisible characters in Python set order, which depends on the interpreter's hash seed; hmc reports
them in code-point order (a listed deviation: the message names "the first" and may name another).

This is hmc's model of what Hermes does, not hmc's own, wider scan (core/scan/).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from core.hermes.release import Release

MAX_SCAN_CHARS = 65_536
# t0/t1 scan the whole text with unbounded fillers, quadratic on some inputs (65,536 chars of
# "ignore the word …" take 7 s). hmc scans their first 8,192 chars only: a listed deviation that
# matters only for entries longer than that, which no default limit allows.
UNBOUNDED_SCAN_CHARS = 8_192

INVISIBLE_T0 = frozenset("\u200b\u200c\u200d\u2060\ufeff\u202a\u202b\u202c\u202d\u202e")
INVISIBLE = INVISIBLE_T0 | frozenset("\u2062\u2063\u2064\u2066\u2067\u2068\u2069")

_T0 = (
    ("prompt_injection", r"ignore\s+(previous|all|above|prior)\s+instructions"),
    ("role_hijack", r"you\s+are\s+now\s+"),
    ("deception_hide", r"do\s+not\s+tell\s+the\s+user"),
    ("sys_prompt_override", r"system\s+prompt\s+override"),
    ("disregard_rules", r"disregard\s+(your|all|any)\s+(instructions|rules|guidelines)"),
    ("bypass_restrictions", r"act\s+as\s+(if|though)\s+you\s+(have\s+no|don't\s+have)\s+(restrictions|limits|rules)"),
    ("exfil_curl", r"curl\s+[^\n]*\$\{?\w*(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|API)"),
    ("exfil_wget", r"wget\s+[^\n]*\$\{?\w*(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|API)"),
    ("read_secrets", r"cat\s+[^\n]*(\.env|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc)"),
    ("ssh_backdoor", r"authorized_keys"),
    ("ssh_access", r"\$HOME/\.ssh|\~/\.ssh"),
    ("hermes_env", r"\$HOME/\.hermes/\.env|\~/\.hermes/\.env"),
)


def _strict_table(t2: bool) -> tuple[tuple[str, str], ...]:
    """The 36 strict-scope patterns in the releases' order; t2 bounds what t1 left unbounded."""
    f = r"(?:\w+\s+){0,8}" if t2 else r"(?:\w+\s+)*"  # filler between key words
    line = r"[^\n]{0,2048}" if t2 else r"[^\n]*"       # rest of a line
    any_ = r"[^\n]{0,2048}" if t2 else r".*"           # t1's bare .* (no DOTALL: also one line)
    c2 = r"cobalt\s*strike|sliver|havoc|mythic|metasploit|brainworm"
    return (
        ("prompt_injection", rf"ignore\s+{f}(previous|all|above|prior)\s+{f}instructions"),
        ("sys_prompt_override", r"system\s+prompt\s+override"),
        ("disregard_rules", rf"disregard\s+{f}(your|all|any)\s+{f}(instructions|rules|guidelines)"),
        ("bypass_restrictions",
         rf"act\s+as\s+(if|though)\s+{f}you\s+{f}(have\s+no|don't\s+have)\s+{f}(restrictions|limits|rules)"),
        ("html_comment_injection",
         r"<!--[^>]{0,512}(?:ignore|override|system|secret|hidden)[^>]{0,512}-->" if t2
         else r"<!--[^>]*(?:ignore|override|system|secret|hidden)[^>]*-->"),
        ("hidden_div",
         r"<\s*div\s+style\s*=\s*[\"'][^>]{0,2048}display\s*:\s*none" if t2
         else r"<\s*div\s+style\s*=\s*[\"'][\s\S]*?display\s*:\s*none"),
        ("translate_execute",
         r"translate\s+[^\n]{0,512}\s+into\s+[^\n]{0,512}\s+and\s+(execute|run|eval)" if t2
         else r"translate\s+.*\s+into\s+.*\s+and\s+(execute|run|eval)"),
        ("deception_hide", rf"do\s+not\s+{f}tell\s+{f}the\s+user"),
        ("role_hijack", rf"you\s+are\s+{f}now\s+(?:a|an|the)\s+"),
        ("role_pretend", rf"pretend\s+{f}(you\s+are|to\s+be)\s+"),
        ("leak_system_prompt", rf"output\s+{f}(system|initial)\s+prompt"),
        ("remove_filters", rf"(respond|answer|reply)\s+without\s+{f}(restrictions|limitations|filters|safety)"),
        ("fake_update", rf"you\s+have\s+been\s+{f}(updated|upgraded|patched)\s+to"),
        ("identity_override", r"\bname\s+yourself\s+\w+"),
        ("c2_node_registration", r"register\s+(as\s+)?a?\s*node"),
        ("c2_heartbeat", r"(heartbeat|beacon|check[\s\-]?in)\s+(to|with)\s+"),
        ("c2_task_pull", r"pull\s+(down\s+)?(?:new\s+)?task(?:ing|s)?\b"),
        ("c2_network_connect", r"connect\s+to\s+the\s+network\b"),
        ("forced_action", r"you\s+must\s+(?:\w+\s+){0,3}(register|connect|report|beacon)\b"),
        ("anti_forensic_oneliner", r"only\s+use\s+one[\s\-]?liners?\b"),
        ("anti_forensic_disk", rf"never\s+{f}(?:create|write)\s+{f}(?:script|file)\s+{f}disk"),
        ("env_var_unset_agent", r"unset\s+\w*(?:CLAUDE|CODEX|HERMES|AGENT|OPENAI|ANTHROPIC)\w*"),
        ("known_c2_framework", rf"\b(?:{c2})\b" if t2 else rf"\b(?:praxis|{c2})\b"),
        ("c2_explicit", r"\bc2\s+(?:server|channel|infrastructure|beacon)\b"),
        ("c2_explicit_long", r"\bcommand\s+and\s+control\b"),
        ("exfil_curl", rf"curl\s+{line}\$\{{?\w*(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|API)"),
        ("exfil_wget", rf"wget\s+{line}\$\{{?\w*(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|API)"),
        ("read_secrets", rf"cat\s+{line}(\.env|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc)"),
        ("send_to_url", rf"(send|post|upload|transmit)\s+{any_}\s+(to|at)\s+https?://"),
        ("context_exfil",
         rf"(include|output|print|share)\s+{f}(conversation|chat\s+history|previous\s+messages"
         r"|full\s+context|entire\s+context)"),
        ("ssh_backdoor", r"authorized_keys"),
        ("ssh_access", r"\$HOME/\.ssh|\~/\.ssh"),
        ("hermes_env", r"\$HOME/\.hermes/\.env|\~/\.hermes/\.env"),
        ("agent_config_mod",
         rf"(update|modify|edit|write|change|append|add\s+to)\s+{any_}(?:AGENTS\.md|CLAUDE\.md|\.cursorrules|\.clinerules)"),
        ("hermes_config_mod",
         rf"(update|modify|edit|write|change|append|add\s+to)\s+{any_}\.hermes/(config\.yaml|SOUL\.md)"),
        ("hardcoded_secret", r"(?:api[_-]?key|token|secret|password)\s*[=:]\s*[\"'][A-Za-z0-9+/=_-]{20,}"),
    )


_SSH_WRITE_VERBS = ("echo|cat|cp|mv|dd|tee|install|printf|rsync|scp|ln|append|add|write|sed|chmod|chown|"
                    "truncate|rm|touch|curl|wget|git")
_T3_CHANGES = {
    "ssh_access": rf"(?:\b(?:{_SSH_WRITE_VERBS})\b|\bopen\s*\(|>>?)[^\n]{{0,512}}(?:\$HOME/\.ssh|~/\.ssh)",
    "exfil_curl": r"curl\s+[^\n]{0,2048}\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)S?\b",
    "exfil_wget": r"wget\s+[^\n]{0,2048}\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)S?\b",
    "translate_execute": r"translate\s+[^\n]{0,512}\s+into\s+\w+(?:[\s-]+\w+){0,2}\s+and\s+(execute|run|eval)\b",
    "hardcoded_secret": (r"(?:api[_-]?key|token|secret|password)\s*[=:]\s*[\"'](?!(?-i:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"
                         r"[\"'])[A-Za-z0-9+/=_-]{20,}"),
}


def _t3_table() -> tuple[tuple[str, str], ...]:
    return tuple((pid, _T3_CHANGES.get(pid, rx)) for pid, rx in _strict_table(True))


TABLES = {"t0": _T0, "t1": _strict_table(False), "t2": _strict_table(True), "t3": _t3_table()}
BOUNDED = ("t2", "t3")  # the 65,536-char cap and NFKC


@lru_cache(maxsize=None)
def compiled(table: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((pid, re.compile(pattern, re.IGNORECASE)) for pid, pattern in TABLES[table])


@lru_cache(maxsize=None)
def pattern_ids(table: str) -> tuple[str, ...]:
    return tuple(pid for pid, _ in TABLES[table])


def invisible_set(release: "Release") -> frozenset[str]:
    return _invisible(release.scan)


def _invisible(scan: str) -> frozenset[str]:
    return INVISIBLE_T0 if scan == "t0" else INVISIBLE


MEMO_CHARS = 4096  # texts up to this long have their verdict kept (an entry is at most a few thousand)


# On the command line, the verdicts of the runs before (core.clean_texts sets it): anything with
# `holds(text, kind)` and `keep(text, kind)`. A text seen before is then not scanned again, and the
# ~40 patterns are compiled only when a text is new: "hermes t3" keeps a text no pattern and no
# invisible character flags; "hermes t3 flagged" one that is flagged, with "hermes t3 #i" for each
# pattern i of the table that matched (which rule, never where or what; invisible characters are
# found again, without a pattern).
kept_clean: Any = None


def threat_ids(text: str, release: "Release") -> list[str]:
    """Every id the release's scan reports for this text: invisible characters first, then patterns.
    The verdict depends on the text and the release's table only, and is kept for short texts: a
    screen that shows a store again asks about the same entries (15,000 of them, each ~0.1 ms)."""
    if not text:
        return []
    scan, kept = release.scan, kept_clean
    kind = f"hermes {scan}"
    if kept is not None:
        if kept.holds(text, kind):
            return []
        if kept.holds(text, f"{kind} flagged"):
            ids = pattern_ids(scan)
            return [*_invisible_ids(text, scan), *(pid for i, pid in enumerate(ids) if kept.holds(text, f"{kind} #{i}"))]
    invisible, hits = _verdict_kept(text, scan) if len(text) <= MEMO_CHARS else _verdict(text, scan)
    if kept is not None:
        if not invisible and not hits:
            kept.keep(text, kind)
        else:  # the verdict first, its patterns after it: kept from the newest, they go after it
            kept.keep(text, f"{kind} flagged")
            for i in hits:
                kept.keep(text, f"{kind} #{i}")
    if not hits:
        return list(invisible)
    ids = pattern_ids(scan)
    return [*invisible, *(ids[i] for i in hits)]


@lru_cache(maxsize=8192)
def _verdict_kept(text: str, scan: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    return _verdict(text, scan)


def _scanned(text: str, scan: str) -> str:
    """The part of `text` the release scans."""
    return text[:MAX_SCAN_CHARS if scan in BOUNDED else UNBOUNDED_SCAN_CHARS]


def _invisible_ids(text: str, scan: str) -> tuple[str, ...]:
    return tuple(f"invisible_unicode_U+{ord(c):04X}" for c in sorted(set(_scanned(text, scan)) & _invisible(scan)))


def _verdict(text: str, scan: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """(the invisible characters' ids, the indexes of the table's patterns that match)."""
    part = _scanned(text, scan)
    matched = unicodedata.normalize("NFKC", part) if scan in BOUNDED else part
    return _invisible_ids(text, scan), tuple(i for i, (_, rx) in enumerate(compiled(scan)) if rx.search(matched))


def refusal(text: str, release: "Release") -> str | None:
    """The release's message refusing a write of this text, or None when its scan lets it through."""
    ids = threat_ids(text, release)
    if not ids:
        return None
    first = ids[0]
    if first.startswith("invisible_unicode_"):
        return (f"Blocked: content contains invisible unicode character "
                f"{first.removeprefix('invisible_unicode_')} (possible injection).")
    what = "Memory entries are" if release.scan == "t0" else "Content is"
    return (f"Blocked: content matches threat pattern '{first}'. {what} injected into the system prompt "
            "and must not contain injection or exfiltration payloads.")


def blocked_notice(entry: str, file_name: str, release: "Release") -> str | None:
    """What the agent sees instead of this entry (releases that scan at load time), or None."""
    if not release.load_scan or not entry or entry.startswith("[BLOCKED:"):
        return None
    ids = threat_ids(entry, release)
    if not ids:
        return None
    if release < (0, 18):
        hint = "use memory(action=read) to inspect and memory(action=remove) to delete the original"
    elif release.patch:  # 0.22 names the store to remove from
        hint = (f"use memory(action=remove, target='{'user' if file_name == 'USER.md' else 'memory'}') "
                "to delete the original")
    else:
        hint = "use memory(action=remove) to delete the original"
    return (f"[BLOCKED: {file_name} entry contained threat pattern(s): {', '.join(ids)}. "
            f"Removed from system prompt; {hint}.]")
