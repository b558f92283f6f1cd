"""Secrets in each provider's shape, built at run time from a seeded Random.

Nothing key-shaped is ever written in this file: prefixes are split and the
random part is generated, so secret scanners on the repository stay quiet.
"""

from __future__ import annotations

import base64
import json
import random
import string
from dataclasses import dataclass

ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
URLSAFE = ALNUM + "-_"
B64 = ALNUM + "+/"
HEX = "0123456789abcdef"


@dataclass(frozen=True)
class SecretSample:
    provider: str   # a short label such as "openai" or "url_password"
    text: str       # a memory-entry-like text holding the secret
    secret: str     # the secret value the scanner must find (its span must overlap)


def _r(rng: random.Random, alphabet: str, k: int) -> str:
    return "".join(rng.choices(alphabet, k=k))


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _jwt(rng: random.Random) -> str:
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = _b64url(json.dumps({"sub": str(rng.randrange(10**9)), "name": "ops-bot",
                                  "iat": 1760000000 + rng.randrange(10**6)}).encode())
    sig = _b64url(bytes(rng.randrange(256) for _ in range(32)))
    return f"{header}.{payload}.{sig}"


def _pem(rng: random.Random, kind: str) -> str:
    label = (kind + " " if kind else "") + "PRIVATE" + " KEY"
    body = "\n".join(_r(rng, B64, 64) for _ in range(rng.randrange(4, 9)))
    dashes = "-" * 5
    return f"{dashes}BEGIN {label}{dashes}\n{body}\n{_r(rng, B64, 20)}==\n{dashes}END {label}{dashes}"


def _shapes(rng: random.Random) -> list[tuple[str, str]]:
    """(provider, secret) pairs, two or more per provider."""
    sk = "sk" + "-"
    out: list[tuple[str, str]] = []
    for _ in range(3):
        out.append(("openai", sk + _r(rng, ALNUM, 48)))
    for _ in range(3):
        out.append(("openai", sk + "proj" + "-" + _r(rng, URLSAFE, 156)))
    out.append(("openai", sk + "svcacct" + "-" + _r(rng, URLSAFE, 120)))
    for _ in range(3):
        out.append(("anthropic", sk + "ant" + "-api03-" + _r(rng, URLSAFE, 93) + "AA"))
    out.append(("anthropic", sk + "ant" + "-admin01-" + _r(rng, URLSAFE, 93) + "AA"))
    for prefix in ("ghp", "gho", "ghs", "ghu", "ghp"):
        out.append(("github", prefix + "_" + _r(rng, ALNUM, 36)))
    for _ in range(2):
        out.append(("github", "github" + "_pat_" + _r(rng, ALNUM, 22) + "_" + _r(rng, ALNUM, 59)))
    for prefix in ("AKIA", "AKIA", "ASIA", "AKIA"):
        out.append(("aws", prefix + _r(rng, UPPER_DIGITS, 16)))
    for _ in range(3):
        out.append(("google", "AI" + "za" + _r(rng, URLSAFE, 35)))
    for kind in ("b", "b", "p"):
        digits = lambda n: _r(rng, string.digits, n)  # noqa: E731
        if kind == "b":
            out.append(("slack", "xox" + "b-" + digits(11) + "-" + digits(13) + "-" + _r(rng, ALNUM, 24)))
        else:
            out.append(("slack", "xox" + "p-" + digits(11) + "-" + digits(12) + "-" + digits(13)
                        + "-" + _r(rng, HEX, 32)))
    for prefix in ("sk", "sk", "rk"):
        out.append(("stripe", prefix + "_live" + "_" + _r(rng, ALNUM, rng.choice((24, 99)))))
    for _ in range(4):
        out.append(("huggingface", "hf" + "_" + _r(rng, string.ascii_letters, 34)))
    for _ in range(3):
        out.append(("jwt", _jwt(rng)))
    more = random.Random(rng.getstate()[1][0])  # shapes added later have their own stream: the rest stay as they were
    for _ in range(2):
        out.append(("sendgrid", "S" + "G." + _r(more, URLSAFE, 22) + "." + _r(more, URLSAFE, 43)))
    # random bodies with no digit at all, as real tokens now and then have
    out.append(("github", "gh" + "p_" + _r(more, string.ascii_letters, 36)))
    out.append(("gitlab", "gl" + "pat-" + _r(more, string.ascii_letters, 20)))
    out.append(("stripe", "sk" + "_live" + "_" + _r(more, string.ascii_letters, 24)))
    return out


_CONTEXTS = [
    "{s}",
    "Deploy key for CI: {s}",
    "OPENAI_KEY={s}",
    "Use {s} for the staging bot (rotate monthly).",
    "The user's token is {s}; do not share it.",
    "export TOKEN_FOR_BOT='{s}'",
    '{{"credential": "{s}"}}',
    "creds -> {s}",
    "Mot de passe du bot : {s}",
    "API ключ для бота: {s}",
    "机器人的密钥是 {s}",
    "Clave de la API: {s} (no compartir)",
]


def build_secret_samples(seed: int = 20261115) -> list[SecretSample]:
    """About 70 texts, each holding one secret, deterministic for a seed."""
    rng = random.Random(seed)
    samples: list[SecretSample] = []
    for provider, secret in _shapes(rng):
        ctx = rng.choice(_CONTEXTS)
        samples.append(SecretSample(provider, ctx.format(s=secret), secret))

    # private-key blocks
    for kind in ("RSA", "OPENSSH", "EC", ""):
        block = _pem(rng, kind)
        samples.append(SecretSample("private_key", f"Server key (do not lose):\n{block}", block))

    # passwords inside URLs
    for tmpl in ("postgres://app:{p}@db.internal:5432/app",
                 "redis://:{p}@cache.internal:6379/0",
                 "https://deploy:{p}@git.example.org/team/repo.git",
                 "mysql://root:{p}@localhost/shop",
                 "amqp://worker:{p}@mq.internal:5672/"):
        pw = _r(rng, ALNUM, rng.randrange(14, 24))
        samples.append(SecretSample("url_password", f"Connection string: {tmpl.format(p=pw)}", pw))

    # generic assignments (no provider prefix), high-entropy values
    for tmpl in ("DB_PASSWORD={v}",
                 'password: "{v}"',
                 "client_secret = {v}",
                 "SECRET_KEY = '{v}'",
                 "token: {v}",
                 '"api_key": "{v}"',
                 "aws_secret_access_key = {v}",
                 "Authorization: Bearer {v}",
                 "mot de passe : {v}",
                 "пароль: {v}",
                 "密码：{v}"):
        alphabet = (B64 if "aws" in tmpl else ALNUM + "-._~" if "Bearer" in tmpl
                    else ALNUM + "!#%&*+-_")
        value = _r(rng, alphabet, 40 if "aws" in tmpl else rng.randrange(16, 33))
        samples.append(SecretSample("generic", tmpl.format(v=value), value))

    # other well-known shapes
    samples.append(SecretSample("telegram", "Telegram bot: " + (tok := str(rng.randrange(10**8, 10**10))
                                + ":AA" + _r(rng, URLSAFE, 33)), tok))
    samples.append(SecretSample("gitlab", "GitLab CI token " + (tok := "gl" + "pat-" + _r(rng, URLSAFE, 20)), tok))
    samples.append(SecretSample("npm", "npm publish token " + (tok := "npm" + "_" + _r(rng, ALNUM, 36)), tok))
    samples += _ops_samples(random.Random(seed + 34))  # issue 34's families: their own stream
    return samples


def _aws_id(rng: random.Random) -> str:
    return "AK" + "IA" + _r(rng, string.ascii_uppercase + "234567", 16)


def _ops_samples(rng: random.Random) -> list[SecretSample]:
    """The secrets agents meet in ops work, as they write them down: provider tokens with their
    prefixes, DSNs, and secrets named by their context in the six languages ("password is …")."""
    hexs = lambda n: _r(rng, HEX, n)  # noqa: E731
    out = [
        SecretSample("grafana", f"Grafana service token is {(t := 'gl' + 'sa_' + _r(rng, ALNUM, 32) + '_' + hexs(8))}", t),
        SecretSample("grafana", f"GRAFANA_CLOUD_TOKEN {(t := 'gl' + 'c_' + _r(rng, ALNUM + '+/', 64) + '==')}", t),
        SecretSample("datadog", f"Datadog API key is {(t := hexs(32))}", t),
        SecretSample("datadog", f"DD_APP_KEY={(t := hexs(40))}", t),
        SecretSample("newrelic", f"New Relic user key {(t := 'NR' + 'AK-' + _r(rng, UPPER_DIGITS, 27))}", t),
        SecretSample("supabase", f"supabase access token: {(t := 'sb' + 'p_' + hexs(40))}", t),
        SecretSample("linear", f"Linear API key {(t := 'lin' + '_api_' + _r(rng, ALNUM, 40))}", t),
        SecretSample("notion", f"Notion integration {(t := 'nt' + 'n_' + _r(rng, ALNUM, 46))}", t),
        SecretSample("notion", f"notion token {(t := 'sec' + 'ret_' + _r(rng, ALNUM, 43))}", t),
        SecretSample("airtable", f"Airtable PAT {(t := 'pa' + 't' + _r(rng, ALNUM, 14) + '.' + hexs(64))}", t),
        SecretSample("discord", f"Discord bot token: {(t := 'M' + _r(rng, ALNUM, 25) + '.' + _r(rng, URLSAFE, 6) + '.' + _r(rng, URLSAFE, 38))}", t),
        SecretSample("sentry_dsn", f"SENTRY_DSN https://{(t := hexs(32))}@o{rng.randrange(10**6)}.ingest.sentry.io/{rng.randrange(10**6)}", t),
        SecretSample("cloudflare", f"Cloudflare API token is {(t := _r(rng, URLSAFE, 40))}", t),
        SecretSample("vercel", f"Vercel token: {(t := _r(rng, ALNUM, 24))}", t),
        SecretSample("pagerduty", f"PagerDuty API key is {(t := 'u+' + _r(rng, URLSAFE, 18))}", t),
        SecretSample("pagerduty", f"PagerDuty user token {(t := 'u+' + _r(rng, URLSAFE, 18))} for the on-call bot", t),
        SecretSample("cloudflare", f"Cloudflare API token {(t := _r(rng, URLSAFE, 40))} (zone edit)", t),
        # cloud keys with their secret halves: the half with no shape of its own is found beside its id
        SecretSample("aws_secret", f"AWS creds for ci: {_aws_id(rng)} / {(t := _r(rng, ALNUM + '/+', 40))}", t),
        SecretSample("aws_secret", f"AWS key {_aws_id(rng)}, secret {(t := _r(rng, ALNUM + '/+', 40))}", t),
        SecretSample("azure", "DefaultEndpointsProtocol=https;AccountName=tidewaylogs;AccountKey="
                     f"{(t := _r(rng, ALNUM + '+/', 86) + '==')};EndpointSuffix=core.windows.net", t),
    ]
    for tmpl in ("The staging DB password is {v}", "Le mot de passe de la base est {v}",
                 "La contraseña de staging es {v}", "la password del database è {v}", "пароль от базы — {v}",
                 "数据库密码是{v}", "The API key is {v}", "token: {v}", "пароль {v}", "staging password {v}"):
        v = _r(rng, ALNUM, rng.randrange(10, 14)) + rng.choice("-!#") + _r(rng, ALNUM, 4)
        out.append(SecretSample("named", tmpl.format(v=v), v))
    return out
