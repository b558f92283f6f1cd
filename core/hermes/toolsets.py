"""Whether the agent has its memory tool, per platform, and whether an external memory provider is
set: config.yaml's `agent.disabled_toolsets`, `platform_toolsets.<platform>` and `memory.provider`,
read as each release reads them (measured on 0.19.0, 0.20.1 and 0.22.2; the conformance suite runs
the releases' own resolvers on a matrix of config files: tests/conformance/test_toolsets.py).

- **The toolsets a platform gets** (`hermes_cli.tools_config._get_platform_tools`): the platform's
  default bundle (`hermes-cli`, `hermes-telegram`…, all holding the memory tool but `hermes-webhook`)
  unless `platform_toolsets.<platform>` is an explicit list. An explicit list has the memory tool
  when it names `memory` or a bundle holding it (`coding`, `hermes-*`). 0.22 also takes a string that
  reads as a Python list (`"['memory']"`); earlier releases take only a real list. A
  `platform_toolsets` that is set but isn't a mapping stops Hermes at start.
- **`agent.disabled_toolsets`** is subtracted by name. 0.20 and later parse it
  (`parse_config_string_list`: a list; a string that reads as a Python list; any other string is one
  name; anything else is nothing) and strip each name. 0.19 uses the raw value: a string is walked
  character by character (so `'["memory"]'`, which `hermes config set` writes there, disables
  nothing), a mapping by its keys, and a number stops Hermes at start. From 0.18.1, naming a bundle
  there never removes the memory tool (core tools stay); before, it does.
- **The stores' own switches**: 0.22 drops the tool when both `memory_enabled` and
  `user_profile_enabled` are off; 0.19-0.20 keep it, and every call answers "Memory is not
  available". Either way nothing can be written.
- Turning the tool off does not stop MEMORY.md and USER.md from being loaded into the prompt.
- **`memory.provider`**: an external plugin next to the built-in store when it is a non-empty
  string; 0.22 reads "", default, builtin, built-in and none as no provider. Its folder is
  `<home>/plugins/<name>/` (or bundled with the release); 0.22 leaves
  `<home>/cache/left-core-<name>.failed` when installing a provider that left the core failed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from core.hermes.config import MISSING, describe

if TYPE_CHECKING:  # pragma: no cover
    from core.hermes.release import Release

TOOL = "memory"
NO_MEMORY_BUNDLES = frozenset({"hermes-webhook"})
# the platforms whose default bundle (hermes-<platform>) the releases define (0.19-0.22); each holds the
# memory tool but webhook's
KNOWN_PLATFORMS = frozenset({"acp", "api-server", "bluebubbles", "cli", "cron", "dingtalk", "discord", "email",
                             "feishu", "gateway", "homeassistant", "matrix", "mattermost", "qqbot", "signal", "slack",
                             "sms", "telegram", "webhook", "wecom", "wecom-callback", "weixin", "whatsapp", "yuanbao"})
CORE_PROVIDER_NAMES = frozenset({"", "default", "builtin", "built-in", "none"})  # 0.22: no external provider


def is_platform(name: str) -> bool:
    """Whether a session source is a platform hmc knows the default toolsets of."""
    return name.replace("_", "-") in KNOWN_PLATFORMS


def holds_memory(name: str, release: "Release") -> bool:
    """Whether toolset `name` brings the memory tool."""
    if name == TOOL:
        return True
    if name == "coding":  # the coding posture's toolset, from 0.17
        return release >= (0, 17)
    if name == "hermes":  # 0.22's legacy name for hermes-cli + hermes-api-server
        return release >= (0, 22)
    return name.startswith("hermes-") and name not in NO_MEMORY_BUNDLES


@dataclass(frozen=True)
class Availability:
    """The memory tool on one platform: `on` (None: Hermes can't start with this config), and, when
    it is off or unknown, why, naming the config key."""

    platform: str
    on: bool | None
    why: str | None = None
    key: str | None = None  # the config.yaml key that decides it

    def to_json(self) -> dict:
        return {"platform": self.platform, "enabled": self.on, "why": self.why, "key": self.key}


@dataclass(frozen=True)
class ToolSettings:
    """The raw config.yaml values this module reads (MISSING: not set)."""

    disabled: object = MISSING  # agent.disabled_toolsets
    platforms: object = MISSING  # platform_toolsets
    provider: object = MISSING  # memory.provider
    agent_ok: bool = True  # the agent section is a mapping (or absent)

    @classmethod
    def of(cls, data: object) -> "ToolSettings":
        """From a parsed config.yaml (anything: a document that isn't a mapping sets nothing)."""
        if not isinstance(data, dict):
            return cls()
        agent = data.get("agent", MISSING)
        memory = data.get("memory")
        return cls(
            disabled=agent.get("disabled_toolsets", MISSING) if isinstance(agent, dict) else MISSING,
            platforms=data.get("platform_toolsets", MISSING),
            provider=memory.get("provider", MISSING) if isinstance(memory, dict) else MISSING,
            agent_ok=agent is MISSING or agent is None or isinstance(agent, dict),
        )

    _FIELDS = ("disabled", "platforms", "provider")

    def to_plain(self) -> dict:
        """The settings as plain values (core.config_cache keeps them): the fields set, and agent_ok."""
        out: dict = {name: getattr(self, name) for name in self._FIELDS if getattr(self, name) is not MISSING}
        out["agent_ok"] = self.agent_ok
        return out

    @classmethod
    def from_plain(cls, plain: object) -> "ToolSettings":
        """to_plain's value back (anything else: no settings)."""
        if not isinstance(plain, dict) or not isinstance(plain.get("agent_ok", True), bool):
            return cls()
        return cls(**{name: plain[name] for name in cls._FIELDS if name in plain},
                   agent_ok=plain.get("agent_ok", True))


def problems(settings: ToolSettings, release: "Release") -> list[str]:
    """The tool settings a person should fix: values of the wrong type, and what the release makes
    of them (hmc follows the release, and says so)."""
    out = []
    value = settings.disabled
    key = "config.yaml: agent.disabled_toolsets"
    if value is not MISSING and value is not None and not isinstance(value, list):
        if isinstance(value, str) and value:
            if release < (0, 20):
                out.append(f"{key} = {describe(value)} is a string, which Hermes {release.name} reads character "
                           "by character: it disables nothing (write a YAML list: [memory])")
            elif value.strip().startswith("[") and _string_list(value) == [value]:
                out.append(f"{key} = {describe(value)} doesn't read as a list, so Hermes takes it as one toolset "
                           "name (write a YAML list: [memory])")
            elif "," in value and not value.strip().startswith("["):
                out.append(f"{key} = {describe(value)} is one name to Hermes (it doesn't split on commas): write "
                           "a YAML list")
        elif not isinstance(value, str):
            what = ("stops Hermes at start" if release < (0, 20) and not isinstance(value, dict) else
                    "is read by its keys" if release < (0, 20) else "is ignored")
            out.append(f"{key} = {describe(value)} is not a list: in Hermes {release.name} it {what}")
    platforms = settings.platforms
    if platforms is not MISSING and platforms and not isinstance(platforms, dict):
        out.append(f"config.yaml: platform_toolsets = {describe(platforms)} is not a mapping of platforms to lists: "
                   "Hermes stops at start reading it")
    elif isinstance(platforms, dict):
        for name, listed in platforms.items():
            if listed is None or isinstance(listed, list):
                continue
            if _platform_list(listed, release) is None:
                out.append(f"config.yaml: platform_toolsets.{_shown(str(name))} = {describe(listed)} is not a list: "
                           f"Hermes {release.name} gives that platform its default toolsets")
    if not settings.agent_ok:
        out.append("config.yaml: the agent section is not a mapping: Hermes stops at start reading it")
    return out


def _string_list(value: object) -> list[str]:
    """0.20+'s parse_config_string_list."""
    if isinstance(value, str):
        if value.strip().startswith("["):
            try:
                parsed = ast.literal_eval(value.strip())
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                return [value]
            if isinstance(parsed, list):
                return [str(x) for x in parsed]
        return [value]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [str(x) for x in value]
    return []


def disabled_names(value: object, release: "Release") -> set[str] | None:
    """The names `agent.disabled_toolsets` disables (None: a value that stops Hermes at start)."""
    if value is MISSING:
        return set()
    if release >= (0, 20):
        return {name.strip() for name in _string_list(value)}
    if not value:  # 0.19: `… or []`, then each item str()-ed
        return set()
    if isinstance(value, (str, list, tuple, dict, set)):
        return {str(item) for item in value}
    return None  # a number, a date…: not iterable, and Hermes's toolset resolution raises


def _platform_list(value: object, release: "Release") -> list[str] | None:
    """The explicit toolset list of one platform (None: not an explicit list, the default applies)."""
    if isinstance(value, list):
        return [str(x) for x in value]
    if release >= (0, 22) and isinstance(value, str) and value.strip().startswith("["):
        try:
            parsed = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
        if isinstance(parsed, list):
            return [str(x) for x in parsed]
    return None


def _shown(name: str) -> str:
    """A toolset name as hmc shows it: printable, at most 40 characters."""
    text = "".join(c if c.isprintable() else "?" for c in name[:40])
    return text + ("…" if len(name) > 40 else "")


def memory_tool(settings: ToolSettings, platform: str, release: "Release",
                stores_on: tuple[bool, bool] = (True, True)) -> Availability:
    """Whether a session on `platform` (cli, telegram, discord…: a session's source) has the memory
    tool, as `release` resolves it."""
    if not settings.agent_ok:
        return Availability(platform, None, "the agent section of config.yaml is not a mapping, and Hermes "
                            "stops at start reading it", "agent")
    platforms = settings.platforms
    if platforms is not MISSING and platforms and not isinstance(platforms, dict):
        return Availability(platform, None, f"platform_toolsets is {describe(platforms)}, not a mapping of "
                            "platforms to lists, and Hermes stops at start reading it", "platform_toolsets")
    names = disabled_names(settings.disabled, release)
    if names is None:
        return Availability(platform, None, f"agent.disabled_toolsets is {describe(settings.disabled)}, not a "
                            f"list, and Hermes {release.name} stops at start reading it", "agent.disabled_toolsets")
    value = platforms.get(platform, MISSING) if isinstance(platforms, dict) else MISSING
    chosen = _platform_list(value, release) if value is not MISSING else None
    if chosen is not None and not any(holds_memory(name, release) for name in chosen):
        shown = ", ".join(_shown(name) for name in chosen[:6]) + (", …" if len(chosen) > 6 else "")
        return Availability(platform, False, f"platform_toolsets.{platform} lists [{shown}], without memory",
                            f"platform_toolsets.{platform}")
    if chosen is None:
        bundle = platform.replace("_", "-")
        if not is_platform(platform):
            return Availability(platform, None, f"hmc doesn't know the {platform!r} platform's default toolsets",
                                f"platform_toolsets.{platform}")
        if not holds_memory(f"hermes-{bundle}", release):
            return Availability(platform, False, f"the {platform} platform's default toolsets (hermes-{bundle}) "
                                "have no memory tool", f"platform_toolsets.{platform}")
    if TOOL in names:
        return Availability(platform, False, "agent.disabled_toolsets turns the memory toolset off",
                            "agent.disabled_toolsets")
    if release < (0, 18, 1):  # before 0.18.1 a disabled bundle takes its core tools with it
        bundle = next((name for name in sorted(names) if holds_memory(name, release)), None)
        if bundle is not None:
            return Availability(platform, False, f"agent.disabled_toolsets turns off {bundle}, and with it the "
                                "memory tool", "agent.disabled_toolsets")
    if not any(stores_on):
        return Availability(platform, False, "memory_enabled and user_profile_enabled are both off",
                            "memory.memory_enabled")
    return Availability(platform, True)


@dataclass(frozen=True)
class Provider:
    """memory.provider: the external memory plugin set next to the built-in store."""

    name: str | None  # None: none set (or one the release reads as the built-in store)
    problem: str | None = None  # a value the release can't use
    folder: Path | None = None  # <home>/plugins/<name>, when it is there
    failed_install: Path | None = None  # <home>/cache/left-core-<name>.failed, when it is there

    def to_json(self) -> dict:
        return {"name": self.name, "problem": self.problem, "plugin_folder": str(self.folder) if self.folder else None,
                "failed_install_marker": str(self.failed_install) if self.failed_install else None}


def provider(settings: ToolSettings, home: Path, release: "Release") -> Provider:
    value = settings.provider
    if value is MISSING or value is None:
        return Provider(None)
    if not isinstance(value, str):
        return Provider(None, f"memory.provider is {describe(value)}, not a name: Hermes's provider set-up fails "
                              "and it runs on the built-in store alone")
    name = value.strip()
    if not name or (release >= (0, 22) and name.lower() in CORE_PROVIDER_NAMES):
        return Provider(None)
    if "/" in name or "\x00" in name or name in (".", "..") or len(name.encode("utf-8", "surrogatepass")) > 255:
        return Provider(name, f"memory.provider {describe(value)} is not a plugin name")
    folder = home / "plugins" / name
    marker = home / "cache" / f"left-core-{name}.failed"
    return Provider(name, None, folder if folder.is_dir() else None, marker if marker.is_file() else None)


@dataclass(frozen=True)
class MemorySetup:
    """Whether memory is on for a profile: each store's switch, the tool per platform, the provider."""

    stores: dict  # target -> enabled (memory_enabled / user_profile_enabled, as the release reads them)
    tools: dict  # platform -> Availability
    provider: Provider
    problems: tuple[str, ...] = ()  # tool settings of the wrong type (problems())

    def writable(self, target: str, platform: str = "cli") -> bool | None:
        """Whether the agent on `platform` can write `target` (None: unknown)."""
        tool = self.tools.get(platform)
        if tool is not None and tool.on is not True:
            return tool.on
        return bool(self.stores.get(target, True))

    @property
    def tool_off(self) -> list[Availability]:
        """The platforms where the tool is off or unknown."""
        return [a for a in self.tools.values() if a.on is not True]

    def to_json(self) -> dict:
        return {"stores": dict(self.stores), "platforms": {p: a.to_json() for p, a in self.tools.items()},
                "provider": self.provider.to_json()}
