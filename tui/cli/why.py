"""`hmc why TEXT`: why Hermes doesn't know a fact — every cause's verdict, most likely first (core.why)."""

from __future__ import annotations

from core.scan.mask import Masker
from tui.cli.common import CliContext, CliError, add_reveal

MARK = {"yes": "yes ", "unknown": "?   ", "no": "no  "}
STYLE = {"yes": "bold", "unknown": "yellow", "no": "dim"}


def register(sub) -> None:
    p = sub.add_parser("why", help="why Hermes doesn't know a fact: every cause checked, most likely first",
                       description="Trace a fact, in your words, through everything hmc can read (the memory "
                       "files, the pending queue, the history and its refused writes, past sessions and what "
                       "they loaded, config.yaml, pruning, every profile) and say, for each cause, yes, no or "
                       "unknown, with its evidence and one thing to do.")
    p.add_argument("text", metavar="TEXT", nargs="+", help="the fact, in your words (any of the six languages)")
    p.add_argument("--this-profile", action="store_true", help="don't look in the other profiles")
    p.add_argument("--json", action="store_true", help="machine-readable output: {fact, profile, causes: "
                   "[{cause, verdict, detail, evidence, action}], problems}")
    add_reveal(p)
    p.set_defaults(run=run)


def run(args, ctx: CliContext) -> int:
    from core.why import FactError, evidence_line, why

    curator = ctx.curator()
    try:
        answer = why(curator, " ".join(args.text), other_profiles=not args.this_profile)
    except FactError as exc:
        raise CliError(str(exc), 2) from None
    mask = Masker(args.reveal)
    if args.json:
        ctx.json(mask.obj(answer.to_json()))
        return 0
    ctx.text(f"Why doesn't Hermes know {answer.fact!r}? (profile {answer.profile})", style="bold")
    if not answer.found:
        ctx.text("No cause is a clear yes: see the unknowns below, or the fact may never have reached Hermes.",
                 style="yellow")
    for cause in answer.causes:
        head = f"{MARK[cause.verdict]}{cause.cause:<14} "
        ctx.text(head, mask(cause.detail), style=STYLE[cause.verdict])
        if cause.verdict == "no":
            continue
        pad = " " * len(head)
        if cause.action:
            ctx.text(pad, "→ ", mask(cause.action))
        for item in cause.evidence[:3]:
            ctx.text(pad, "· ", mask(evidence_line(item)), style="dim")
        if len(cause.evidence) > 3:
            ctx.text(pad, f"· and {len(cause.evidence) - 3} more (--json lists them)", style="dim")
    for problem in answer.problems:
        ctx.text("couldn't read ", mask(problem), style="yellow")
    return 0
