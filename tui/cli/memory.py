"""`hmc memory list|add|replace|patch|remove|prompt`: Hermes's memory operations from a shell, and the exact
block the release injects into the system prompt."""

from __future__ import annotations

from typing import NoReturn

from core.store.memory import TARGETS, Op, ScanRefused, StoreError, Unwritable, usage, usage_label
from core.scan.mask import Masker
from tui.cli.common import (CliContext, CliError, add_reveal, literal, plainly, refuse_if_rules_differ, say,
                            unreadable, visible)
from core.plural import counted


def register(sub) -> None:
    p = sub.add_parser("memory", help="list or change MEMORY.md / USER.md entries",
                       description="List or change entries, with Hermes's rules (matching, limits, scan).")
    ops = p.add_subparsers(dest="op", metavar="OP", required=True)

    def target(q):
        q.add_argument("--target", "-t", choices=TARGETS, required=True,
                       help="memory (MEMORY.md) or user (USER.md)")

    q = ops.add_parser("list", help="the entries, numbered (both files unless --target)")
    q.add_argument("--target", "-t", choices=TARGETS, help="only memory (MEMORY.md) or user (USER.md)")
    q.add_argument("--at", metavar="DATE[THH:MM]",
                   help="the entries as they were then (local time; a date alone: at the end of that day), "
                   "rebuilt from the history (see `hmc log`)")
    q.add_argument("--json", action="store_true", help="machine-readable output")
    add_reveal(q)
    q = ops.add_parser("add", help="add an entry")
    target(q)
    q.add_argument("content", help="the new entry")
    q.add_argument("--force", action="store_true", help="write even if the security scan flags it")
    q = ops.add_parser("replace", help="replace the whole entry matching OLD with NEW")
    target(q)
    q.add_argument("old", help="a substring that identifies one entry (Hermes's matching: several different matches are refused)")
    q.add_argument("new", help="the whole new entry")
    q.add_argument("--force", action="store_true", help="write even if the security scan flags it")
    q = ops.add_parser("patch", help="replace the span OLD inside one entry with NEW, keeping the rest",
                       description="Replace one span inside the entry that OLD selects (the entry holding "
                       "it, by your Hermes release's matching) and keep the rest of that entry. OLD must "
                       "occur once in that entry. hmc's own edit: it works whichever release you run "
                       "(0.22 has the same verb for the model).")
    target(q)
    q.add_argument("old", help="the exact span to change; it must occur once in the entry it selects")
    q.add_argument("new", help="the span's new text (the rest of the entry is kept)")
    q.add_argument("--force", action="store_true", help="write even if the security scan flags it")
    q = ops.add_parser("remove", help="remove the entry matching OLD")
    target(q)
    q.add_argument("old", help="a substring that identifies one entry (Hermes's matching: several different matches are refused)")
    q.add_argument("--force", action="store_true", help="write even where `hmc doctor` found your Hermes differs")
    for name, verb in (("move", "move"), ("copy", "copy")):
        q = ops.add_parser(name, help=f"{verb} the entry matching OLD to another profile's same file",
                           description=f"{verb.capitalize()} one entry to another profile (the same file there: "
                           "MEMORY.md or USER.md). Both sides go through the store's checks (limit, scan, lock); "
                           + ("the entry leaves this profile in the same operation; " if name == "move" else "")
                           + "`hmc undo` (in either profile) undoes both sides at once.")
        target(q)
        q.add_argument("old", help="a substring that identifies one entry (several different matches are refused)")
        q.add_argument("--to", required=True, metavar="PROFILE", help="the profile to put it in")
        q.add_argument("--force", action="store_true", help="write even if the security scan flags it")
    q = ops.add_parser("prompt", help="the exact block Hermes injects into the system prompt",
                       description="The block(s) the detected Hermes release puts in the system prompt at "
                       "session start, from the files as they are now: nothing for an empty store, "
                       "[BLOCKED: …] notices where its scan would hide an entry. Without --target, both "
                       "enabled stores, joined as the agent joins them.")
    q.add_argument("--target", "-t", choices=TARGETS, help="only memory (MEMORY.md) or user (USER.md)")
    q.add_argument("--raw", action="store_true",
                   help="the exact bytes, secrets and control characters included (for files and diffs)")
    for name in ("add", "replace", "patch", "remove", "prompt", "move", "copy"):
        add_reveal(ops.choices[name])  # their messages quote entries ("Entry replaced (was '…')")
        ops.choices[name].add_argument("--json", action="store_true", help="machine-readable output")
    for q in ops.choices.values():
        q.set_defaults(run=run)


def run(args, ctx: CliContext) -> int:
    curator = ctx.curator()
    if args.op == "list":
        targets = [args.target] if args.target else list(TARGETS)
        if args.at is not None:
            return list_at(args, ctx, targets)
        return list_entries(args, ctx, [curator.stores[t] for t in targets])
    if args.op == "prompt":
        return prompt(args, ctx, curator)
    if args.op in ("move", "copy"):
        return move_entry(args, ctx, curator)
    store = curator.stores[args.target]
    op = {
        "add": lambda: Op("add", content=args.content),
        "replace": lambda: Op("replace", content=args.new, old_text=args.old),
        "patch": lambda: Op("patch", content=args.new, old_text=args.old),
        "remove": lambda: Op("remove", old_text=args.old),
    }[args.op]()
    refuse_if_rules_differ(curator, "memory", args.force)
    typed = [getattr(args, k, None) for k in ("content", "old", "new")]
    try:
        result = store.apply([op], force=args.force)
    except ScanRefused as exc:
        refused(args, ctx, store, exc, "scanner", 1, " (pass --force to write it anyway)", typed)
    except StoreError as exc:  # an unreadable or unwritable store is bad input (2); any other refusal is 1
        refused(args, ctx, store, exc, "refused", 2 if isinstance(exc, Unwritable) or store.read().error else 1,
                "", typed)
    mask = Masker(args.reveal, (result.before, typed))
    if args.json:
        ctx.json({"target": store.target, "file": str(store.path), "action": args.op, "changed": result.changed,
                   "messages": [mask(m) for m in result.messages],
                   "messages_plain": [mask(plainly(m, store)) for m in result.messages],
                   "label": result.label, "chars": usage(result.after), "limit": store.limit,
                   "total_entries": len(result.after), "added": [mask(e) for e in result.added],
                   "removed": [mask(e) for e in result.removed], "refused": None})
        return 0
    for message in result.messages:
        ctx.text(mask(plainly(message, store)))
    ctx.text(f"{store.name}: {result.label}, {counted(len(result.after), 'entry', 'entries')}")
    return 0


def move_entry(args, ctx: CliContext, curator) -> int:
    """`hmc memory move|copy --target T OLD --to PROFILE` (core.profiles.transfer)."""
    from core.home import HomeError
    from core.profiles.transfer import transfer

    store = curator.stores[args.target]
    typed = [args.old]
    snap = store.read()
    if snap.error:
        refused(args, ctx, store, StoreError(snap.error), "unreadable", 2, "", typed)
    matches = sorted({e for e in snap.entries if args.old and args.old in e})
    if len(matches) != 1:
        why = "No entry matched" if not matches else f"{len(matches)} different entries matched"
        refused(args, ctx, store, StoreError(f"{why} {args.old!r}; give more of the entry's text"),
                "no-match" if not matches else "ambiguous", 1, "", typed)
    try:
        destination = curator.switch_profile(args.to)
    except HomeError as exc:
        raise CliError(str(exc), 2) from None
    refuse_if_rules_differ(curator, "memory", args.force)
    try:
        done = transfer(curator, destination, args.target, matches[0], move=args.op == "move", force=args.force)
    except ScanRefused as exc:
        refused(args, ctx, store, exc, "scanner", 1, " (pass --force to write it anyway)", typed)
    except StoreError as exc:
        refused(args, ctx, store, exc, "refused", 2 if isinstance(exc, Unwritable) else 1, "", typed)
    mask = Masker(args.reveal, ((matches[0],), typed))
    if args.json:
        ctx.json({**done.to_json(), "entry": mask(done.entry), "refused": None})
        return 0
    verb = "moved" if done.kind == "move" else "copied"
    where = "" if done.added else f" (profile {done.destination} held it already: nothing added there)"
    ctx.text(f"{verb} to profile {done.destination}'s {store.name}{where}: ", mask(done.entry))
    ctx.text(f"profile {done.destination}'s {store.name}: {done.usage_after} · `hmc undo` undoes both sides")
    return 0


def refused(args, ctx: CliContext, store, exc: Exception, fallback: str, code: int, hint: str, typed) -> NoReturn:
    """A refused write: the person's sentence on stderr (exit 1, or 2 for an unreadable store); with
    --json also a JSON object on stdout keeping the release's words (`reason`) beside it."""
    from core.hermes.wording import explain
    from core.store.memory import DriftError

    snap = store.last
    said = explain(str(exc), store.name, None if snap.error else len(snap.entries), see="hmc memory list")
    if args.json:
        mask = Masker(args.reveal, (snap.entries, typed))
        kind = said.kind or ("drift" if isinstance(exc, DriftError) else getattr(exc, "kind", None) or fallback)
        ctx.json({"target": store.target, "file": str(store.path), "action": args.op, "changed": False,
                  "refused": {"kind": kind.replace("_", "-"), "reason": mask(str(exc)),
                              "reason_plain": mask(said.text + hint), "exit": code}})
    verb = "can't write" if isinstance(exc, Unwritable) else "refused"
    raise CliError(f"{verb}: {said.text}{hint}", code)


MAX_LISTED = 2_000  # entries printed per file: a store this long is far past any limit already


def list_entries(args, ctx: CliContext, stores) -> int:
    from core.hermes.scan import blocked_notice  # the release's own scan (not hmc's scanner: ~35 ms to load)

    snaps = [(store, store.read()) for store in stores]
    mask = Masker(args.reveal)
    broken = [snap.error for _, snap in snaps if snap.error]
    if broken and len(stores) == 1:
        raise CliError(broken[0], 2)
    if args.json:
        loads = entry_loads_now(ctx.curator(), snaps)
        data = [{
            "target": store.target, "file": str(store.path), "limit": store.limit, "chars": snap.usage,
            "label": usage_label(snap.usage, store.limit), "drift": snap.drift, "error": snap.error,
            "untidy": list(snap.untidy), "total_entries": len(snap.entries), **store.figures(snap).as_json(),
            "truncated": len(snap.entries) > MAX_LISTED,
            "entries": [{"index": i, "number": i + 1, "chars": len(e), "text": mask(e),
                         "blocked_by_hermes": blocked_notice(e, store.name, store.release) is not None,
                         "loaded": loads[store.target][i].to_json() if loads.get(store.target) else None}
                        for i, e in enumerate(snap.entries[:MAX_LISTED])],
        } for store, snap in snaps]
        ctx.json(data)  # one store per target, --target or not: a filter never changes the shape
        return unreadable(broken)
    for n, (store, snap) in enumerate(snaps):
        if n:
            ctx.text("")
        ctx.text(f"{store.name} — {usage_label(snap.usage, store.limit)}", style="bold")
        if snap.error:
            ctx.text(f"unreadable: {snap.error}", style="red")
            continue
        note = store.figures(snap).note
        if note:
            ctx.text(f"note: {note}", style="dim")
        if snap.drift:
            ctx.text(f"drift: {snap.drift}", style="yellow")
        if not snap.entries:
            ctx.text("(no entries)", style="dim")
        if snap.untidy:
            ctx.text(f"untidy (Hermes reads it fine): {'; '.join(snap.untidy)}", style="dim")
        for i, entry in enumerate(snap.entries[:MAX_LISTED], 1):
            head = f"{i:>3}. "
            lines = mask(entry).split("\n")
            hit = None
            if blocked_notice(entry, store.name, store.release):
                from core.scan import scanner

                hit = scanner.hermes_scan(entry, store.release)
            mark = f"  ⚠ blocked by Hermes ({hit})" if hit else ""
            ctx.text(head, literal(lines[0]), f"  ({len(entry):,} chars){mark if len(lines) == 1 else ''}")
            for j, line in enumerate(lines[1:], 2):
                ctx.text(" " * len(head), literal(line), mark if j == len(lines) else "")
        if len(snap.entries) > MAX_LISTED:
            ctx.text(f"… and {len(snap.entries) - MAX_LISTED:,} more entries not listed ({len(snap.entries):,} in "
                     "all, far past any limit: trim the file in an editor)", style="yellow")
    return unreadable(broken)


def entry_loads_now(curator, snaps) -> dict:
    """{target: [EntryLoads per entry] or None}: which sessions loaded each entry (none known
    without a readable state.db that stored prompts)."""
    from core.snapshots.compare import entry_loads

    try:
        sessions = curator.snapshots() if curator.home.state_db.is_file() else None
    except Exception:  # noqa: BLE001 - a damaged state.db tells nothing about loads
        sessions = None
    if sessions is None:
        return {}
    return {store.target: entry_loads(sessions, store.target, snap.entries[:MAX_LISTED], store.release)
            for store, snap in snaps if not snap.error}


def list_at(args, ctx: CliContext, targets: list[str]) -> int:
    """`memory list --at`: each store as the history says it was at that moment (read-only)."""
    from core.hermes.memory import FILE_NAMES
    from tui.cli.history import parse_at, timeline

    moment = parse_at(args.at)
    curator, tl = timeline(ctx)
    state = tl.state_at(moment)
    mask = Masker(args.reveal)
    shown = moment.isoformat(timespec="minutes")
    if args.json:
        data = [{"target": t, "at": shown, "chars": usage(state[t]), "limit": curator.stores[t].limit,
                 "entries": [{"index": i, "number": i + 1, "chars": len(e), "text": mask(e)}
                             for i, e in enumerate(state[t][:MAX_LISTED])]}
                for t in targets]
        ctx.json(data)  # one store per target, --target or not: a filter never changes the shape
        return 0
    for n, target in enumerate(targets):
        if n:
            ctx.text("")
        entries = state[target]
        store = curator.stores[target]
        ctx.text(f"{FILE_NAMES[target]} as it was at {shown} — {usage_label(usage(entries), store.limit)}", style="bold")
        if not entries:
            ctx.text("(no entries)", style="dim")
        for i, entry in enumerate(entries[:MAX_LISTED], 1):
            head = f"{i:>3}. "
            lines = mask(entry).split("\n")
            ctx.text(head, literal(lines[0]), f"  ({len(entry):,} chars)" if len(lines) == 1 else "")
            for line in lines[1:]:
                ctx.text(" " * len(head), literal(line))
    return 0


def prompt_blocks(args, curator) -> tuple[list[str], list[tuple], list[str]]:
    """(the stores shown, [(store, snapshot, block)], problems) for `memory prompt`: --target's
    store, else every enabled one; a store that can't be loaded is a problem (Hermes injects nothing)."""
    from core.store.memory import prompt_block

    targets = [args.target] if args.target else [t for t in TARGETS if curator.stores[t].enabled]
    found, problems = [], []
    for target in targets:
        store = curator.stores[target]
        snap = store.read()
        if snap.error:
            problems.append(f"{snap.error}: Hermes injects nothing for it")
            continue
        found.append((store, snap, prompt_block(target, list(snap.entries), store.limit, store.release)))
    return targets, found, problems


def prompt(args, ctx: CliContext, curator) -> int:
    """The release's frozen snapshot block(s); exit 2 when a store can't be loaded (Hermes would
    inject nothing for it either)."""
    import sys

    if args.json:
        return prompt_json(args, ctx, curator)
    if args.raw and sys.stdout.isatty():
        raise CliError("--raw prints the exact bytes, escape sequences and secrets included: redirect it "
                       "to a file or a pipe (without --raw the block is shown safely)")
    targets, found, problems = prompt_blocks(args, curator)
    blocks = [block.strip() if len(targets) > 1 else block for _, _, block in found if block.strip()]
    text = "\n\n".join(blocks)
    if text:
        if args.raw:
            sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))  # the exact bytes: no newline added
            sys.stdout.flush()
        else:
            mask = Masker(args.reveal)
            sys.stdout.write(visible(mask(text)) + "\n")
    for problem in problems:
        say(problem)
    return 2 if problems else 0


def prompt_json(args, ctx: CliContext, curator) -> int:
    """`memory prompt --json`: each store's block with both usage figures; `text` is what the agent
    gets (both blocks joined). Secrets masked unless --reveal (or --raw); exit 2 as without --json."""
    targets, found, problems = prompt_blocks(args, curator)
    mask = Masker(args.reveal or args.raw)
    blocks = []
    for store, snap, block in found:
        figures = store.figures(snap)
        blocks.append({"target": store.target, "file": str(store.path), "enabled": store.enabled,
                       "block": mask(block), "limit": store.limit, "chars": figures.file_chars,
                       "label": figures.file_label, **figures.as_json()})
    text = "\n\n".join(b["block"].strip() for b in blocks if b["block"].strip())
    ctx.json({"hermes": curator.hermes.release.name, "blocks": blocks,
              "text": text if len(targets) > 1 else (blocks[0]["block"] if blocks else ""), "problems": problems})
    for problem in problems:
        say(problem)
    return 2 if problems else 0
