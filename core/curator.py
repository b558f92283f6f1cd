"""The one context object the CLI, the TUI and the tests share."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

from core.hermes.release import NEWEST, Detection, Release, detect
from core.store.atomic import read_regular
from core.store.journal import History
from core.home import HermesHome, read_config, resolve_home
from core.store.memory import FILE_NAMES, TARGETS, MemoryStore

if TYPE_CHECKING:  # pragma: no cover
    from core.hermes.toolsets import MemorySetup
    from core.pending.queue import PendingQueue
    from core.pending.skills import SkillQueue
    from core.sessions.search import SessionDB
    from core.snapshots.session import SessionLoad
    from core.snapshots.tally import Snapshots
    from core.snapshots.pruning import Pruning


MAX_PYPROJECT_BYTES = 1 << 20  # a hermes-agent checkout's pyproject.toml (its version line)


@dataclass
class Curator:
    home: HermesHome
    today: date
    clock: Callable[[], float] = time.time
    stores: dict[str, MemoryStore] = field(default_factory=dict)
    history: History | None = None
    hermes: Detection | None = None  # which release's rules apply (core.hermes.release.detect)
    hermes_version: str | None = None  # an explicit --hermes-version, kept for profile switches

    def __post_init__(self) -> None:
        if self.hermes is None:
            self.hermes = detect(self.home.root, self._schema_version, self.hermes_version,
                                 read_file=lambda path: read_regular(path, MAX_PYPROJECT_BYTES))
        if self.hermes.release != NEWEST:
            # read config.yaml again as the detected release reads it
            self.home = replace(self.home, config=read_config(self.home.config_path, self.release))
        if self.history is None:
            self.history = History(self.home.root, clock=self.clock)
        if not self.stores:
            config = self.home.config
            self.stores = {
                target: MemoryStore(
                    target, self.home.memories / FILE_NAMES[target], config.limit(target),
                    config.enabled(target), self.history, release=self.release,
                )
                for target in TARGETS
            }

    def _schema_version(self) -> int | None:
        """state.db's schema version, read the careful read-only way (None: no usable database)."""
        if not self.home.state_db.is_file():
            return None
        try:  # only the connection layer: core.sessions.search is imported when searching (faster start)
            from core.sessions.db import ReadOnlyConnections, probe

            conns = ReadOnlyConnections(self.home.state_db)
            try:
                return probe(conns.get(), self.home.state_db).version
            finally:
                conns.close()
        except Exception:  # noqa: BLE001 - any unusable database just doesn't tell the release
            return None

    @property
    def release(self) -> Release:
        return self.hermes.release if self.hermes is not None else NEWEST

    def now(self) -> float:
        return self.clock()

    @cached_property
    def pending(self) -> "PendingQueue":
        """The memory writes Hermes staged (pending/memory/)."""
        from core.pending.queue import PendingQueue

        return PendingQueue(self.home.pending_dir, self.stores, self.history, self.now)

    @cached_property
    def pending_skills(self) -> "SkillQueue":
        """The skill writes Hermes staged (pending/skills/), journaled in this curator's history."""
        from core.pending.skills import SkillQueue

        return SkillQueue(self.home.root, history=self.history)

    @cached_property
    def sessions(self) -> "SessionDB":
        from core.sessions.search import SessionDB

        return SessionDB(self.home.state_db, release=self.release)

    def snapshots(self, should_stop: Callable[[], bool] | None = None) -> "Snapshots":
        """What every session of state.db loaded (raises core.sessions.db.DatabaseError), read
        through hmc's cache (core.snapshots.cache: a later run reads only the sessions that changed)."""
        from core.snapshots import cache

        db = self.home.state_db
        return self.sessions.read_with(lambda conn, schema: cache.read(db, conn, schema.session_columns, should_stop),
                                       should_stop)

    def session_load(self, session_id: str) -> "SessionLoad | None":
        """One session of state.db and the memory it loaded (None: no such session; raises
        core.sessions.db.DatabaseError)."""
        from core.snapshots.loaded import Reader

        return self.sessions.read_with(lambda conn, schema: Reader(conn, schema.session_columns).one(session_id))

    def recent_sessions(self, limit: int) -> "list[SessionLoad]":
        """The `limit` most recently active sessions of state.db and what each loaded, most recent
        first (raises core.sessions.db.DatabaseError)."""
        from core.snapshots.loaded import Reader

        return self.sessions.read_with(lambda conn, schema: Reader(conn, schema.session_columns).recent(limit))

    def now_entries(self) -> dict[str, tuple[str, ...] | None]:
        """Each store's entries as a session starting now loads them (as shown in the prompt; None:
        disabled or unreadable, so nothing is injected)."""
        from core.hermes.memory import prompt_entries

        out: dict[str, tuple[str, ...] | None] = {}
        for target, store in self.stores.items():
            snap = store.read() if store.enabled else None
            out[target] = None if snap is None or snap.error else tuple(
                prompt_entries(target, list(snap.entries), self.release))
        return out

    def pruning(self) -> "Pruning":
        """Hermes's session pruning: its settings and last run (no run known without a state.db)."""
        from core.snapshots import pruning

        try:
            last = self.sessions.read_with(lambda conn, schema: pruning.last_run(conn)) \
                if self.home.state_db.is_file() else None
        except Exception:  # noqa: BLE001 - an unusable state.db records no run
            last = None
        enabled, days = pruning.settings(self.home.config_path, self.release)
        return pruning.Pruning(enabled, days, last)

    def memory_setup(self, platforms: "Iterable[str] | None" = None) -> "MemorySetup":
        """Whether memory is on, as the release resolves it: each store's switch, the memory tool on
        each platform (`platforms`; default: cli, the platforms config.yaml names and the sessions'
        sources), and the external provider (core.hermes.toolsets)."""
        from core.hermes.toolsets import MemorySetup, is_platform, memory_tool, problems, provider
        from core.home import read_tool_settings

        settings = read_tool_settings(self.home.config_path, self.release)
        if platforms is None:
            named = settings.platforms if isinstance(settings.platforms, dict) else {}
            platforms = ["cli", *(str(p) for p in named)]
            if self.home.state_db.is_file():
                try:  # sources that are platforms (a subagent's or a tool's session isn't one)
                    platforms += [source for source, _ in self.sessions.sources() if is_platform(source)]
                except Exception:  # noqa: BLE001 - an unreadable state.db names no platform
                    pass
        stores = {target: store.enabled for target, store in self.stores.items()}
        on = (stores.get("memory", True), stores.get("user", True))
        tools = {p: memory_tool(settings, p, self.release, on) for p in dict.fromkeys(platforms) if p}
        return MemorySetup(stores, tools, provider(settings, self.home.root, self.release),
                           tuple(problems(settings, self.release)))

    def reload_config(self) -> bool:
        """Re-read config.yaml (limits, enabled flags, write approval); True when anything changed."""
        config = read_config(self.home.config_path, self.release)
        if config == self.home.config:
            return False
        self.home = replace(self.home, config=config)
        for target, store in self.stores.items():
            store.limit, store.enabled = config.limit(target), config.enabled(target)
            store.read()  # drift depends on the limit
        return True

    def switch_profile(self, profile: str) -> "Curator":
        """A new curator on another profile of the same base home (with its own queues)."""
        return open_curator(self.home.base, profile, self.today, self.clock, self.hermes_version)


def open_curator(home: str | Path | None = None, profile: str | None = None, today: date | None = None,
                 clock: Callable[[], float] = time.time, hermes_version: str | None = None) -> Curator:
    """Resolve the home (raises core.home.HomeError; a bad `hermes_version` raises
    core.hermes.release.VersionError) and build the curator for it."""
    release = None
    if profile is None:  # active_profile is read as the installed release reads it (a BOM, markers)
        base = Path(home).expanduser() if home else None
        if base is not None and base.is_dir() or home is None:
            from core.home import default_home

            release = detect(base if base is not None else default_home(), None, hermes_version,
                             read_file=lambda path: read_regular(path, MAX_PYPROJECT_BYTES)).release
    resolved = resolve_home(home, profile, release)
    return Curator(resolved, today or date.today(), clock, hermes_version=hermes_version)
