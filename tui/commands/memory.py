"""`hmc memory list|add|replace|remove`: Hermes's memory operations from a shell."""

from __future__ import annotations

from core.memory import TARGETS, Op, ScanRefused, StoreError, usage, usage_label
from tui.commands.common import CliContext, CliError, literal


def register(sub) -> None:
    p = sub.add_parser("memory", help="list or change MEMORY.md / USER.md entries",
                       description="List or change entries, with Hermes's rules (matching, limits, scan).")
    ops = p.add_subparsers(dest="op", metavar="OP", required=True)

    def target(q):
        q.add_argument("--target", "-t", choices=TARGETS, required=True,
                       help="memory (MEMORY.md) or user (USER.md)")

    q = ops.add_parser("list", help="the entries, numbered")
    target(q)
    q.add_argument("--json", action="store_true", help="machine-readable output")
    q = ops.add_parser("add", help="add an entry")
    target(q)
    q.add_argument("content", help="the new entry")
    q.add_argument("--force", action="store_true", help="write even if the security scan flags it")
    q = ops.add_parser("replace", help="replace the whole entry matching OLD with NEW")
    target(q)
    q.add_argument("old", help="text that identifies one entry (equal first, then substring)")
    q.add_argument("new", help="the whole new entry")
    q.add_argument("--force", action="store_true", help="write even if the security scan flags it")
    q = ops.add_parser("remove", help="remove the entry matching OLD")
    target(q)
    q.add_argument("old", help="text that identifies one entry (equal first, then substring)")
    for q in ops.choices.values():
        q.set_defaults(run=run)


def run(args, ctx: CliContext) -> int:
    curator = ctx.curator()
    store = curator.stores[args.target]
    if args.op == "list":
        return list_entries(args, ctx, store)
    op = {
        "add": lambda: Op("add", content=args.content),
        "replace": lambda: Op("replace", content=args.new, old_text=args.old),
        "remove": lambda: Op("remove", old_text=args.old),
    }[args.op]()
    try:
        result = store.apply([op], force=getattr(args, "force", False))
    except ScanRefused as exc:
        raise CliError(f"refused: {exc} (pass --force to write it anyway)", 1) from None
    except StoreError as exc:
        raise CliError(f"refused: {exc}", 1) from None
    for message in result.messages:
        ctx.text(message)
    ctx.text(f"{store.name}: {result.label}, {len(result.after)} entries")
    return 0


def list_entries(args, ctx: CliContext, store) -> int:
    snap = store.read()
    if snap.error:
        raise CliError(snap.error, 2)
    used = usage(snap.entries)
    if args.json:
        ctx.json({
            "target": store.target, "file": str(store.path), "limit": store.limit, "chars": used,
            "label": usage_label(used, store.limit), "drift": snap.drift,
            "entries": [{"index": i, "chars": len(e), "text": e} for i, e in enumerate(snap.entries)],
        })
        return 0
    ctx.text(f"{store.name} — {usage_label(used, store.limit)}", style="bold")
    if snap.drift:
        ctx.text(f"drift: {snap.drift}", style="yellow")
    if not snap.entries:
        ctx.text("(no entries)", style="dim")
    for i, entry in enumerate(snap.entries, 1):
        head = f"{i:>3}. "
        lines = entry.split("\n")
        ctx.text(head, literal(lines[0]), f"  ({len(entry):,} chars)")
        for line in lines[1:]:
            ctx.text(" " * len(head), literal(line))
    return 0
