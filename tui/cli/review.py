"""`hmc review`: the monthly review from the command line (for people, scripts and cron).

The review counts as done (today becomes the date of the last review) when no finding at warning or
above is left open — each was fixed or kept — or when a report is exported with `--markdown`.
Every output mode checks that except `--check`, which never records anything (cron).
"""
from __future__ import annotations

from datetime import date
from pathlib import Path

from rich.text import Text

from core.plural import counted
from core.review.decisions import ReviewStoreError
from core.scan.mask import mask_untrusted
from tui.cli.common import CliContext, CliError, literal

SEVERITY_STYLE = {"critical": "bold red", "error": "red", "warning": "yellow", "info": "cyan"}
PREVIEW = 100


def register(sub) -> None:
    p = sub.add_parser(
        "review", help="the monthly review: duplicates, conflicts, stale dates, old entries, secrets, capacity…",
        description="Run every review detector over MEMORY.md and USER.md and list the findings, "
        "most severe first. `stale`: the newest date written in an entry is older than [review] "
        "stale_days (90). `old` (info): the entry's text has not changed for more than [review] old_days "
        "(180), by the history in state.db, dated or not. Exit 0, or with --check exit 1 when any "
        "finding is at warning or above.")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--check", action="store_true",
                   help="exit 1 when any finding is at warning or above (for cron); prints a summary")
    p.add_argument("--markdown", metavar="FILE", help="also write the review as a Markdown report")
    p.add_argument("--all", action="store_true", help="include findings you chose to keep")
    p.add_argument("--all-profiles", action="store_true",
                   help="review every profile of the home, grouped by profile (the same fact in two profiles "
                        "is a cross-profile finding in each)")
    p.set_defaults(run=run)


def thresholds() -> tuple[int, int]:
    """(stale_days, old_days) from hmc's settings (config.toml `[review]`), as the TUI uses them;
    a problem with the file is a note on stderr and the default applies."""
    from core.settings import load
    from tui.cli.common import say

    settings = load()
    for problem in settings.problems:  # only what touches the review (the theme's and keys' are the TUI's)
        if "review" in problem or "using the defaults" in problem:
            say(f"note: {problem}")
    return settings.stale_days, settings.old_days


def _when(last: date | None, today: date) -> str:
    if last is None:
        return "never"
    days = (today - last).days
    ago = "today" if days == 0 else ("yesterday" if days == 1 else f"{days} days ago")
    return f"{last.isoformat()} ({ago})"


def _preview(text: str) -> str:
    one = " ".join(text.split())
    from core.scan.mask import clip  # never cut inside a secret: the line is masked later

    return one if len(one) <= PREVIEW else clip(one, PREVIEW - 1)


def run(args, ctx: CliContext) -> int:
    if args.all_profiles:
        return run_all_profiles(args, ctx)
    return review_one(args, ctx, ctx.curator())


def run_all_profiles(args, ctx: CliContext) -> int:
    """Every profile's review, one after the other (each recorded as its own review), grouped by
    profile; a profile hmc can't open is named and the others go on."""
    from core.profiles import curators

    here = ctx.curator()
    results, worst = [], 0
    for name, curator, why in curators(here):
        if curator is None:
            results.append({"profile": name, "error": why})
            if not args.json:
                ctx.text(f"profile {name}: can't be reviewed: {why}", style="yellow")
            continue
        if not args.json:
            ctx.print()
            ctx.print(Text(f"━━ profile {name} ━━", style="bold reverse"))
        code, data = review_one(args, ctx, curator, quiet_json=True)
        worst = max(worst, code)
        results.append(data)
    if args.json:
        ctx.json({"home": str(here.home.base), "today": here.today.isoformat(), "profiles": results,
                  "count": sum(r.get("count", 0) for r in results)})
    else:
        ctx.print()
        ctx.text("by profile: " + " · ".join(f"{r['profile']} {r['count']}" if "count" in r else
                                             f"{r['profile']} ?" for r in results), style="bold")
    return worst


def review_one(args, ctx: CliContext, curator, quiet_json: bool = False):
    """One profile's review, printed (or, with --json, written; `quiet_json`: returned instead, as
    (exit code, the document))."""
    from core.review import findings as R

    last = R.last_review_date(curator)
    stale_days, old_days = thresholds()
    from tui.cli.progress import Progress

    progress = Progress("rebuilding the memory history for entry ages")
    try:
        findings = R.run_review(curator, include_kept=True, stale_days=stale_days, old_days=old_days,
                                progress=progress)
    finally:
        progress.close()
    kept_keys = R.decisions(curator).kept_keys()
    shown = findings if args.all else [f for f in findings if f.key not in kept_keys]
    n_kept = sum(1 for f in findings if f.key in kept_keys)
    failing = [f for f in shown if R.RANK[f.severity] >= R.RANK["warning"]]

    if args.markdown:
        path = Path(args.markdown).expanduser()
        try:
            path.write_text(R.markdown_report(curator, shown), encoding="utf-8")
        except OSError as exc:
            raise CliError(f"can't write {path}: {exc.strerror or exc}", 2) from None

    complete = R.review_complete(findings, kept_keys)
    marked, note = False, None
    if not args.check and complete:  # a report is not the review: done once nothing at warning or above is open
        try:
            marked = R.mark_if_complete(curator, findings, kept_keys)
        except ReviewStoreError as exc:
            note = f"note: {exc}"
    now_last = R.last_review_date(curator)

    document = {
        "home": str(curator.home.root), "profile": curator.home.profile,
        "today": curator.today.isoformat(),
        "last_review": now_last.isoformat() if now_last else None,
        "review_due": R.review_due_on(now_last, curator.today),
        "complete": complete, "marked": marked,
        "count": len(shown), "kept": n_kept, "counts": R.counts(shown),
        "findings": [f.to_json() | ({"kept": True} if f.key in kept_keys else {}) for f in shown],
    }
    code = 1 if args.check and failing else 0
    if args.json:
        if quiet_json:
            return code, document
        ctx.json(document)
    elif args.check:
        worst = R.worst(shown) or "none"
        ctx.text(f"{counted(len(shown), 'finding')}, {len(failing)} at warning or above (worst: {worst})")
    else:
        _print(ctx, curator, shown, kept_keys, last, n_kept, args.all)
        if complete:
            ctx.text("Review done: nothing at warning or above is left open"
                     + (" (recorded as today's review)." if marked else "."))
        else:
            n_open = len(R.open_problems(findings, kept_keys))
            ctx.text(f"{counted(n_open, 'finding')} at warning or above still open: fix or keep each "
                     "(hmc, mode 4) to complete the review" + (" (the export counts as done)." if marked
                                                                else "."))
    if note and not args.json:
        ctx.text(note, style="yellow")
    if args.markdown and not args.json:
        ctx.text(f"report written to {args.markdown}")
    return (code, document) if quiet_json else code


def _print(ctx, curator, findings, kept_keys, last, n_kept, show_all) -> None:
    from core.review import findings as R

    home = curator.home
    ctx.text(f"Review of {home.display()} · profile {home.profile} · {curator.today.isoformat()}",
             style="bold")
    ctx.text(f"last review: {_when(last, curator.today)}")
    if not findings:
        ctx.text("Nothing to fix: capacity, duplicates, dates, redundancy and the security scan are clear."
                 + (f" ({counted(n_kept, 'kept finding')} hidden; --all shows them)" if n_kept else ""))
        return
    for kind, items in R.group_findings(findings):
        ctx.print()
        ctx.print(Text(f"{kind} ({len(items)})", style="bold underline"))
        for f in items:
            line = Text()
            line.append(f"{f.severity:<8} ", style=SEVERITY_STYLE.get(f.severity, ""))
            line.append(f"{f.where:<22} ", style="bold")
            line.append(literal(mask_untrusted(f.detail)))
            if f.key in kept_keys:
                line.append("  [kept]", style="dim")
            ctx.print(line)
            for target, index, text in f.refs:
                row = Text("         ")
                row.append(f"{target} #{index + 1}: ", style="dim")
                row.append(literal(_preview(R.mask_secrets(text))))
                ctx.print(row)
            if f.passage is not None:  # the lines of the skill or context file it restates
                first, last = f.passage_lines or (0, 0)
                ctx.print(Text(f"         {f.source}, line{'' if first == last else 's'} "
                               f"{first}{'' if first == last else f'-{last}'}:", style="dim"))
                for n, line in enumerate(R.mask_secrets(f.passage).split("\n"), first):
                    row = Text(f"         {n:>4} │ ", style="dim")
                    row.append(literal(mask_untrusted(line)))
                    ctx.print(row)
    ctx.print()
    summary = ", ".join(words for _, words in R.severity_counts(findings))
    tail = f" · {n_kept} kept" + ("" if show_all else " (hidden; --all shows them)") if n_kept else ""
    ctx.text(f"{counted(len(findings), 'finding')}{': ' + summary if summary else ''}{tail}")
