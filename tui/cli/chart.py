"""`hmc log --chart`: how each store filled up — a bar per week against its limit, with the
sessions that grew it most (core.timeline.usage). `--json` gives the series."""

from __future__ import annotations

from datetime import date

from rich.text import Text

from core.hermes.memory import FILE_NAMES, TARGETS, percent
from core.timeline.usage import Bucket, UsageSeries, usage_series
from core.scan.mask import Masker
from tui.cli.common import CliContext, CliError, literal

WIDTH = 30  # cells of a full bar (the limit)


def bar(chars: int, limit: int, width: int = WIDTH) -> Text:
    """`█████░░░░░` against the limit: calm below 80%, yellow from 80%, red from 95%; past the limit
    the bar is full and marked."""
    share = chars / limit if limit > 0 else 0
    full = min(width, round(share * width))
    level = percent(chars, limit)
    style = "red" if level >= 95 or chars > limit else "yellow" if level >= 80 else "green"
    out = Text("█" * full, style=style)
    out.append("░" * (width - full), style="dim")
    out.append("▲" if chars > limit else " ", style="bold red")
    return out


def run(args, ctx: CliContext, curator, tl, since: date | None, until: date | None) -> int:
    if args.source:
        raise CliError("--chart counts every writer; --source doesn't apply to it", 2)
    today = ctx.today or date.today()
    targets = [args.target] if args.target else list(TARGETS)
    series = [usage_series(tl, t, curator.stores[t].limit, today=today) for t in targets]
    shown = [[b for b in s.buckets if (since is None or b.start >= _monday(since)) and (until is None or b.start <= until)]
             for s in series]
    mask = Masker(args.reveal)
    if args.json:
        data = []
        for s, buckets in zip(series, shown):
            item = s.as_json()
            item["file"] = FILE_NAMES[s.target]
            item["series"] = [mask.obj(b.as_json(s.limit)) for b in buckets]
            data.append(item)
        ctx.json({"targets": data})
        return 0
    for n, (s, buckets) in enumerate(zip(series, shown)):
        if n:
            ctx.text("")
        print_series(ctx, s, buckets, mask)
    return 0


def _monday(day: date) -> date:
    from datetime import timedelta

    return day - timedelta(days=day.weekday())


def print_series(ctx: CliContext, s: UsageSeries, buckets: list[Bucket], mask: Masker) -> None:
    head = f"{FILE_NAMES[s.target]} — limit {s.limit:,} chars"
    filled = s.filled
    head += f" · reached 80% the week of {filled.start.isoformat()}" if filled else " · never reached 80%"
    ctx.text(head, style="bold")
    if not buckets:
        ctx.text("no writes recorded" + (" in that range" if s.buckets else ""), style="dim")
        return
    ctx.text(f"{'week of':<11} {'':<{WIDTH + 1}} {'%':>4} {'chars':>6} {'writes':>6}  grew it most", style="dim")
    quiet = 0
    for i, b in enumerate(buckets):
        if not b.writes and 0 < i < len(buckets) - 1:  # a quiet week inside the range: folded
            quiet += 1
            continue
        if quiet:
            ctx.text(f"{'':<11} … {quiet} week{'s' if quiet != 1 else ''} without writes", style="dim")
            quiet = 0
        line = Text(f"{b.start.isoformat():<11} ")
        line.append_text(bar(b.chars, s.limit))
        line.append(f" {percent(b.chars, s.limit):>3}% {b.chars:>6,} {b.writes:>6}  ")
        for j, g in enumerate(b.grew):
            if j:
                line.append(", ")
            line.append(f"+{g.chars:,} ", style="green")
            line.append_text(literal(mask(g.label())))
        ctx.print(line)
