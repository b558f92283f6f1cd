"""`hmc profiles [--json]`: every profile of the home in one table, and `hmc status`'s one line about
them.

A row: the name (the active one, the one a bare `hermes` uses, marked), both stores' usage, both
queues, the review, the last session and the sessions of the last 30 days, memory switched off or a
provider set, the doctor's verdict. Below it: the folders under profiles/ that aren't profiles
(each with why), an active_profile Hermes would refuse, and a stale profiles/default/.
Exit 0; 2 when the home can't be read.
"""

from __future__ import annotations

from core.store.memory import percent
from tui.cli.common import CliContext, literal


def register(sub) -> None:
    p = sub.add_parser("profiles", help="every profile of the home side by side",
                       description="Every profile of the Hermes home in one table: both stores' usage, both "
                       "queues, the review, the last session and the sessions of the last 30 days, memory off or "
                       "a provider, the doctor's verdict. The active profile (the one a bare `hermes` uses) is "
                       "marked; folders under profiles/ that aren't profiles are named with why.")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--names", action="store_true",
                   help="only the names, one per line, from the folders (what shell completion asks)")
    p.set_defaults(run=run)


def gather(curator) -> dict:
    from core.profiles import rows, trap

    found, profile_rows = rows(curator)
    stale = trap(found)
    return {"home": str(found.base), "current": curator.home.profile, "active": found.active,
            "active_profile": found.sticky, "active_profile_problem": found.sticky_problem,
            "profiles": [r.to_json() for r in profile_rows],
            "skipped": [{"folder": s.shown, "why": s.why} for s in found.skipped],
            "default_trap": ({"folder": str(stale.folder), "entries": {t: list(e) for t, e in stale.entries.items()},
                              "hermes_reads": str(stale.live), "advice": stale.sentence()} if stale else None)}


def one_line(curator) -> tuple[str, dict]:
    """`hmc status`'s line ("profiles   default, contenu (active), ops · `hmc profiles` compares them")
    and its JSON, from the folders alone (no profile is opened)."""
    from core.profiles import trap
    from core.profiles.discovery import discover

    found = discover(curator.home.base, curator.release)
    names = [n + (" (active)" if n == found.active and len(found.profiles) > 1 else "")
             + (" (here)" if n == curator.home.profile and n != found.active else "") for n in found.names()]
    line = ", ".join(names) + (" · `hmc profiles` compares them" if len(names) > 1 else "")
    stale = trap(found)
    return line, {"names": found.names(), "active": found.active, "active_profile_problem": found.sticky_problem,
                  "skipped": [{"folder": s.shown, "why": s.why} for s in found.skipped],
                  "default_trap": stale.sentence() if stale else None}


def run(args, ctx: CliContext) -> int:
    if args.names:
        from tui.cli.completion import names, write

        found = names(ctx)
        write("".join(n + "\n" for n in found))
        return 0
    data = gather(ctx.curator())
    if args.json:
        ctx.json(data)
        return 0
    ctx.text(f"home {data['home']}", style="bold")
    header = f"  {'profile':<18} {'MEMORY.md':<16} {'USER.md':<16} {'pending':<9} {'review':<24} {'last session':<24} 30 d"
    ctx.text(header, style="dim")
    for row in data["profiles"]:
        mark = "▸" if row["name"] == data["current"] else " "
        name = row["name"] + (" *" if row["active"] else "")
        line = literal(f"{mark} ")
        line.append_text(literal(f"{name:<18} ", "bold" if row["active"] else ""))
        for target in ("memory", "user"):
            line.append(f"{_gauge(row['stores'].get(target)):<16} ")
        pending = "?" if row["pending"] is None else str(row["pending"])
        skills = "?" if row["skills_pending"] is None else str(row["skills_pending"])
        line.append(f"{pending + '+' + skills:<9} ", style="bold yellow" if row["pending"] or row["skills_pending"] else "")
        line.append(f"{row['review']:<24} ", style="yellow" if row["review_due"] else "")
        last = row["last_session"]
        when = f"{(last['started_at'] or '?')[:10]} {last['source']}" if last else "none"
        line.append_text(literal(f"{when:<24} "))
        line.append("-" if row["sessions_last_30_days"] is None else str(row["sessions_last_30_days"]))
        ctx.print(line)
        notes = ([f"memory off: {', '.join(row['memory_off'])}"] if row["memory_off"] else []) \
            + ([f"provider {row['provider']} (hmc can't see inside it)"] if row["provider"] else []) \
            + ([f"hmc doctor: {row['doctor']}"] if row["doctor"] in ("differ", "unchecked") else []) + row["problems"]
        for note in notes:
            ctx.text(f"    {note}", style="yellow")
    ctx.text("  * the active profile (active_profile: the one a bare `hermes` uses) · ▸ the one this command read · "
             "pending: memory+skills", style="dim")
    if data["active_profile_problem"]:
        ctx.text(data["active_profile_problem"], style="bold red")
    for skipped in data["skipped"]:
        ctx.text(f"profiles/{skipped['folder']}: skipped, {skipped['why']}", style="yellow")
    if data["default_trap"]:
        ctx.text(data["default_trap"]["advice"], style="yellow")
    return 0


def _gauge(store: dict | None) -> str:
    if not store:
        return "?"
    if store["chars"] is None:
        return "unreadable"
    text = f"{store['chars']:,}/{store['limit']:,} {percent(store['chars'], store['limit'])}%"
    return text if store["loaded"] else "off"
