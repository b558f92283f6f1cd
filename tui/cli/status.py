"""`hmc status`: the Hermes release followed, both stores' usage and drift, the pending count, and a
state.db summary."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING
from core.plural import counted, noun

if TYPE_CHECKING:  # pragma: no cover
    from tui.cli.common import CliContext
# Nothing heavy at the top: `hmc status --short` runs on every shell prompt, and a summary that
# checks out is printed before the rest of hmc is imported (short_from_summary: tui.cli.main's `early`).


def register(sub) -> None:
    p = sub.add_parser("status", help="usage, drift, pending count and state.db summary; --short: one line "
                                      "for a shell prompt",
                       description="What hmc sees in the Hermes home: the release whose rules it follows, both "
                       "stores' usage and drift, the staged writes, state.db's sessions and the doctor's verdict. "
                       "--short prints one line for a shell prompt or a status bar. Exit 2 when a store or a "
                       "pending folder can't be read (--short: only when the home can't be read at all).")
    shape = p.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="machine-readable output")
    shape.add_argument("--short", action="store_true",
                       help="one line for a shell prompt or status bar: staged writes, the review when due, "
                            "a store at 80%% or more, what can't be read (e.g. `hmc ✎3+2 ⚠review 87%%`)")
    p.add_argument("--format", metavar="FMT",
                   help="with --short: the line's format, with fields in braces: {pending} {pending_memory} "
                        "{pending_skills} {pending_total} {review} {full} {memory_percent} {user_percent} "
                        "{problems} {profile} (default: 'hmc {pending} {review} {full} {problems}')")
    p.add_argument("--quiet-when-clear", action="store_true",
                   help="with --short: print nothing when nothing needs attention")
    p.set_defaults(run=run, early=short_from_summary)


def short_from_summary(args) -> int | None:
    """`status --short` from the summary hmc keeps (core.attention), when every file it came from
    is as it was: the exit code; None when the figures must be read (then `run` does). tui.cli.main
    calls it before it imports the rest of hmc."""
    if not args.short:
        return None
    from datetime import date

    from core import attention

    if args.format is not None:
        attention.check_format(args.format)
    today = (args.today or date.today()).isoformat()
    data = attention.load(attention.key(args.home, args.profile, args.hermes_version, today))
    return None if data is None else print_short(data, args)


def print_short(data: dict, args) -> int:
    from core import attention

    if args.quiet_when_clear and attention.clear(data):
        return 0
    sys.stdout.write(attention.line(data, attention.DEFAULT_FORMAT if args.format is None else args.format) + "\n")
    sys.stdout.flush()
    return 0


def run_short(args, ctx: "CliContext") -> int:
    """Reads the figures, keeps them as the summary (when nothing changed while they were read),
    and prints the line. Exit 0 whatever it says (a prompt isn't a check): 2 only when hmc can't
    read the home at all."""
    from core import attention
    from core.home import resolve_home
    from tui.cli.common import CliError

    fmt = attention.DEFAULT_FORMAT if args.format is None else args.format
    try:
        attention.check_format(fmt)
    except attention.FormatError as exc:
        raise CliError(str(exc)) from None
    curator = ctx.curator()
    paths = attention.paths(curator)
    checks = attention.before(paths)
    data = attention.figures(curator)
    try:  # still the profile a fresh run resolves (active_profile unchanged meanwhile)
        same = resolve_home(args.home, args.profile, curator.release).root == curator.home.root
    except Exception:  # noqa: BLE001 - it can't be resolved now: the next run finds out
        same = False
    if same and attention.before(paths) == checks:
        today = curator.today.isoformat()
        attention.save(attention.key(args.home, args.profile, args.hermes_version, today), data, checks)
    return print_short(data, args)


def gather(curator) -> dict:
    from core.store.memory import percent, usage, usage_label

    home = curator.home
    out = {"home": str(home.root), "profile": home.profile, "config_problems": list(home.config.problems),
           "write_approval": home.config.write_approval, "hermes": curator.hermes.as_dict(), "targets": {}}
    for target, store in curator.stores.items():
        snap = store.read()
        used = usage(snap.entries)
        out["targets"][target] = {
            "file": str(store.path), "entries": len(snap.entries), "chars": used, "limit": store.limit,
            "percent": percent(used, store.limit), "label": usage_label(used, store.limit),
            "drift": snap.drift, "untidy": list(snap.untidy), "error": snap.error, "enabled": store.enabled,
            **store.figures(snap).as_json(),
        }
    setup = curator.memory_setup()
    for target, info in out["targets"].items():
        # what the agent can write (the store's switch and the memory tool on the CLI); `loaded`: what
        # a session injects into its prompt (the tool being off doesn't stop that)
        info["loaded"], info["enabled"] = info["enabled"], setup.writable(target) is True
    out["memory_setup"] = setup.to_json()
    out["config_problems"] += [p for p in setup.problems if p not in out["config_problems"]]
    out["hermes"]["doctor"] = doctor_summary(curator)
    out["pending"] = pending_summary(curator)
    out["state_db"] = db_summary(curator)
    out["stale_sessions"], out["pruning"] = loaded_summary(curator, out["state_db"])
    from tui.cli.profiles import one_line

    out["profiles_line"], out["profiles"] = one_line(curator)
    return out


def loaded_summary(curator, db: dict) -> tuple[list[dict], dict]:
    """The open chats still running on an old memory snapshot, and Hermes's pruning of sessions."""
    from core.snapshots.compare import stale_sessions

    stale = []
    if db.get("exists") and not db.get("error"):
        try:
            stale = [x.to_json() for x in stale_sessions(curator.snapshots(), curator.now_entries(), curator.now())]
        except Exception:  # noqa: BLE001 - an unreadable state.db is reported above, not here
            stale = []
    return stale, curator.pruning().to_json()


def doctor_summary(curator) -> dict | None:
    """The remembered `hmc doctor` verdict for the installed Hermes (None: no Hermes hmc can run).
    {"status": "agree"|"differ"|"unchecked", "summary", "version", "differing_areas", "checked_at"}"""
    from core.doctor.verdict import for_home

    installed, (verdict, damaged) = for_home(curator.home.root)
    if installed is None:
        return None
    if verdict is None:
        summary = f"not checked against your Hermes {installed.version} yet: run `hmc doctor`"
        out = {"status": "unchecked", "version": installed.version, "differing_areas": [], "checked_at": None,
               "summary": f"{damaged}: ignored; {summary}" if damaged else summary}
        if damaged:
            out["damaged"] = damaged
        return out
    return {"status": verdict.status, "version": verdict.version, "summary": verdict.summary(),
            "differing_areas": verdict.differing_areas, "checked_at": verdict.checked_at}


def pending_summary(curator) -> dict:
    """Both queues: `count` (and `error`) are pending/memory's, `skills` is pending/skills/'s, `total` both.
    Counted by name (core.pending.staged), as the queues count: neither queue's machinery is loaded."""
    from core.home import skills_section, skills_write_approval
    from core.pending import staged

    home = curator.home
    try:
        out = {"count": staged.count(home.pending_dir)}
    except OSError as exc:  # an unreadable pending folder
        out = {"count": 0, "error": staged.problem(home.pending_dir, exc)}
    try:
        skills = staged.count(home.skills_pending_dir)
    except OSError:  # as the skills queue counts: nothing it can list
        skills = 0
    out["skills"] = {"count": skills, "write_approval": skills_write_approval(skills_section(home.config_path))}
    out["total"] = out["count"] + out["skills"]["count"]
    return out


def db_summary(curator) -> dict:
    from core.sessions.db import present
    from core.sessions.search import DatabaseError

    path = curator.home.state_db
    if not present(path):  # a symlink loop is there, unreadable: its reason below
        return {"path": str(path), "exists": False}

    try:
        return {"path": str(path), "exists": True, **curator.sessions.summary()}
    except DatabaseError as exc:  # corrupt, locked, old or foreign schema
        return {"path": str(path), "exists": True, "error": str(exc)}


def run(args, ctx: "CliContext") -> int:
    if args.short:
        return run_short(args, ctx)
    if args.format is not None or args.quiet_when_clear:
        from tui.cli.common import CliError

        raise CliError("--format and --quiet-when-clear go with --short")
    curator = ctx.curator()
    data = gather(curator)
    if args.json:
        ctx.json(data)
        return exit_code(data)
    ctx.text(f"home {curator.home.display()} · profile {curator.home.profile}", style="bold")
    profiles = data["profiles"]
    if len(profiles["names"]) > 1:
        ctx.text(f"profiles   {data['profiles_line']}")
    if profiles["active_profile_problem"]:
        ctx.text(f"profiles   {profiles['active_profile_problem']}", style="bold red")
    for skipped in profiles["skipped"]:
        ctx.text(f"profiles   profiles/{skipped['folder']}: skipped, {skipped['why']}", style="yellow")
    if profiles["default_trap"]:
        ctx.text(f"profiles   {profiles['default_trap']}", style="yellow")
    hermes = data["hermes"]
    ctx.text(f"hermes     {hermes['version']}'s rules — {hermes['detail']}")
    if hermes["notice"]:
        ctx.text(f"hermes     {hermes['notice']}", style="yellow")
    if hermes["doctor"]:
        ctx.text(f"hermes     {hermes['doctor']['summary']}",
                 style="" if hermes["doctor"]["status"] == "agree" else "yellow")
    for problem in data["config_problems"]:
        ctx.text(f"config: {problem}", style="yellow")
    for target, info in data["targets"].items():
        line = f"{curator.stores[target].name:<10} {info['entries']:>3} {noun(info['entries'], 'entry', 'entries'):<7}  {info['label']}"
        if info["error"]:
            line += f"  unreadable: {info['error']}"
        elif info["drift"]:
            line += f"  drift: {info['drift']}"
        elif info["untidy"]:
            line += f"  untidy (Hermes reads it fine): {'; '.join(info['untidy'])}"
        if not info["loaded"]:
            line += "  (disabled in config.yaml)"
        elif not info["enabled"]:
            line += "  (loaded, but the agent can't write it: see memory below)"
        ctx.text(line)
        if info["usage_note"] and info["enabled"]:
            ctx.text(f"{'':<10} {info['usage_note']}", style="dim")
    setup_lines(ctx, data["memory_setup"])
    pending, skills = data["pending"], data["pending"]["skills"]
    ctx.text(f"pending    {pending['total']} staged write(s): {pending['count']} memory · {skills['count']} skill"
             + (f" — {pending['error']}" if pending.get("error") else "")
             + (f" — {skills['error']}" if skills.get("error") else "")
             + f"  (write approval: memory {'on' if data['write_approval'] else 'off'}, "
               f"skills {'on' if skills['write_approval'] else 'off'})")
    db = data["state_db"]
    if not db.get("exists"):
        ctx.text("state.db   not found")
    elif db.get("error"):
        ctx.text(f"state.db   {db['error']}")
    else:
        ctx.text(f"state.db   {counted(db.get('sessions', 0), 'session')}, {counted(db.get('messages', 0), 'message')}")
    for chat in data["stale_sessions"]:
        where = f"{chat['source']} · {chat['chat']}" if chat["chat"] else chat["source"]
        changes = "; ".join(f"{t}: {len(c['added'])} added, {len(c['changed'])} changed, {len(c['removed'])} removed"
                            for t, c in chat["changes"].items() if any(c.values()))
        ctx.text(f"snapshot   {where} ({chat['session_id']}) still runs on memory loaded "
                 f"{(chat['loaded_at'] or '?')[:10]} ({changes}): {chat['advice']}", style="yellow")
    from core.timefmt import short_date

    sentence = curator.pruning().sentence(short_date)
    if sentence:
        ctx.text(f"pruning    {sentence}", style="dim")
    return exit_code(data)



def setup_lines(ctx: "CliContext", setup: dict) -> None:
    """The platforms where the agent has no memory tool, and the external provider."""
    grouped: dict[tuple, list[str]] = {}  # platforms sharing a reason, on one line
    for platform, tool in setup["platforms"].items():
        if tool["enabled"] is not True:
            grouped.setdefault((tool["enabled"], tool["why"] or ""), []).append(platform)
    for (enabled, why), platforms in grouped.items():
        state = "off" if enabled is False else "unknown"
        ctx.text(f"memory     {state} on {', '.join(platforms)}: ", why, style="yellow")
    provider = setup["provider"]
    if provider["problem"]:
        ctx.text("provider   ", provider["problem"], style="yellow")
    if provider["name"]:
        where = "its plugin folder is there" if provider["plugin_folder"] else \
            "no plugins/ folder of that name (bundled with Hermes, or not installed)"
        if provider["failed_install_marker"]:
            where += "; its automatic install failed (cache/left-core-…failed): run `hermes plugins install`"
        ctx.text("provider   ", provider["name"], f": an external memory plugin next to MEMORY.md and "
                 f"USER.md ({where}); hmc can't see what it stores", style="dim")


def exit_code(data: dict) -> int:
    """2 when a store or a pending folder (memory or skills) can't be read (unreadable input), with the reason on
    stderr; drift and a damaged state.db are reported, not failures."""
    from tui.cli.common import say

    problems = [info["error"] for info in data["targets"].values() if info["error"]]
    for queue in (data["pending"], data["pending"]["skills"]):
        if queue.get("error"):
            problems.append(queue["error"])
    if problems:
        say("; ".join(problems))
        return 2
    return 0
