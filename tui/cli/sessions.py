"""`hmc sessions [--stale]` and `hmc session ID --memory`: what each session loaded (its stored
prompt's memory blocks), and whether that is still what the files hold."""

from __future__ import annotations

from core import timefmt
from core.sessions.db import DatabaseError
from tui.cli.common import CliContext, CliError, count_arg
from core.timefmt import short_date
from core.plural import counted

DEFAULT_LIMIT = 20


def register(sub) -> None:
    p = sub.add_parser(
        "sessions", help="recent sessions, the memory each loaded, and whether it is current",
        description="Recent sessions, most recently active first, with the memory each one loaded (read "
        "from the system prompt state.db stored for it) and whether a new session would load the same. "
        "--stale lists only the open chats that still run on an older snapshot.")
    p.add_argument("--stale", action="store_true", help="only open chats running on an old snapshot")
    p.add_argument("--limit", type=count_arg(1, 10**6), default=DEFAULT_LIMIT, metavar="N",
                   help=f"how many sessions (default {DEFAULT_LIMIT})")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run)


def loaded_usage(session) -> dict | None:
    """{target: {entries, chars, limit} | None} of what a session loaded (None: not known)."""
    if session.loaded is None:
        return None
    return {t: ({"entries": len(b.entries), "chars": b.used, "limit": b.limit} if b else None)
            for t, b in (("memory", session.loaded.memory), ("user", session.loaded.user))}


def session_json(session, current: bool | None) -> dict:
    from core.sessions.model import iso_time

    return {"session_id": session.id, "source": session.source, "chat": session.chat, "title": session.title,
            "started_at": iso_time(session.started_at), "last_active": iso_time(session.last_active),
            "ended_at": iso_time(session.ended_at), "end_reason": session.end_reason,
            "parent_session_id": session.parent_session_id, "open": session.open,
            "loaded": loaded_usage(session), "unknown": session.unknown, "current": current}


def is_current(session, now_entries) -> bool | None:
    from core.snapshots.compare import diff_now

    diffs = diff_now(session, now_entries)
    return None if diffs is None else all(d.same for d in diffs.values())


def reading(read, *args):
    """What `read` returns; a database that can't be read is the command's error (exit 2)."""
    try:
        return read(*args)
    except DatabaseError as exc:
        raise CliError(str(exc), 2) from None


def run(args, ctx: CliContext) -> int:
    from core.snapshots.compare import stale_sessions

    if args.limit < 1:
        raise CliError("--limit must be at least 1")
    curator = ctx.curator()
    snaps = reading(curator.snapshots)
    now_entries = curator.now_entries()
    stale = stale_sessions(snaps, now_entries, curator.now())
    shown = [x.session for x in stale][:args.limit] if args.stale else reading(curator.recent_sessions, args.limit)
    pruning = curator.pruning()
    if args.json:
        ctx.json({"sessions": [session_json(s, is_current(s, now_entries)) for s in shown],
                  "stale_sessions": [x.to_json() for x in stale], "pruning": pruning.to_json(),
                  "prompt_source": snaps.prompt_source})
        return 0
    if not shown:
        ctx.text("no open chat runs on an old snapshot" if args.stale else "no sessions in state.db", style="dim")
    now = curator.now()
    for s in shown:
        current = is_current(s, now_entries)
        mark = {True: "current", False: "OLD SNAPSHOT" if s.open else "older memory", None: "not known"}[current]
        ctx.text(f"{s.id}  {s.where}  {timefmt.ago(s.last_active or s.started_at, now)}  ",
                 mark, style="" if current is not False else "yellow")
        usage = loaded_usage(s)
        if usage is None:
            ctx.text(f"    loaded: not known ({s.unknown})", style="dim")
        else:
            parts = [f"{t} {counted(u['entries'], 'entry', 'entries')} {u['chars']:,}/{u['limit']:,}" if u else f"{t} nothing"
                     for t, u in usage.items()]
            ctx.text("    loaded: " + " · ".join(parts) + (f" — {s.title}" if s.title else ""), style="dim")
    for x in stale if args.stale else stale[:3]:
        changes = "; ".join(f"{t}: {d.summary()}" for t, d in x.diffs.items() if not d.same)
        ctx.text(f"{x.session.where} ({x.session.id}) runs on memory from "
                 f"{timefmt.local_time(x.session.started_at)}: {changes} — {x.advice}", style="yellow")
    sentence = pruning.sentence(short_date)
    if sentence:
        ctx.text(sentence, style="dim")
    return 0


def run_memory(args, ctx: CliContext, curator, sid: str) -> int:
    """`hmc session ID --memory`: the blocks that session loaded, and the diff to the files now."""
    from core.snapshots.blocks import render
    from core.snapshots.compare import diff_now, report

    session = reading(curator.session_load, sid)
    if session is None:  # pragma: no cover - resolve_session_id found it a moment ago
        raise CliError(f"no session {sid!r} in state.db", 2)
    diffs = diff_now(session, curator.now_entries())
    loaded = session.loaded
    if args.json:
        ctx.json({
            "session": session_json(session, None if diffs is None else all(d.same for d in diffs.values())),
            "known": loaded is not None, "unknown": session.unknown,
            "loaded": None if loaded is None else {
                t: (render(b) if b else None) for t, b in (("memory", loaded.memory), ("user", loaded.user))},
            "diff_now": None if diffs is None else {t: d.to_json() for t, d in diffs.items()},
        })
        return 0
    ctx.text(f"{session.id} · {session.where} · loaded {timefmt.local_time(session.started_at)}", style="bold")
    for kind, line in report(session, diffs):
        ctx.text(line, style=STYLES[kind])
    return 0


STYLES = {"block": "", "note": "dim", "warning": "yellow", "ok": "green", "heading": "bold",
          "added": "green", "changed": "yellow", "removed": "red"}
