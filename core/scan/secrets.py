"""Wider secret checks: provider key shapes, private keys, URL passwords, assignments.

Each entry is a `Rule` whose `secret` group holds the value (masked in details, hidden
on screen until revealed). Provider shapes are matched case-sensitively; a refine
function rejects placeholders and low-entropy look-alikes.
"""

from __future__ import annotations

import base64
import binascii
import json
import re

from core.scan.rules import (
    KEEP,
    Rule,
    Verdict,
    char_classes,
    entropy,
    is_placeholder,
    looks_like_prose_slug,
    looks_random,
    rule,
)

_CS = 0  # case-sensitive flags
_B = r"(?<![A-Za-z0-9_-])"   # not glued to a longer token on the left
_E = r"(?![A-Za-z0-9_-])"    # ... nor on the right

_STRONG_PLACEHOLDER = ("example", "xxxx", "placeholder", "your", "dummy", "redacted", "fake")


def _aws_key_id(m: re.Match[str]) -> Verdict | None:
    """AWS key ids are base32 after the prefix (A-Z, 2-7): about one real id in 28 has no digit at all,
    so only placeholders and low variety rule one out. (Low: 16 random base32 characters fall under
    2.8 bits about one time in 3,000, under 2.5 about one in 300,000; a repeated pattern is far below.)"""
    body = m.group("secret")[4:]
    rest = _without_placeholders(body)  # "IOSFODNN7EXAMPLE" -> 9 left: the documentation's id
    return KEEP if len(rest) >= 10 and entropy(body) >= 2.5 else None


_PLACEHOLDER_RE = re.compile("|".join(map(re.escape, _STRONG_PLACEHOLDER)), re.IGNORECASE)


def _without_placeholders(body: str) -> str:
    """`body` without the placeholder words in it ("example", "your", "xxxx"…, any case). What a
    placeholder leaves is short or plain; a random body that happens to spell one ("fAke" in a
    letters-only token, a few times in 10,000) keeps most of its length and all its variety."""
    return _PLACEHOLDER_RE.sub("", body)


def _provider_key(min_len: int = 16, min_entropy: float = 3.0):
    """Refine for prefixed provider shapes: the prefix says what the token is, and the random body
    (the `body` group, or `body_pat` for a rule with two shapes) must look generated, not typed.

    The bodies are random over letters and digits, so some have no digit at all (a 36-character
    GitHub body about one in 550, a 20-character GitLab one about one in 30): variety is two of
    lower case, upper case and digits, never a digit required."""

    def refine(m: re.Match[str]) -> Verdict | None:
        body = m.group("body") if m.group("body") is not None else m.group("body_pat")
        if len(body) < min_len or looks_like_prose_slug(body):
            return None
        rest = _without_placeholders(body)
        if len(rest) < min_len // 2 or entropy(rest) < min_entropy:
            return None
        if (any(c.islower() for c in rest) + any(c.isupper() for c in rest) + any(c.isdigit() for c in rest)) < 2:
            return None
        return KEEP

    return refine


def _jwt(m: re.Match[str]) -> Verdict | None:
    header = m.group("secret").split(".", 1)[0]
    try:
        raw = base64.urlsafe_b64decode(header + "=" * (-len(header) % 4))
        data = json.loads(raw)
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict) or not ({"alg", "typ", "kid"} & data.keys()):
        return None
    return KEEP


def _pem(m: re.Match[str]) -> Verdict | None:
    body = re.sub(r"\s+", "", m.group("secret"))
    if len(body) < 32 or is_placeholder(body[:40]):
        return None
    if not m.group("end"):
        return Verdict(None, "no END line: the rest of the entry may be key material")
    return KEEP


def _url_password(m: re.Match[str]) -> Verdict | None:
    value = m.group("secret")
    if is_placeholder(value) or len(value) < 4:
        return None
    if not looks_random(value, min_len=8, min_entropy=2.5):
        return Verdict("error", "a password in a URL (short or simple, but still a password)")
    return KEEP


_SUFFIX_NOT_SECRET = re.compile(
    r"(?:_|-|\.)(?:policy|length|len|min|max|file|path|url|uri|env|var|name|hint|prompt|expiry|"
    r"expires|ttl|count|type|header|field|rotation|format|regex|pattern|manager|store|label|"
    r"endpoint|host|user|username|id|location|reset|strength|help|required|enabled|hash|salt|"
    r"algorithm|version|prefix|length)$",
    re.IGNORECASE,
)


_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def _generic(m: re.Match[str]) -> Verdict | None:
    # The regex starts at the operator (fast); the name before it must end with a secret word.
    text, op = m.string, m.start()
    named = _GENERIC_NAME_BEFORE.search(text, max(0, op - 80), op)
    if named is None:
        return None
    head = named.start()
    while head > 0 and named.start() - head < 40 and text[head - 1] in _NAME_CHARS:
        head -= 1
    if head > 0 and text[head - 1].isalnum() and text[head - 1].isascii():
        return None
    name, value = text[head:named.end("suffix")], m.group("secret")
    if _SUFFIX_NOT_SECRET.search(name):
        return None
    if is_placeholder(value) or len(value) < 8:
        return None
    if looks_like_prose_slug(value):
        return Verdict("info", "low confidence: reads like words, not a generated secret")
    if len(value) >= 16 and entropy(value) >= 3.5 and char_classes(value) >= 2:
        return KEEP
    if entropy(value) >= 2.8 and char_classes(value) >= 2:
        return Verdict("error", "a short or simple value, but it is assigned to a secret name")
    return Verdict("info", "low confidence: a low-entropy value assigned to a secret name")


def _generic_spaced(m: re.Match[str]) -> Verdict | None:
    """A secret's name followed by its value with no operator ("Cloudflare API token 4f…",
    "пароль Xk…"): kept only when the value is clearly generated, never on the doubt the
    operator's rule gives, since a name followed by a plain word is ordinary prose."""
    verdict = _generic(m)
    value = m.group("secret")
    if verdict is KEEP or (verdict is not None and verdict.severity == "error" and len(value) >= 12
                           and entropy(value) >= 3.2 and char_classes(value) >= 2 and not value.isalpha()):
        return KEEP
    return None


def _cloud_secret_half(m: re.Match[str]) -> Verdict | None:
    """The 40-character secret access key written next to its AWS key id (`AKIA… / wJal…`)."""
    value = m.group("secret")
    if is_placeholder(value) or entropy(value) < 4.0 or char_classes(value) < 2:
        return None
    return KEEP


def _bearer(m: re.Match[str]) -> Verdict | None:
    value = m.group("secret")
    if is_placeholder(value) or not looks_random(value, min_len=16):
        return None
    return KEEP


def _s(id: str, pattern: str, summary: str, *, severity: str = "critical", flags: int = _CS,
       **kw) -> Rule:
    return rule(id, pattern, severity, summary, flags=flags, kind="secret",
                secret_group="secret", **kw)


_GENERIC_NAME = (
    r"(?:pass(?:word|wd|phrase)?|pwd|secret|token|(?:api|app)[\s_-]?key|apikey|"
    r"(?:access|secret|private|signing|encryption|master|client|auth)[\s_-]?key|"
    r"client[_-]?secret|auth[_-]?token|credentials?|mot\s+de\s+passe|contrase[ñn]a|"
    r"пароль|密码|口令)"
)
# "the password of the staging DB is …", "le mot de passe de la base est …": a secret's name may be
# followed by what it belongs to, when a preposition says so (never "password manager is …")
_BELONGS = r"(?:\s+(?:of|for|to|on|at|de|de la|du|des|del|di|della|dello|от|для|к)(?:\s+[^\s:=]{1,20}){1,3})?"
_GENERIC_NAME_BEFORE = re.compile(
    rf"{_GENERIC_NAME}(?P<suffix>[A-Za-z0-9_.-]{{0,24}}){_BELONGS}[\"']?\s*$", re.IGNORECASE)

SECRET_RULES: tuple[Rule, ...] = (
    _s("private_key",
       r"-----BEGIN (?P<kind>(?:[A-Z0-9]+ )*)PRIVATE KEY(?: BLOCK)?-----"
       r"(?P<secret>[\s\S]*?)(?P<end>-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
       "private key block", gate="private key", refine=_pem),
    _s("secret_anthropic", rf"{_B}(?P<secret>sk-ant-(?P<body>[A-Za-z0-9_-]{{20,}})){_E}",
       "Anthropic API key", gate="sk-ant-", refine=_provider_key()),
    _s("secret_openai",
       rf"{_B}(?P<secret>sk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?(?P<body>[A-Za-z0-9_-]{{20,}})){_E}",
       "OpenAI API key", gate="sk-", refine=_provider_key()),
    _s("secret_github",
       rf"{_B}(?P<secret>(?:gh[pousr]_(?P<body>[A-Za-z0-9]{{30,255}})|github_pat_(?P<body_pat>[A-Za-z0-9_]{{40,255}}))){_E}",
       "GitHub token", gate="gh|github_pat_", refine=_provider_key(min_len=30)),
    _s("secret_aws",
       r"(?<![A-Z0-9])(?P<secret>(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})(?![A-Z0-9])",
       "AWS access key id", gate="akia|asia|abia|acca", refine=_aws_key_id),
    _s("secret_aws_secret",  # the secret half, written after its key id ("AKIA… / …", "id AKIA…, secret …")
       r"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])[^\n]{1,60}?(?<![A-Za-z0-9/+])"
       r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
       "AWS secret access key", gate="akia|asia", refine=_cloud_secret_half),
    _s("secret_azure_storage", r"AccountKey=(?P<secret>[A-Za-z0-9+/]{80,}={0,2})",
       "Azure storage account key", flags=re.IGNORECASE, gate="accountkey"),
    _s("secret_google", rf"{_B}(?P<secret>AIza(?P<body>[0-9A-Za-z_-]{{35}})){_E}", "Google API key",
       gate="aiza", refine=_provider_key()),
    _s("secret_google_oauth", rf"{_B}(?P<secret>GOCSPX-(?P<body>[0-9A-Za-z_-]{{28}})){_E}",
       "Google OAuth client secret", gate="gocspx-", refine=_provider_key(min_len=20)),
    _s("secret_slack", rf"{_B}(?P<secret>xox[abposre]-(?P<body>(?:\d+-)+[A-Za-z0-9-]{{6,}})){_E}",
       "Slack token", gate="xox", refine=_provider_key(min_len=16)),
    _s("secret_slack_webhook",
       r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/(?P<secret>[A-Za-z0-9]{20,})",
       "Slack webhook URL", gate="hooks.slack.com"),
    _s("secret_stripe", rf"{_B}(?P<secret>(?:sk|rk)_live_(?P<body>[A-Za-z0-9]{{16,}})){_E}",
       "Stripe live secret key", gate="_live_", refine=_provider_key()),
    _s("secret_stripe_test", rf"{_B}(?P<secret>(?:sk|rk)_test_(?P<body>[A-Za-z0-9]{{16,}})){_E}",
       "Stripe test key", severity="warning", gate="_test_", refine=_provider_key()),
    _s("secret_huggingface", rf"{_B}(?P<secret>hf_(?P<body>[A-Za-z0-9]{{30,}})){_E}",
       "Hugging Face token", gate="hf_", refine=_provider_key(min_len=30, min_entropy=3.5)),
    _s("secret_gitlab", rf"{_B}(?P<secret>glpat-(?P<body>[A-Za-z0-9_-]{{20,}})){_E}", "GitLab token",
       gate="glpat-", refine=_provider_key(min_len=20)),
    _s("secret_npm", rf"{_B}(?P<secret>npm_(?P<body>[A-Za-z0-9]{{36}})){_E}", "npm token",
       gate="npm_", refine=_provider_key()),
    # SendGrid (a mail API): "SG." and two dotted base64url segments
    _s("secret_sendgrid", rf"{_B}(?P<secret>SG\.(?P<body>[A-Za-z0-9_-]{{22}}\.[A-Za-z0-9_-]{{43}})){_E}",
       "SendGrid API key", gate="sg.", refine=_provider_key(min_len=60)),
    _s("secret_pypi", rf"{_B}(?P<secret>pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{{50,}}){_E}",
       "PyPI token", gate="pypi-"),
    _s("secret_telegram", r"(?<![\d:])(?P<secret>\d{8,10}:AA[A-Za-z0-9_-]{33})(?![A-Za-z0-9_-])",
       "Telegram bot token", gate=":aa"),
    # the tokens ops notes meet (issue 34): each provider's own prefix and length
    _s("secret_grafana", rf"{_B}(?P<secret>gl(?:sa_(?P<body>[A-Za-z0-9]{{32}}_[A-Fa-f0-9]{{8}})"
       rf"|c_(?P<body_pat>[A-Za-z0-9+/]{{32,}}={{0,2}}))){_E}",
       "Grafana token", gate="glsa_|glc_", refine=_provider_key(min_len=24)),
    _s("secret_pagerduty", r"(?<![A-Za-z0-9+])(?P<secret>u\+(?P<body>[A-Za-z0-9_-]{18}))(?![A-Za-z0-9_+-])",
       "PagerDuty API token", gate="u+", refine=_provider_key(min_len=16)),
    _s("secret_newrelic", rf"{_B}(?P<secret>NR(?:AK|II|JS)-(?P<body>[A-Za-z0-9]{{19,32}})){_E}",
       "New Relic key", gate="nrak-|nrii-|nrjs-", refine=_provider_key(min_len=19)),
    _s("secret_supabase", rf"{_B}(?P<secret>sb(?:p|_secret)_(?P<body>[A-Za-z0-9_-]{{32,}})){_E}",
       "Supabase key", gate="sbp_|sb_secret_", refine=_provider_key(min_len=32)),
    _s("secret_linear", rf"{_B}(?P<secret>lin_(?:api|oauth)_(?P<body>[A-Za-z0-9]{{32,}})){_E}",
       "Linear API key", gate="lin_api_|lin_oauth_", refine=_provider_key(min_len=32)),
    _s("secret_notion", rf"{_B}(?P<secret>(?:secret_(?P<body>[A-Za-z0-9]{{43}})|ntn_(?P<body_pat>[A-Za-z0-9]{{40,50}}))){_E}",
       "Notion integration token", gate="secret_|ntn_", refine=_provider_key(min_len=40)),
    _s("secret_airtable", rf"{_B}(?P<secret>pat(?P<body>[A-Za-z0-9]{{14}}\.[a-f0-9]{{64}})){_E}",
       "Airtable personal access token", gate="pat", refine=_provider_key(min_len=60)),
    _s("secret_discord", rf"{_B}(?P<secret>[MNO](?P<body>[A-Za-z0-9_-]{{23,27}}\.[A-Za-z0-9_-]{{6,7}}\.[A-Za-z0-9_-]{{27,40}})){_E}",
       "Discord bot token", gate=".", refine=_provider_key(min_len=40)),
    _s("secret_sentry_dsn",
       r"\bhttps?://(?P<secret>[a-f0-9]{32})(?::[a-f0-9]{32})?@[A-Za-z0-9.-]*sentry[A-Za-z0-9.-]*/\d+",
       "Sentry DSN (its key)", gate="sentry"),
    _s("jwt", rf"{_B}(?P<secret>eyJ[A-Za-z0-9_-]{{8,}}\.eyJ[A-Za-z0-9_-]{{8,}}\.[A-Za-z0-9_-]{{16,}}){_E}",
       "JSON web token", gate="eyj", refine=_jwt),
    _s("url_password",
       r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\s:/@?#]{0,128}:"
       r"(?P<secret>[^\s@/?#]{1,256})@[A-Za-z0-9._\[\]-]+",
       "password inside a URL", gate="://", refine=_url_password),
    _s("secret_named",
       r"(?<=[^\s:=—–])[ \t]+(?P<secret>[^\s\"'`,;。，]{12,200})",
       "secret written after its name", refine=_generic_spaced,
       gate="pass|pwd|secret|token|key|credential|mot|contrase|пароль|密码|口令"),
    _s("secret_bearer", r"\bBearer\s+(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)", "bearer token",
       flags=re.IGNORECASE, gate="bearer", refine=_bearer),
    _s("secret_generic",
       r"(?::=|=>|=|:|\s(?:is|est|es|è|ist|—|–)\s|是|为|：)\s*[\"'`]?(?P<secret>[^\s\"'`,;。，]{6,200})",
       "secret assigned to a name", refine=_generic,
       gate="pass|pwd|secret|token|key|credential|mot|contrase|пароль|密码|口令"),
)

SECRET_IDS: tuple[str, ...] = tuple(r.id for r in SECRET_RULES)
PROVIDER_IDS = frozenset(SECRET_IDS) - {"secret_generic", "secret_bearer"}  # specific shapes
