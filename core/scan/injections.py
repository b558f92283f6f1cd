"""Wider injection checks: the Hermes ideas in English, French, Spanish, Italian, Russian
and Chinese.

Hermes's own patterns are English-only. Each language here is one `Lexicon`: word lists
for the templated slots (ignore, reveal, exfiltrate, leak) and a few fixed phrasings;
`_build` turns it into `Rule`s with the id `injection_<lang>`, one per slot. Every slot
has gate stems (substrings any match must contain) so a scan stays fast. Adding a
language means adding one Lexicon (core/scan/lexicons.py).
"""

from __future__ import annotations

import re

from core.scan.lexicons import CJK_FILLER as _CJK_F
from core.scan.lexicons import LATIN_FILLER as _LATIN_F
from core.scan.lexicons import LEXICONS, Lexicon
from core.scan.rules import KEEP, Rule, Verdict, compiled, rule

_SLOTS = {
    "ignore": "ignore previous instructions",
    "void": "declare the previous rules void",
    "obey": "obey only the injected text",
    "reveal": "reveal the system prompt",
    "exfil": "send secrets or the conversation to a URL",
    "leak": "put secrets into the reply",
    "role": "give the agent a new identity ('you are now …')",
    "pretend": "pretend to be someone else",
    "no_limits": "answer without restrictions",
    "hide": "hide something from the user",
    "permission": "grant itself permission to disclose",
    "deny": "lie about this entry",
    "authority": "pose as a system or developer notice",
    "priority": "claim priority over the system prompt",
    "mode": "switch to an unrestricted mode",
    "hidden_goal": "give the agent a hidden purpose",
    "self_erase": "erase the traces of this instruction",
    "forget_all": "forget everything it was told",
    "override": "replace the system prompt",
}
_SLOT_SEVERITY = {"authority": "warning", "hidden_goal": "warning"}


def _build(lex: Lexicon) -> tuple[Rule, ...]:
    b = "" if lex.cjk else r"\b"
    f = _CJK_F if lex.cjk else _LATIN_F
    sep = "" if lex.cjk else r"[\s,:]*"
    v, q, n = lex.ignore_verbs, lex.qualifiers, lex.instruction_nouns
    patterns = {
        "ignore": _lead(v) +
            rf"{b}(?:{v}){b}{sep}{f}(?:(?:{q}){b}{sep}{f}(?:{n})|(?:{n}){b}{sep}{f}(?:{q}){b})",
        "void": lex.void,
        "obey": lex.obey,
        "reveal": _lead(lex.reveal_verbs) + rf"{b}(?:{lex.reveal_verbs}){b}{sep}{f}(?:{lex.prompt_terms})",
        "exfil": r"(?m)^[^\n]*?https?://[^\n]*",   # a line with a URL; refined below
        "leak": _lead(lex.leak_verbs) + rf"{b}(?:{lex.leak_verbs}){b}{sep}{f}(?:{lex.secrets})",
        "role": lex.role,
        "pretend": lex.pretend,
        "no_limits": lex.no_limits,
        "hide": lex.hide,
        "permission": lex.permission,
        "deny": lex.deny,
        "authority": lex.authority,
        "priority": lex.priority,
        "mode": lex.mode,
        "hidden_goal": lex.hidden_goal,
        "self_erase": lex.self_erase,
        "forget_all": lex.forget_all,
        "override": lex.override,
    }
    stems = dict(lex.stems)
    unknown = set(stems) - set(_SLOTS)
    missing = {slot for slot, p in patterns.items() if p} - set(stems)
    if unknown or missing:
        raise ValueError(f"{lex.lang}: unknown stems {unknown}, missing stems {missing}")
    refiners = {"exfil": _exfil_line(lex, b), "leak": _leak_into_reply(lex)}
    return tuple(
        rule(f"injection_{lex.lang}", pattern, _SLOT_SEVERITY.get(slot, "error"),
             f"{lex.name} prompt injection: {_SLOTS[slot]}", kind="injection",
             gate=_gate(stems[slot], url=slot == "exfil"), refine=refiners.get(slot),
             script=lex.script)
        for slot, pattern in patterns.items() if pattern
    )


def _lead(alternation: str) -> str:
    """A lookahead on the possible first letters: lets the regex engine skip most
    positions quickly (about twice as fast). Empty when a branch starts with syntax."""
    firsts: set[str] = set()
    depth, start = 0, True
    for i, c in enumerate(alternation):
        if start:
            if not c.isalpha():
                return ""
            firsts.add(c.lower())
            start = False
        if c == "\\":
            continue
        if c == "(" and (i == 0 or alternation[i - 1] != "\\"):
            depth += 1
        elif c == ")" and alternation[i - 1] != "\\":
            depth -= 1
        elif c == "|" and depth == 0:
            start = True
    return "(?=[" + "".join(sorted(firsts)) + "])" if firsts else ""


def _gate(stems: str | tuple[str, ...], *, url: bool) -> tuple[str, ...]:
    groups = (stems,) if isinstance(stems, str) else tuple(stems)
    return ("http",) + groups if url else groups


def _exfil_line(lex: Lexicon, b: str):
    """Keep a URL line only if it also has a sending verb and something sensitive."""
    verb = rf"{b}(?:{lex.exfil_verbs}){b}"  # compiled on first use, as the rules are (a faster start)

    def refine(m: re.Match[str]) -> Verdict | None:
        verb_re, sensitive_re = compiled(verb, re.IGNORECASE), compiled(lex.sensitive, re.IGNORECASE)
        line = m.group()
        return KEEP if verb_re.search(line) and sensitive_re.search(line) else None

    return refine


_SENTENCE_END = ".!?\n。！？;；"


def _leak_into_reply(lex: Lexicon):
    """Keep "paste the API keys into your reply"; drop advice ("never paste API keys") and
    set-up notes ("paste the API key into .env"), which don't aim at the reply."""
    b = "" if lex.cjk else r"\b"
    negation_pattern = rf"{b}(?:{lex.negations}){b}"  # compiled on first use (a faster start)
    reply_pattern = rf"{b}(?:{lex.reply_words})"

    def refine(m: re.Match[str]) -> Verdict | None:
        negation = compiled(negation_pattern, re.IGNORECASE)
        reply = compiled(reply_pattern, re.IGNORECASE)
        text = m.string
        start = max(text.rfind(c, 0, m.start()) for c in _SENTENCE_END) + 1
        ends = [i for i in (text.find(c, m.end()) for c in _SENTENCE_END) if i >= 0]
        sentence = text[start:min(ends) if ends else len(text)]
        if negation.search(text[max(start, m.start() - 40):m.start()]):
            return None
        for r in reply.finditer(sentence):
            if not negation.search(sentence[max(0, r.start() - 20):r.start()]):
                return KEEP
        return None

    return refine


COMMAND_RULES: tuple[Rule, ...] = (
    rule("pipe_to_shell",
         r"\b(?:curl|wget)\b[^\n|]{0,300}\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b"
         r"|\b(?:ba)?sh\s+<\(\s*(?:curl|wget)\b|\biex\s*\(?\s*(?:New-Object|iwr|irm|Invoke-)",
         "warning", "pipes a download straight into a shell", kind="execution",
         explanation="An entry that makes the agent run `curl … | sh` hands your machine to "
                     "whoever controls that URL. Fine as a one-off install note you run "
                     "yourself; dangerous as a standing instruction.",
         gate="curl|wget|iex"),
    # the environment posted through command substitution: curl -d "$(env)" …, wget --post-data="`printenv`",
    # env | curl --data-binary @- …; Hermes's exfil_curl looks only for a $SECRET-like variable name
    rule("exfil_env_substitution",
         r"\b(?:curl|wget)\b[^\n]{0,2048}?(?:\$\(|`|<\()\s*(?:(?:env|printenv|set|export|declare\s+-x)\b(?!\s*=)"
         r"|cat\s+[^\s)`]*(?:\.env|/environ)\b)"
         r"|\b(?:env|printenv)\b(?:[^\n|]{0,64}\|){1,4}\s*(?:curl|wget)\b",
         "error", "sends the environment (its keys and tokens) with curl or wget", kind="exfiltration",
         explanation="`$(env)`, `$(printenv)` or `env |` inside a curl or wget command posts every "
                     "environment variable, API keys included, to whoever runs that URL.",
         gate=("curl|wget", "env|set|export|declare")),
)
INJECTION_RULES: tuple[Rule, ...] = tuple(r for lex in LEXICONS for r in _build(lex)) + COMMAND_RULES
INJECTION_IDS: frozenset[str] = frozenset(f"injection_{lex.lang}" for lex in LEXICONS)
