"""`hmc log`, `hmc blame`, `hmc rollback`: the memory history rebuilt from state.db (the agent's
memory tool calls), hmc's journal and Hermes's snapshots (core.timeline)."""

from __future__ import annotations

from datetime import date, datetime
from typing import NoReturn

from core import timefmt
from core.store.memory import TARGETS, ScanRefused, StoreError, Unwritable
from core.scan.mask import Masker
from tui.cli.common import CliContext, CliError, add_reveal, literal, plainly, say, unreadable
from core.plural import counted


def register(sub) -> None:
    p = sub.add_parser("log", help="every past write to MEMORY.md / USER.md (agent and hmc), oldest first",
                       description="Every past write, oldest first: the agent's memory tool calls (from state.db, "
                       "replayed with Hermes's rules), hmc's own writes, and changes seen only in the files, "
                       "credited from what Hermes leaves (an approval in Hermes, its background review) or else "
                       "marked as made by no recorded call. Each has an id for `hmc rollback`.")
    p.add_argument("--target", "-t", choices=TARGETS, help="only memory (MEMORY.md) or user (USER.md)")
    p.add_argument("--since", metavar="D", help="from this day (YYYY-MM-DD, or 7d / 2w / 3m / 1y ago)")
    p.add_argument("--until", metavar="D", help="up to and including this day (same forms as --since)")
    p.add_argument("--source", metavar="S", help="only writes by agent, hmc or unknown, or from one session "
                   "source (cli, telegram…)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--chart", action="store_true", help="how each store filled up: a bar per week against its "
                   "limit, with the sessions that grew it most (--json: the series)")
    p.add_argument("--refused", action="store_true", help="only the memory calls the tool refused (the store full, "
                   "no match, several matches, the scan, memory off, the per-turn cap), each with its reason")
    add_reveal(p)
    p.set_defaults(run=run_log)
    p = sub.add_parser("blame", help="each current entry with the write that produced it",
                       description="Each entry now in the file, with the write that produced its text, when the "
                       "entry first appeared and how many texts it has had. No origin means no recorded call wrote it "
                       "(not state.db, hmc's journal, an approval in Hermes or the background review's log).")
    p.add_argument("--target", "-t", choices=TARGETS, help="only memory (MEMORY.md) or user (USER.md)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_reveal(p)
    p.set_defaults(run=run_blame)
    p = sub.add_parser("rollback", help="undo one past write, as a new write",
                       description="Undo one write's effect (see `hmc log` for ids): remove what it added, put "
                       "back what it removed or replaced. Refused when those entries have changed since. The "
                       "rollback is hmc's own write: limits and the scan apply, and hmc's undo can undo it.")
    p.add_argument("write_id", metavar="WRITE_ID", help="the write's id from `hmc log` (m…: agent, h…: hmc)")
    p.add_argument("--force", action="store_true",
                   help="write even if the security scan flags the text, or the rollback empties the file")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_reveal(p)
    p.set_defaults(run=run_rollback)


GAP = ("A history gap is a point where the agent's recorded writes (state.db) and the files don't add up, and "
       "nothing Hermes leaves (an approval's staging call, the background review's log lines) explains the "
       "change: a hand edit, another tool, or a session since deleted. Who wrote the entries around it is "
       "hmc's best guess.")


def timeline(ctx: CliContext):
    from core.sessions.db import SessionsError
    from core.timeline import build_timeline

    from tui.cli.progress import Progress

    curator = ctx.curator()
    progress = Progress("rebuilding the memory history")
    try:
        tl = build_timeline(curator, progress=progress, verified=True)  # a damaged cache: rebuilt here
    except SessionsError as exc:
        raise CliError(f"can't read the agent's history: {exc}", 2) from None
    finally:
        progress.close()
    if tl.stats.get("journal"):
        say(f"{tl.stats['journal']}: hmc's own writes are left out")
    if tl.stats.get("cache_problem"):
        say(tl.stats["cache_problem"])
    return curator, tl


def _day(text: str | None, today: date, flag: str) -> date | None:
    if text is None:  # (the day parser's imports cost more than a warm `hmc log`)
        return None
    from core.sessions.model import QueryError, parse_day

    try:
        return parse_day(text, today)
    except QueryError as exc:
        raise CliError(f"{flag} {exc}") from None


def when(ts: float) -> str:
    return timefmt.local_time(ts) or "?"


def who(w) -> str:
    if w.by == "agent":
        return f"agent · {w.source}" if w.source and w.source != "agent" else "agent"
    return "hmc" if w.by == "hmc" else "no recorded call"


def _unrecorded(tl, b) -> str:
    """A text no recorded call wrote, in the attribution's words ('written between … by no recorded call')."""
    first = b.first_seen
    return first.note if first is not None and first.by == "unknown" and first.note else \
        "written by no recorded call (not in state.db, hmc's journal or Hermes's logs)"


def _entry(ctx: CliContext, head: str, text: str, style: str = "") -> None:
    """An entry under a prefix; a multi-line entry's later lines line up under its first."""
    first, *rest = text.split("\n")
    ctx.text(head, literal(first), style=style)
    for line in rest:
        ctx.text(" " * len(head), literal(line), style=style)


def _change_lines(ctx: CliContext, mask: Masker, changes, indent: str = "    ") -> None:
    for old, new in changes:
        if old is not None:
            _entry(ctx, indent + "- ", mask(old), "red")
        if new is not None:
            _entry(ctx, indent + "+ ", mask(new), "green")


def _warn(ctx: CliContext, tl) -> None:
    skipped = sum(tl.stats.get("skipped", {}).values())
    if skipped:
        reasons = ", ".join(f"{n} {why}" for why, n in sorted(tl.stats["skipped"].items()))
        ctx.text(f"skipped {skipped:,} unreadable memory rows in state.db ({reasons})", style="dim")


def run_log(args, ctx: CliContext) -> int:
    curator, tl = timeline(ctx)
    today = ctx.today or date.today()
    since, until = _day(args.since, today, "--since"), _day(args.until, today, "--until")
    if args.chart:
        from tui.cli import chart

        return chart.run(args, ctx, curator, tl, since, until)
    mask = Masker(args.reveal)
    refused = _refusals(curator, tl, args, since, until)
    if args.refused:
        return _show_refused(ctx, args, mask, refused)
    writes = tl.log(args.target, since, until, args.source)
    pruning = curator.pruning()
    if args.json:
        ctx.json({"writes": [mask.obj(w.to_json()) for w in writes], "pruning": pruning.to_json(),
                  "refused": [mask.obj(r.to_json(source)) for r, source in refused],
                  "skipped": tl.stats.get("skipped", {}), "ignored": tl.stats.get("ignored", {}),
                  "divergences": [{"target": d.target, "write_id": d.write_id, "detail": mask(d.detail),
                                   "detail_plain": mask(plainly(d.detail, curator.stores[d.target]))}
                                  for d in tl.divergences]})
        return 0
    if not writes:
        ctx.text("no writes recorded" + (" in that range" if args.since or args.until or args.source or args.target
                                         else ""), style="dim")
    for w in writes:
        head = f"{w.id:<8} {when(w.timestamp)}  {w.target:<6} {w.action:<8} {who(w)}"
        if w.session_id:
            head += f" · session {w.session_id}"
        ctx.text(head, style="bold")
        if w.detail and w.by in ("hmc", "agent"):
            ctx.text("    ", literal(mask(w.detail)), style="dim")
        if not w.changes:
            ctx.text("    (no change: " + ("the entry already existed)" if w.action in ("add", "batch") and not w.note
                                          else "see the note)"), style="dim")
        _change_lines(ctx, mask, w.changes)
        if w.note:
            ctx.text("    note: ", literal(mask(plainly(w.note, curator.stores[w.target]))), style="yellow")
    for d in tl.divergences:
        where = curator.stores[d.target].name + (f", at {d.write_id}" if d.write_id else "")
        ctx.text(f"history gap ({where}): ", literal(mask(plainly(d.detail, curator.stores[d.target]))),
                 style="yellow")
    if tl.divergences:
        ctx.text(GAP, style="dim")
    from core.timefmt import short_date

    sentence = pruning.sentence(short_date)
    if sentence:  # the agent's calls in those sessions are gone with them: the history starts after
        ctx.text(f"{sentence[0].upper()}{sentence[1:]}: the agent's writes before then are no longer in "
                 "state.db, so the history is partial up to then.", style="dim")
    if refused:
        n = len(refused)
        ctx.text(f"{n:,} memory call{'s' if n != 1 else ''} the tool refused (nothing written): "
                 "`hmc log --refused` lists them with the reasons", style="yellow")
    _warn(ctx, tl)
    return 0


def _refusals(curator, tl, args, since, until) -> list:
    """(Refusal, its session's source) for the calls the tool refused, filtered as the log is."""
    from core.timeline.refusals import select

    chosen = select(tl.refused, args.target, since, until)
    out = [(r, tl.refused_sources.get(r.call.session_id)) for r in chosen]
    if args.source:  # only the agent's calls are answered by the tool: hmc and the unknown refuse nothing
        out = [(r, source) for r, source in out if args.source in ("agent", source)]
    return out


def _show_refused(ctx: CliContext, args, mask: Masker, refused: list) -> int:
    if args.json:
        ctx.json({"refused": [mask.obj(r.to_json(source)) for r, source in refused]})
        return 0
    if not refused:
        ctx.text("no refused memory calls recorded", style="dim")
    for r, source in refused:
        c = r.call
        head = f"{when(c.timestamp) if c.timestamp is not None else '?'}  {c.target:<6} {c.action:<8} refused · agent"
        head += (f" · {source}" if source and source != "agent" else "") + f" · session {c.session_id}"
        ctx.text(head, style="bold")
        ctx.text("    why: ", literal(mask(r.said)), style="yellow")
        for text, sign in ((c.old_text, "- "), (c.content, "+ ")):
            if text:
                _entry(ctx, "    " + sign, mask(text), "dim")
        for op in c.operations or ():
            for key, sign in (("old_text", "- "), ("content", "+ ")):
                if isinstance(op.get(key), str) and op[key]:
                    _entry(ctx, f"    {op.get('action', '?')} {sign}", mask(op[key]), "dim")
    return 0


def run_blame(args, ctx: CliContext) -> int:
    curator, tl = timeline(ctx)
    targets = [args.target] if args.target else list(TARGETS)
    mask = Masker(args.reveal)
    problems = [curator.stores[t].read().error for t in targets if curator.stores[t].read().error]
    if args.json:
        data = [{"target": t, "entries": [mask.obj(b.to_json()) for b in tl.blame(t)]} for t in targets]
        ctx.json(data)  # one store per target, --target or not: a filter never changes the shape
    else:
        for n, t in enumerate(targets):
            if n:
                ctx.text("")
            ctx.text(curator.stores[t].name, style="bold")
            entries = tl.blame(t)
            if not entries:
                ctx.text("(no entries)", style="dim")
            for b in entries:
                _entry(ctx, f"{b.index + 1:>3}. ", mask(b.text))
                if b.origin is not None:
                    origin = f"{b.origin.id} {when(b.origin.timestamp)} {who(b.origin)}"
                    if b.origin.session_id:
                        origin += f" · session {b.origin.session_id}"
                else:
                    origin = _unrecorded(tl, b)
                first = f"first seen {when(b.first_seen.timestamp)}" if b.first_seen else "first seen: unknown"
                ctx.text(f"     {origin} · {first} · {b.revisions} revision{'s' if b.revisions != 1 else ''}",
                         style="dim")
        _warn(ctx, tl)
    if problems:
        return unreadable(problems)
    return 0


def _rollback_refused(args, ctx: CliContext, kind: str, exc: Exception, code: int, store=None, hint: str = "",
                      mask: Masker | None = None) -> NoReturn:
    """A refused rollback: one line on stderr; with --json also `{"rolled_back": null, "refused": …}`."""
    plain = plainly(exc, store) + hint
    if args.json:
        mask = mask or Masker(args.reveal)
        ctx.json({"write_id": args.write_id, "rolled_back": None,
                  "refused": {"kind": kind, "reason": mask(str(exc)), "reason_plain": mask(plain), "exit": code}})
    verb = "can't write" if kind == "unwritable" else "refused"
    raise CliError(f"{verb}: {plain}", code)


def run_rollback(args, ctx: CliContext) -> int:
    from core.timeline import RollbackConflict, TimelineError

    curator, tl = timeline(ctx)
    try:
        w, _ = tl.rollback_plan(args.write_id)
    except RollbackConflict as exc:
        _rollback_refused(args, ctx, "conflict", exc, 1)
    except TimelineError as exc:
        _rollback_refused(args, ctx, "refused", exc, 1)
    except StoreError as exc:
        _rollback_refused(args, ctx, "unreadable", exc, 2)
    from tui.cli.common import refuse_if_rules_differ

    refuse_if_rules_differ(curator, "memory", args.force)  # a rollback is an edit under hmc's rules
    mask = Masker(args.reveal, [w.before, w.after])
    store = curator.stores[w.target]
    try:
        result = tl.rollback(args.write_id, force=args.force)
    except ScanRefused as exc:
        _rollback_refused(args, ctx, "scanner", exc, 1, store, " (pass --force to write it anyway)", mask)
    except (RollbackConflict, TimelineError) as exc:
        _rollback_refused(args, ctx, "conflict", exc, 1, store, mask=mask)
    except StoreError as exc:  # an unreadable or unwritable store is 2, as every write command says it
        kind = "unwritable" if isinstance(exc, Unwritable) else "unreadable" if store.read().error else "refused"
        _rollback_refused(args, ctx, kind, exc, 1 if kind == "refused" else 2, store, mask=mask)
    undo = [(new, old) for old, new in w.changes]
    if args.json:
        ctx.json({"write_id": w.id, "rolled_back": mask.obj(w.to_json()),
                  "changes": [{"before": mask(b) if b is not None else None, "after": mask(a) if a is not None else None}
                              for b, a in undo],
                  "target": w.target, "label": result.label, "total_entries": len(result.after), "refused": None})
        return 0
    ctx.text(f"rolled back {w.id} ({w.action}, {when(w.timestamp)}, {who(w)}):")
    _change_lines(ctx, mask, undo, indent="  ")
    ctx.text(f"{curator.stores[w.target].name}: {result.label}, {counted(len(result.after), 'entry', 'entries')} "
             "(hmc's undo can undo this rollback)")
    return 0


def parse_at(text: str) -> datetime:
    """`DATE` (the end of that day) or `DATE`T`HH:MM`, local time; only days a timestamp can say."""
    from core.sessions.model import QueryError, in_range

    value = (text or "").strip()
    try:
        moment = datetime.fromisoformat(value) if "T" in value else \
            datetime.combine(date.fromisoformat(value), datetime.max.time())
    except ValueError:
        raise CliError(f"--at {value!r} is not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM)") from None
    try:
        in_range(moment.date(), value)
    except QueryError as exc:
        raise CliError(f"--at {exc}") from None
    return moment
