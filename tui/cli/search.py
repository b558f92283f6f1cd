"""`hmc search QUERY …` and `hmc session ID …`: past sessions from state.db, read-only.

Message text is untrusted: it is printed literally (markup stays brackets, escape sequences
show as ␛), and in JSON exactly as stored.
"""

from __future__ import annotations

from datetime import date

from rich.text import Text

from core import timefmt
from core.sessions.search import (
    DEMOTED_SOURCES, HIDDEN_SOURCES, ROLES, SORTS, DatabaseError, Message, NotFoundError, QueryError,
    SessionsError, parse_tool_calls, session_link,
)
from core.sessions.search import parse_day as core_parse_day
from core.sessions.snippets import one_line
from core.scan.mask import Masker
from tui.cli.common import CliContext, CliError, add_reveal, count_arg, literal
from tui.literal import masked_spans
from core.plural import counted

MAX_WINDOW = 200


def register(sub) -> None:
    p = sub.add_parser(
        "search",
        help="search past sessions in state.db",
        description="Search past sessions. Plain words must all appear; use \"a phrase\", OR, NOT "
        "(upper case), prefix* and ( ). Kanban, subagent and tool sessions are left out unless --all; "
        "cron sessions rank below interactive ones.",
    )
    p.add_argument("query", nargs="+", metavar="QUERY", help="what to look for (several words are ANDed)")
    p.add_argument("--source", action="append", metavar="S",
                   help="only sessions from this source (cli, telegram, cron, …); repeat or comma-separate")
    p.add_argument("--role", action="append", metavar="R", help=f"only messages with this role ({', '.join(ROLES)})")
    p.add_argument("--since", metavar="D", help="from this day (YYYY-MM-DD, or 7d / 2w / 3m / 1y ago)")
    p.add_argument("--until", metavar="D", help="up to and including this day (same forms as --since)")
    p.add_argument("--sort", choices=SORTS, default="relevance", help="order of the hits (default: relevance)")
    p.add_argument("--limit", type=count_arg(1, 10**6), default=20, metavar="N", help="hits per page (default 20, max 500)")
    p.add_argument("--offset", type=count_arg(0, 10**9), default=0, metavar="N", help="skip this many hits (paging)")
    p.add_argument("--all", action="store_true", help="include kanban, subagent, tool and hidden sessions")
    p.add_argument("--all-profiles", action="store_true",
                   help="search every profile's state.db; each hit names its profile")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_reveal(p)
    p.set_defaults(run=run_search)

    s = sub.add_parser(
        "session",
        help="read a window of messages from one session",
        description="Print messages of one session: around a message (--around) or from its start. "
        "ID may be a full id, an @session:<profile>/<id> link, or a unique part of an id.",
    )
    s.add_argument("session_id", metavar="ID")
    s.add_argument("--around", type=count_arg(0, 2**63 - 1), metavar="MESSAGE_ID", help="centre the window on this message")
    s.add_argument("--window", type=count_arg(0, 10**6), default=5, metavar="N",
                   help="messages on each side (default 5; from the start: the first 2N+1 and last N)")
    s.add_argument("--memory", action="store_true",
                   help="the memory this session loaded (from its stored prompt), with what changed since")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    add_reveal(s)
    s.set_defaults(run=run_session)


# ── helpers ──────────────────────────────────────────────────────────────────

def parse_day(text: str | None, today: date, flag: str) -> date | None:
    try:
        return core_parse_day(text, today)
    except QueryError as exc:
        raise CliError(f"{flag} {exc}") from None


def _db(ctx: CliContext):
    curator = ctx.curator()
    return curator, curator.sessions


def _fail(exc: SessionsError) -> CliError:
    return CliError(str(exc), 2)


def hit_line(spans, mask: Masker | None = None) -> Text:
    """A snippet with its matches marked; a snippet holding a secret is shown masked, unmarked."""
    if mask is not None:
        spans = masked_spans(spans, mask)
    text = Text()
    for part, hit in spans:
        text.append_text(literal(part, "bold reverse" if hit else ""))
    return text


def hit_json(hit, profile: str | None, mask: Masker) -> dict:
    mask.know(*hit.secrets)  # what the whole message holds: the snippet may quote it cut short
    data = dict(hit.to_json(), link=session_link(hit.profile or profile, hit.session_id))
    snippet = mask(data["snippet"])
    if snippet != data["snippet"]:
        data["snippet"], data["matches"] = snippet, []  # offsets would point into the secret
    data["title"] = mask(data["title"])
    return data


def profile_dbs(curator) -> dict:
    """Every profile's state.db, the current profile's first (its SessionDB already open)."""
    from core.home import list_profiles
    from core.sessions.search import SessionDB

    home = curator.home
    dbs = {home.profile: curator.sessions}
    for name in list_profiles(home.base):
        if name not in dbs:
            root = home.base if name == "default" else home.base / "profiles" / name
            dbs[name] = SessionDB(root / "state.db")
    return dbs


# ── hmc search ───────────────────────────────────────────────────────────────

def check_sources(db, requested: list[str] | None) -> None:
    """An unknown --source is a mistake to say, not an empty result (as an unknown --role is)."""
    wanted = [s.strip() for item in requested or () for s in item.split(",") if s.strip()]
    if not wanted:
        return
    known = sorted(src for src, _ in db.sources())
    unknown = [s for s in wanted if s not in known]
    if unknown:
        raise CliError(f"no sessions from source {unknown[0]!r} in this state.db (sources: {', '.join(known) or 'none'})")


def run_search(args, ctx: CliContext) -> int:
    curator, db = _db(ctx)
    today = curator.today
    query = " ".join(args.query)
    if args.limit < 1:
        raise CliError("--limit must be at least 1")
    if args.offset < 0:
        raise CliError("--offset can't be negative")
    filters = dict(sources=args.source, roles=args.role, since=parse_day(args.since, today, "--since"),
                   until=parse_day(args.until, today, "--until"), include_hidden=args.all, sort=args.sort,
                   limit=args.limit, offset=args.offset)
    problems: list[tuple[str, str]] = []
    notices: list[str] = []
    try:
        if args.all_profiles:
            from core.sessions.profiles import search_profiles

            dbs = profile_dbs(curator)
            result = search_profiles(dbs, query, **filters)
            problems = list(result.problems)
            notices = [f"{name}: {notice}" for name, notice in result.notices]
            if not result.searched:
                raise CliError("no profile has a state.db that can be searched"
                               + "".join(f"; {name}: {why}" for name, why in problems))
        else:
            check_sources(db, args.source)
            result = db.search(query, count=True, **filters)
            notices = [result.notice] if result.notice else []
    except (QueryError, DatabaseError) as exc:
        raise _fail(exc) from None
    profile = curator.home.profile
    mask = Masker(args.reveal)
    total = None if result.total is None else f"{result.total:,}{'+' if result.total_capped else ''}"
    suggestions = []
    from core.sessions.suggest import FEW_HITS, STEM_FEW_HITS, as_searched, hits_found, suggestions_for

    pruned = None  # few hits: say when Hermes pruned the sessions they could have been in
    found = hits_found(len(result.hits), result.has_more, result.total)
    if not args.all_profiles and not result.offset and found < STEM_FEW_HITS:
        try:
            suggestions = as_searched(db, query, suggestions_for(db.path, query, hits=found), found, filters)
        except DatabaseError:  # the search itself worked: its hits are printed, without suggestions
            suggestions = []
    if not args.all_profiles and not result.offset and found < FEW_HITS:
        pruned = curator.pruning()
    if args.json:
        data = {
            "query": result.query,
            "route": getattr(result, "route", None),
            "notice": "; ".join(notices) or None,
            "offset": result.offset,
            "limit": result.limit,
            "has_more": result.has_more,
            "total": result.total,
            "total_capped": result.total_capped,
            # the total is a lower bound ("N+"): why, "cap" (COUNT_CAP reached) or "scan" (a plain-scan
            # count stopped early so the hits aren't held back)
            "count_is_bound": result.total_capped,
            "count_bound": ("scan" if result.total_partial else "cap") if result.total_capped else None,
            "hits": [hit_json(h, profile, mask) for h in result.hits],
            "suggestions": [mask.obj(hint.to_json()) for hint in suggestions],
            "pruning": pruned.to_json() if pruned is not None else None,
        }
        if args.all_profiles:
            data.pop("route")
            data.update(profiles=list(result.searched), missing=list(result.missing),
                        problems=[{"profile": p, "error": e} for p, e in problems])
        ctx.json(data)
        return 0
    for notice in notices:
        ctx.text(notice, style="yellow")
    for name, why in problems:
        ctx.text(f"{name}: ", literal(why), style="yellow")
    if not result.hits:
        ctx.text("No hits." if not result.offset else f"No hits past the first {result.offset} (of {total}).")
        print_pruning(ctx, pruned)
        print_suggestions(ctx, args, query, suggestions, mask)
        return 0
    now = curator.now()
    for n, hit in enumerate(result.hits, start=result.offset + 1):
        head = Text(f"{n:>3}  ", style="dim")
        head.append(timefmt.local_time(hit.timestamp), style="bold")
        head.append(f" ({timefmt.ago(hit.timestamp, now)})  ", style="dim")
        if hit.profile is not None:
            head.append_text(literal(f"[{hit.profile}] ", "green"))
        head.append_text(literal(hit.source or "?", "cyan" if hit.source not in DEMOTED_SOURCES else "dim cyan"))
        head.append("  ")
        head.append_text(literal(mask(one_line(hit.title)), "bold"))
        ctx.text(head)  # one line: a line break in a source or a title shows as ␊
        where = Text("     ")
        where.append_text(literal(f"{hit.role}", "magenta"))
        if hit.tool_name:
            where.append_text(literal(f" [{hit.tool_name}]", "magenta"))
        where.append_text(literal(f"  {hit.session_id} #{hit.message_id}", "dim"))
        ctx.text(where)
        line = Text("     ")
        mask.know(*hit.secrets)  # what the whole message holds: the snippet may quote it cut short
        line.append_text(hit_line(hit.snippet, mask))
        ctx.print(line)
    first, last = result.offset + 1, result.offset + len(result.hits)
    noun = "hit" if total == "1" else "hits"
    tail = f"{len(result.hits)} of {total} {noun} ({first}-{last})"
    if args.all_profiles:
        tail += f" in {len(result.searched)} profile{'s' if len(result.searched) != 1 else ''}"
    if result.has_more:
        tail += f" · more with --offset {last}"
    if result.total_partial:
        tail += " · counted only in the newest messages (a plain scan stops early)"
    ctx.text(tail, style="dim")
    ctx.text("open one: hmc " + ("--profile NAME " if args.all_profiles else "")
             + "session ID --around MESSAGE_ID", style="dim")
    print_pruning(ctx, pruned)
    print_suggestions(ctx, args, query, suggestions, mask)
    return 0


def print_pruning(ctx: CliContext, pruned) -> None:
    from core.timefmt import short_date

    sentence = pruned.sentence(short_date) if pruned is not None else None
    if sentence:
        ctx.text(f"{sentence[0].upper()}{sentence[1:]}: what was said before then can't be found.", style="yellow")


def print_suggestions(ctx: CliContext, args, query: str, suggestions: list, mask: Masker) -> None:
    """What the word index knows near the query, as commands to run (never run in its place): the
    same search with the suggestion in its word's place, its filters kept (the counts are theirs)."""
    import shlex

    from core.sessions.suggest import suggested_query

    options = [*(f"--source={s}" for s in args.source or ()), *(f"--role={r}" for r in args.role or ()),
               *([f"--since={args.since}"] if args.since else []), *([f"--until={args.until}"] if args.until else []),
               *(["--all"] if args.all else [])]

    def command(hint) -> str:  # quoted as a shell needs it (`*` would be a glob)
        return shlex.join(["hmc", "search", suggested_query(query, hint), *options])

    for hint in suggestions:
        if hint.kind == "stem":  # few hits: the word's other forms, which the index can't find by itself
            ctx.text("try: ", literal(mask(hint.text), "bold"),
                     f" — the stem of {mask(hint.word)}, which also finds {mask(hint.example)}: in "
                     f"{hint.in_messages()} · ", literal(mask(command(hint))), style="yellow")
            continue
        what = "a near spelling" if hint.kind == "spelling" else f"a prefix (finds {hint.example})"
        ctx.text("the index knows ", literal(mask(hint.text), "bold"),
                 f": {what}, in {hint.in_messages()} · try: ", literal(mask(command(hint))), style="yellow")


# ── hmc session ──────────────────────────────────────────────────────────────

def message_block(m: Message, anchor: int | None, now: float, mask: Masker | None = None) -> Text:
    mask = mask or Masker()
    is_anchor = m.id == anchor
    head = Text("▶ " if is_anchor else "  ", style="bold yellow")
    head.append(f"#{m.id} ", style="bold" if is_anchor else "dim")
    head.append_text(literal(m.role, {"user": "bold green", "assistant": "bold blue", "tool": "magenta"}.get(m.role, "bold")))
    if m.tool_name:
        head.append_text(literal(f" [{m.tool_name}]", "magenta"))
    if m.timestamp is not None:
        head.append(f"  {timefmt.local_time(m.timestamp)}", style="dim")
    if m.compacted:
        head.append("  (archived by compaction)", style="dim italic")
    out = Text()
    out.append_text(head)
    out.append("\n")
    body = mask(m.text)
    if body:
        out.append_text(literal(body.rstrip("\n")))
        out.append("\n")
    for name, args in parse_tool_calls(m.tool_calls):
        call = Text("  → ", style="magenta")
        call.append_text(literal(name, "bold magenta"))
        if args not in (None, "", {}):
            preview = mask(one_line(args if isinstance(args, str) else _compact(args)))
            call.append_text(literal("(" + (preview[:160] + "…" if len(preview) > 160 else preview) + ")", "dim"))
        out.append_text(call)
        out.append("\n")
    from core.timeline.refusals import refusal_said  # (not at start-up)

    refused = refusal_said(m)
    if refused:
        out.append("  ✗ the memory tool refused it: ", style="bold red")
        out.append_text(literal(mask(refused).replace("\n", "\u240a"), "red"))  # one line: ␊ for a break
        out.append("\n")
    if m.truncated:
        out.append(f"  … (cut at {len(m.content):,} characters)\n", style="dim")
    return out


def _compact(args) -> str:
    import json

    try:
        return json.dumps(args, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return "…"


def run_session(args, ctx: CliContext) -> int:
    curator, db = _db(ctx)
    if not 0 <= args.window <= MAX_WINDOW:
        raise CliError(f"--window must be between 0 and {MAX_WINDOW}")
    try:
        sid = db.resolve_session_id(args.session_id)
        if args.memory:
            from tui.cli.sessions import run_memory

            return run_memory(args, ctx, curator, sid)
        info = db.session(sid)
        n = args.window
        if args.around is not None:
            window = db.window(sid, args.around, before=n, after=n)
            parts = [window.messages]
            gap = None
            has_before, has_after = window.has_before, window.has_after
        else:
            window = db.window(sid, None, before=0, after=2 * n)
            parts = [window.messages]
            gap = None
            has_before, has_after = False, window.has_after
            if window.has_after and n:
                tail = db.tail(sid, n)
                seen = {m.id for m in window.messages}
                extra = tuple(m for m in tail.messages if m.id not in seen)
                if extra:
                    gap = True
                    parts.append(extra)
                    has_after = False
    except (NotFoundError, DatabaseError) as exc:
        raise _fail(exc) from None
    link = session_link(curator.home.profile, sid)
    messages = [m for part in parts for m in part]
    mask = Masker(args.reveal)
    if args.json:
        ctx.json({
            "session": mask.obj(dict(info.to_json(), link=link)),
            "anchor_id": window.anchor_id,
            "has_before": has_before,
            "has_after": has_after,
            "messages": [mask.obj(m.to_json()) for m in messages],
        })
        return 0
    head = literal(mask(one_line(info.title)), "bold")
    ctx.print(head)
    meta = f"{info.source} · started {timefmt.local_time(info.started_at) if info.started_at else '?'}"
    if info.message_count is not None:
        meta += f" · {counted(info.message_count, 'message')}"
    ctx.text(meta + f" · {link}", style="dim")
    if info.source in HIDDEN_SOURCES:
        ctx.text(f"({info.source} sessions are hidden from search unless --all)", style="dim")
    now = curator.now()
    if has_before:
        ctx.text("  ⋮ earlier messages: use --around with a smaller id, or a larger --window", style="dim")
    for i, part in enumerate(parts):
        if i and gap:
            ctx.text("  ⋮ (more messages in between: hmc session ID --around MESSAGE_ID)", style="dim")
        for m in part:
            ctx.print(message_block(m, window.anchor_id, now, mask))
    if has_after:
        ctx.text("  ⋮ later messages: use --around with a larger id, or a larger --window", style="dim")
    if not messages:
        ctx.text("(no visible messages)", style="dim")
    return 0
