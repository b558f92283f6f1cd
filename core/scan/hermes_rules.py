"""Hermes's own memory scan, as a table (HERMES-FORMATS.md §3).

The ids, their order and what each matches follow Hermes's threat-pattern list at the
strict scope memory uses: every pattern applies, matched case-insensitively on the
NFKC-normalised text (capped at 65,536 chars). The order matters: Hermes's message
names the first hit, invisible characters first. "Filler" is up to 8 words.
"""

from __future__ import annotations

import re

from core.scan.rules import KEEP, Rule, Verdict, is_placeholder, looks_random, rule

MAX_SCAN_CHARS = 65_536

# The 17 invisible / bidirectional characters Hermes refuses, with their names.
INVISIBLE_CHARS: dict[str, str] = {
    "\u200b": "zero width space",
    "\u200c": "zero width non-joiner",
    "\u200d": "zero width joiner",
    "\u2060": "word joiner",
    "\u2062": "invisible times",
    "\u2063": "invisible separator",
    "\u2064": "invisible plus",
    "\ufeff": "zero width no-break space (byte-order mark)",
    "\u202a": "left-to-right embedding",
    "\u202b": "right-to-left embedding",
    "\u202c": "pop directional formatting",
    "\u202d": "left-to-right override",
    "\u202e": "right-to-left override",
    "\u2066": "left-to-right isolate",
    "\u2067": "right-to-left isolate",
    "\u2068": "first strong isolate",
    "\u2069": "pop directional isolate",
}
INVISIBLE_RE = re.compile("[" + "".join(INVISIBLE_CHARS) + "]")

_F = r"(?:\w+\s+){0,8}"                                   # filler: up to 8 words
_SECRET_VAR = r"\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)S?\b"
_MODIFY = r"(?:update|modify|edit|write|change|append|add\s+to)\s+[^\n]{0,2048}"

def _ambiguous(hint: str):
    """C2 vocabulary that ordinary ops notes use too: a warning with a rewording hint."""
    verdict = Verdict("warning", f"common in harmless notes too; if this is one, {hint}")

    def refine(_m: re.Match[str]) -> Verdict:
        return verdict

    return refine


_SSH_LOCATION = re.compile(
    r"\b(?:is|are|lives?|kept|stored|located|sits?|found|saved|placed)\s+(?:at|in|under|inside)\s*$"
    r"|\b(?:at|in|under|from|see)\s*$|:\s*$",
    re.IGNORECASE,
)
_SSH_ATTACK = re.compile(r"authorized_keys|\b(?:cat|scp|curl|wget|send|upload|copy|cp|echo)\b",
                         re.IGNORECASE)


def _ssh_access(m: re.Match[str]) -> Verdict:
    before = m.string[max(0, m.start() - 40):m.start()]
    line_start = m.string.rfind("\n", 0, m.start()) + 1
    line_end = m.string.find("\n", m.end())
    line = m.string[line_start:line_end if line_end >= 0 else len(m.string)]
    # (whether the release blocks it is said by core.scan.scanner from the release's own scan)
    if _SSH_LOCATION.search(before) and not _SSH_ATTACK.search(line):
        return Verdict("warning", "probably harmless: a note saying where a key lives, like 'SSH key "
                                  "is at ~/.ssh/x'; 'in the usual SSH folder' says the same without the path")
    return Verdict(None, "reading or sending what is in ~/.ssh is how keys leak")


def _hardcoded_secret(m: re.Match[str]) -> Verdict:
    value = m.group("secret")
    if is_placeholder(value) or not looks_random(value, min_len=20):
        return Verdict("error", "looks like a placeholder, but Hermes still blocks it")
    return KEEP


def _h(id: str, pattern: str, severity: str, summary: str, kind: str, **kw) -> Rule:
    return rule(id, pattern, severity, summary, hermes=True, kind=kind, **kw)


HERMES_RULES: tuple[Rule, ...] = (
    # injection
    _h("prompt_injection", rf"ignore\s+{_F}(?:previous|all|above|prior)\s+{_F}instructions",
       "error", "tells the agent to ignore its instructions", "injection",
       gate="ignore"),
    _h("sys_prompt_override", r"system\s+prompt\s+override", "error",
       "claims to override the system prompt", "injection",
       gate="override"),
    _h("disregard_rules",
       rf"disregard\s+{_F}(?:your|all|any)\s+{_F}(?:instructions|rules|guidelines)",
       "error", "tells the agent to disregard its rules", "injection",
       gate="disregard"),
    _h("bypass_restrictions",
       rf"act\s+as\s+(?:if|though)\s+{_F}you\s+{_F}(?:have\s+no|don't\s+have)\s+{_F}"
       r"(?:restrictions|limits|rules)",
       "error", "asks the agent to act as if it had no restrictions", "injection",
       gate="act"),
    _h("html_comment_injection",
       r"<!--[^>]{0,512}(?<![A-Za-z])(?:ignore|override|system|secret|hidden)(?![A-Za-z])"
       r"[^>]{0,512}-->",
       "error", "an HTML comment hiding instructions", "injection",
       gate=("<!--", "-->")),
    _h("hidden_div", r"<\s*div\s+style\s*=\s*[\"'][^>]{0,2048}display\s*:\s*none", "error",
       "a hidden <div> (display:none)", "injection",
       gate=("div", "none")),
    _h("translate_execute",
       r"translate\s+[^\n]{0,512}\s+into\s+\w+(?:[\s-]+\w+){0,2}\s+and\s+(?:execute|run|eval)\b",
       "error", "asks to translate something and then execute it", "injection",
       gate=("translate", "into")),
    _h("deception_hide", rf"do\s+not\s+{_F}tell\s+{_F}the\s+user", "error",
       "tells the agent to hide something from the user", "injection",
       gate=("tell", "user")),
    # role and identity
    _h("role_hijack", rf"you\s+are\s+{_F}now\s+(?:a|an|the)\s+", "error",
       "tries to give the agent a new role ('you are now a …')", "role",
       gate=("you", "now")),
    _h("role_pretend", rf"pretend\s+{_F}(?:you\s+are|to\s+be)\s+", "error",
       "asks the agent to pretend to be someone else", "role",
       gate="pretend"),
    _h("leak_system_prompt", rf"output\s+{_F}(?:system|initial)\s+prompt", "error",
       "asks the agent to output its system prompt", "role",
       gate=("output", "prompt")),
    _h("remove_filters",
       rf"(?:respond|answer|reply)\s+without\s+{_F}(?:restrictions|limitations|filters|safety)",
       "error", "asks for answers without safety filters", "role",
       gate="without"),
    _h("fake_update", rf"you\s+have\s+been\s+{_F}(?:updated|upgraded|patched)\s+to", "error",
       "claims the agent has been updated or patched", "role",
       gate="been"),
    _h("identity_override", r"\bname\s+yourself\s+\w+", "error",
       "tells the agent to rename itself", "role",
       gate="yourself"),
    # command and control
    _h("c2_node_registration", r"register\s+(?:as\s+)?a?\s*node", "error",
       "command-and-control wording: register as a node", "c2",
       refine=_ambiguous("say 'join the cluster'"),
       gate=("register", "node")),
    _h("c2_heartbeat", r"(?:heartbeat|beacon|check[\s\-]?in)\s+(?:to|with)\s+", "error",
       "command-and-control wording: heartbeat/beacon/check in to", "c2",
       refine=_ambiguous("say 'status ping' or 'reports its status'"),
       gate="heartbeat|beacon|check"),
    _h("c2_task_pull", r"pull\s+(?:down\s+)?(?:new\s+)?task(?:ing|s)?\b", "error",
       "command-and-control wording: pull tasks", "c2",
       refine=_ambiguous("say 'fetch jobs'"),
       gate=("pull", "task")),
    _h("c2_network_connect", r"connect\s+to\s+the\s+network\b", "error",
       "command-and-control wording: connect to the network", "c2",
       refine=_ambiguous("say 'join the network'"),
       gate="network"),
    _h("forced_action", r"you\s+must\s+(?:\w+\s+){0,3}(?:register|connect|report|beacon)\b",
       "error", "orders the agent to register, connect, report or beacon", "c2",
       gate="must"),
    _h("anti_forensic_oneliner", r"only\s+use\s+one[\s\-]?liners?\b", "error",
       "anti-forensic instruction: only use one-liners", "c2",
       gate="liner"),
    _h("anti_forensic_disk",
       rf"never\s+{_F}(?:create|write)\s+{_F}(?:script|file)\s+{_F}disk", "error",
       "anti-forensic instruction: never write files to disk", "c2",
       gate=("never", "disk")),
    _h("env_var_unset_agent",
       r"unset\s+\w*(?:CLAUDE|CODEX|HERMES|AGENT|OPENAI|ANTHROPIC)\w*", "error",
       "unsets an agent-runtime environment variable", "c2",
       gate="unset"),
    _h("known_c2_framework", r"\b(?:cobalt\s*strike|sliver|havoc|mythic|metasploit|brainworm)\b",
       "error", "names a red-team / command-and-control framework", "c2",
       refine=_ambiguous("reword it: Hermes blocks the bare word, even 'havoc' in plain English"),
       gate="cobalt|sliver|havoc|mythic|metasploit|brainworm"),
    _h("c2_explicit", r"\bc2\s+(?:server|channel|infrastructure|beacon)\b", "error",
       "mentions C2 infrastructure", "c2",
       gate="c2"),
    _h("c2_explicit_long", r"\bcommand\s+and\s+control\b", "error",
       "mentions command and control", "c2",
       gate="control"),
    # exfiltration
    _h("exfil_curl", rf"curl\s+[^\n]{{0,2048}}{_SECRET_VAR}", "error",
       "curl on a line that expands a secret variable", "exfiltration",
       gate=("curl", "$")),
    _h("exfil_wget", rf"wget\s+[^\n]{{0,2048}}{_SECRET_VAR}", "error",
       "wget on a line that expands a secret variable", "exfiltration",
       gate=("wget", "$")),
    _h("read_secrets",
       r"cat\s+[^\n]{0,2048}(?:\.env|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc)", "error",
       "reads a credentials file with cat", "exfiltration",
       gate=("cat", ".env|credentials|.netrc|.pgpass|.npmrc|.pypirc")),
    _h("send_to_url", r"(?:send|post|upload|transmit)\s+[^\n]{0,2048}\s+(?:to|at)\s+https?://",
       "error", "sends something to a URL", "exfiltration",
       gate=("send|post|upload|transmit", "http")),
    _h("context_exfil",
       rf"(?:include|output|print|share)\s+{_F}(?:conversation|chat\s+history|previous\s+messages"
       r"|full\s+context|entire\s+context)",
       "error", "asks to output the conversation or context", "exfiltration",
       gate=("include|output|print|share", "conversation|chat|previous|full|entire")),
    # persistence
    _h("ssh_backdoor", r"authorized_keys", "error", "mentions SSH authorized_keys",
       "persistence",
       gate="authorized_keys"),
    _h("ssh_access", r"\$HOME/\.ssh|~/\.ssh", "error", "mentions the ~/.ssh folder",
       "persistence", refine=_ssh_access,
       gate=".ssh"),
    _h("hermes_env", r"\$HOME/\.hermes/\.env|~/\.hermes/\.env", "error",
       "mentions Hermes's secrets file ~/.hermes/.env", "persistence",
       gate=".hermes/.env"),
    _h("agent_config_mod",
       rf"{_MODIFY}(?:AGENTS\.md|CLAUDE\.md|\.cursorrules|\.clinerules)", "error",
       "asks to modify an agent instruction file", "persistence",
       gate=("update|modify|edit|write|change|append|add", "agents.md|claude.md|.cursorrules|.clinerules")),
    _h("hermes_config_mod", rf"{_MODIFY}\.hermes/(?:config\.yaml|SOUL\.md)", "error",
       "asks to modify Hermes's config.yaml or SOUL.md", "persistence",
       gate=("update|modify|edit|write|change|append|add", ".hermes/", "config.yaml|soul.md")),
    # secrets
    _h("hardcoded_secret",
       r"(?:api[_-]?key|token|secret|password)\s*[=:]\s*[\"'](?P<secret>[A-Za-z0-9+/=_-]{20,})",
       "critical", "a hard-coded secret", "secret", secret_group="secret",
       refine=_hardcoded_secret,
       gate="api|token|secret|password"),
)

HERMES_IDS: tuple[str, ...] = tuple(r.id for r in HERMES_RULES)

CATEGORY_HELP = {
    "injection": "Text that tries to override the agent's instructions. Memory is injected into "
                 "every system prompt, so a poisoned entry acts in every session.",
    "role": "Text that tries to change who the agent is or what it may say.",
    "c2": "Command-and-control ('promptware') wording: instructions that turn the agent into a "
          "remotely tasked bot.",
    "exfiltration": "Text that would make the agent send secrets or the conversation elsewhere.",
    "persistence": "References to SSH keys, Hermes's secrets or agent config files: the usual "
                   "routes for an attack to persist.",
    "secret": "A credential stored in memory is sent to the model provider with every prompt "
              "and shows up in logs and transcripts.",
}
