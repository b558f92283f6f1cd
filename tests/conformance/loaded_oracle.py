"""Run inside a Hermes release (PYTHONPATH=<release>, HERMES_HOME=<scratch>), never imported by the
tests: builds sessions' system prompts with the release's own code and stores them with its own
SessionDB, then prints, for each session, the memory text the release put into its prompt.

stdin: {"db": path, "cases": [{"id", "memory": [..], "user": [..], "memory_enabled", "user_enabled",
"memory_limit", "user_limit", "resume_of"?, "child_of"?, "tool_pin"?}]}
stdout: {"<id>": {"memory_text": the release's memory parts joined as its prompt joins them,
"prompt": the full prompt, "stored": what get_session returns as the prompt}}

A case's stores are written as raw files (so an entry the scan blocks can exist, as when a person
or an importer wrote it), then loaded the way the agent loads them at start. The prompt comes from
agent.system_prompt.build_system_prompt with a minimal agent object: no tools, no context files,
no plugins (the attributes the builder reads, set to what a plain CLI session has)."""

from __future__ import annotations

import json
import os
import sys
import types
from pathlib import Path


class Agent:
    def __init__(self, store, memory: bool, user: bool, session_id: str):
        self._memory_store = store
        self._memory_enabled = memory
        self._user_profile_enabled = user
        self._memory_manager = None
        self.load_soul_identity = False
        self.skip_context_files = True
        self.valid_tool_names = set()
        self._tool_use_enforcement = "auto"
        self.model = "oracle-model"
        self.provider = "oracle-provider"
        self.platform = "cli"
        self.pass_session_id = False
        self.session_id = session_id
        self.context_compressor = None
        self.enabled_toolsets = None
        self.disabled_toolsets = None
        self._environment_probe = False
        self._bot_mode_protocol = False
        self._plugin_system_prompt_sections_snapshot = ()
        self._cached_system_prompt = None

    def __getattr__(self, name):  # any other switch the builder probes: off
        if name.startswith("__"):
            raise AttributeError(name)
        return None

    def _emit_status(self, *a, **k):
        pass

    _emit_diagnostic_status = _emit_status


def memory_parts(agent) -> list[str]:
    """The release's memory parts, as its volatile tier collects them."""
    import agent.system_prompt as sp

    if hasattr(sp, "_memory_parts"):  # 0.22
        return [p for p in sp._memory_parts(agent) if p]
    parts = []  # 0.19 / 0.20: inline in build_system_prompt_parts
    for enabled, target in ((agent._memory_enabled, "memory"), (agent._user_profile_enabled, "user")):
        if enabled:
            block = agent._memory_store.format_for_system_prompt(target)
            if block:
                parts.append(block)
    return parts


def main() -> None:
    spec = json.load(sys.stdin)
    if "run_agent" not in sys.modules:  # 0.19/0.20 reach prompt helpers through run_agent (heavy imports)
        import agent.prompt_builder as pb

        stub = types.ModuleType("run_agent")
        for name in dir(pb):
            setattr(stub, name, getattr(pb, name))
        stub.build_nous_subscription_prompt = lambda *a, **k: ""
        stub.get_toolset_for_tool = lambda *a, **k: None
        sys.modules["run_agent"] = stub
    import agent.system_prompt as sp
    import tools.memory_tool as mt
    from hermes_state import SessionDB

    db = SessionDB(db_path=Path(spec["db"]))
    out = {}
    for case in spec["cases"]:
        folder = mt.get_memory_dir()
        folder.mkdir(parents=True, exist_ok=True)
        for target, name in (("memory", "MEMORY.md"), ("user", "USER.md")):
            (folder / name).write_text("\n§\n".join(case[target]), encoding="utf-8")
        store = mt.MemoryStore(memory_char_limit=case["memory_limit"], user_char_limit=case["user_limit"])
        store.load_from_disk()
        agent = Agent(store, case["memory_enabled"], case["user_enabled"], case["id"])
        prompt = sp.build_system_prompt(agent)
        text = "\n\n".join(p.strip() for p in memory_parts(agent) if p and p.strip())
        sid = case["id"]
        if case.get("resume_of"):  # a resumed session is the same row: its first prompt stays
            sid = case["resume_of"]
            db.append_message(sid, role="user", content="resumed")
        else:
            kw = {"parent_session_id": case["child_of"]} if case.get("child_of") else {}
            if case.get("child_of"):
                db.end_session(case["child_of"], "compression")
            db.create_session(session_id=sid, source="cli", model="oracle-model", **kw)
            db.update_system_prompt(sid, prompt)
            if case.get("tool_pin") and hasattr(db, "update_session_tool_names"):
                db.update_session_tool_names(sid, {"version": "oracle", "tools": [{"name": "memory"}]})
        out[case["id"]] = {"memory_text": text, "prompt": prompt,
                           "stored": db.get_session(sid).get("system_prompt")}
    db.close() if hasattr(db, "close") else None
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    os.environ.setdefault("HERMES_HOME", os.getcwd())
    main()
