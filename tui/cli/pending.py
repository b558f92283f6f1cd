"""`hmc pending list|show|approve|reject|approval`: the write-approval queue from a shell."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core import timefmt
from core.pending.config_edit import read_write_approval
from core.store.memory import TARGETS
from core.pending.queue import ApproveRefused, Inspection, PendingError, inline_diff
from core.pending.records import HERMES_SCAN, reason_label
from core.scan.mask import Masker, finding_detail
from tui.cli.common import (CliContext, CliError, add_reveal, batch_exit, list_document, literal, os_error_text, plainly,
                            queue_json, set_approval)

if TYPE_CHECKING:  # pragma: no cover
    from rich.text import Text
# rich is imported by the functions that print text: `pending list --json` never loads it.


def register(sub) -> None:
    p = sub.add_parser(
        "pending", help="staged memory and skill writes: list, show, approve, reject (--subsystem skills)",
        description="The writes Hermes staged for approval: memory writes (pending/memory/, the default) and "
        "skill writes (pending/skills/, with --subsystem skills; `list --subsystem all` shows both). Approving "
        "replays each one through the same checks Hermes uses (lock, drift, limit, security scan); a failure "
        "keeps the record.",
    )
    ops = p.add_subparsers(dest="op", metavar="OP", required=True)
    q = ops.add_parser("list", help="staged writes, oldest first, each with whether it can still apply")
    q.add_argument("--json", action="store_true", help="machine-readable output")
    add_reveal(q)
    q = ops.add_parser("show", help="one record: summary, the diff approving would make, usage after, findings",
                       description="One record: summary, the diff approving would make, usage after, findings. "
                       "A broken record file (half-written, not JSON) is unreadable input: its reason goes to "
                       "stderr and the exit code is 2 (with --json the record is still described on stdout). "
                       "A readable record that can't apply exits 0 (see can_apply / reason).")
    q.add_argument("id", help="the record id (8 hex characters)")
    q.add_argument("--json", action="store_true", help="machine-readable output")
    q.add_argument("--unified", action="store_true", help="also print a line diff of the file")
    q.add_argument("--raw", action="store_true", help="also print the record file as it is on disk")
    add_reveal(q)
    q = ops.add_parser("approve", help="apply records (ID …, or all) and delete them; failures are kept")
    q.add_argument("ids", nargs="+", metavar="ID", help="record ids, or `all`")
    q.add_argument("--force", action="store_true", help="write despite a security-scanner hit (not with `all`)")
    q.add_argument("--text", metavar="NEW", help="approve this text instead of the staged one (edit, then approve)")
    q.add_argument("--target", choices=TARGETS, help="approve into this store instead (an add of the text)")
    q.add_argument("--json", action="store_true", help="machine-readable output")
    add_reveal(q)
    q = ops.add_parser("reject", help="delete records (ID …, all, or invalid: those that can never apply)",
                       description="Delete records; hmc keeps a copy of each. `invalid` rejects only the records "
                       "that can never apply: a broken, malformed or oversized record, a pinned entry that changed, "
                       "no or several matching entries, empty text, text Hermes's own scan blocks, a "
                       "destructive write staged without a pin (0.22+). It keeps hmc's scanner hits and a "
                       "batch that would empty the file (a person decides), writes over the limit (memory "
                       "may shrink), a disabled target and a drifted file (a repair fixes it). With --subsystem skills it keeps "
                       "scanner hits and the writes Hermes may still apply (a patch only its fuzzy matcher "
                       "finds, \\t/\\r escapes it rewrites, its skills guard).")
    q.add_argument("ids", nargs="+", metavar="ID", help="record ids, `all`, or `invalid`")
    q.add_argument("--json", action="store_true", help="machine-readable output")
    add_reveal(q)
    q = ops.add_parser("approval", help="show or set memory.write_approval (skills.write_approval with --subsystem skills) in "
                       "config.yaml (only that line changes)")
    q.add_argument("state", nargs="?", choices=("on", "off"), help="turn write approval on or off")
    q.add_argument("--json", action="store_true", help="machine-readable output")
    for name, q in ops.choices.items():
        q.add_argument("--subsystem", choices=SUBSYSTEMS if name == "list" else SUBSYSTEMS[:2], default="memory",
                       help="which queue: memory (pending/memory/, the default) or skills (pending/skills/)"
                       + (", or all (each record says its subsystem)" if name == "list" else ""))
        q.set_defaults(run=run)


SUBSYSTEMS = ("memory", "skills", "all")


def run(args, ctx: CliContext) -> int:
    curator = ctx.curator()
    subsystem = getattr(args, "subsystem", "memory")
    if args.op == "approval" and args.json:
        return approval_json(args, ctx, curator)
    if subsystem == "skills":
        return run_skills(args, ctx, curator)
    if subsystem == "all":
        return list_all(args, ctx, curator)
    queue = curator.pending
    try:
        return {"list": cmd_list, "show": cmd_show, "approve": cmd_approve, "reject": cmd_reject,
                "approval": cmd_approval}[args.op](args, ctx, curator, queue)
    except ApproveRefused as exc:
        raise CliError(f"kept {exc.id}: {exc}", 1) from None
    except PendingError as exc:
        raise CliError(str(exc), 2) from None
    except OSError as exc:  # the folder or a record the OS refused (a mode-000 pending/memory)
        raise CliError(os_error_text(exc, "read"), 2) from None


def run_skills(args, ctx: CliContext, curator) -> int:
    from core.pending.skills import SkillPendingError
    from tui.cli import pending_skills

    try:
        return pending_skills.COMMANDS[args.op](args, ctx, curator)
    except SkillPendingError as exc:
        raise CliError(str(exc), 2) from None
    except OSError as exc:
        raise CliError(os_error_text(exc, "read"), 2) from None


def list_all(args, ctx: CliContext, curator) -> int:
    """`list --subsystem all`: both queues; JSON records carry a `subsystem` field."""
    from tui.cli import pending_skills

    if not args.json:
        code = run(_with(args, subsystem="memory"), ctx)
        ctx.text("")
        return max(code, run_skills(args, ctx, curator))
    queue = curator.pending
    try:
        records = queue.list()
        inspections = queue.inspect_all(records)
        dups = duplicates_of(queue, inspections)
        rows = [record_json(queue, i, dups, args.reveal) for i in inspections]
        skills = curator.pending_skills
        pending_skills.cmd_list(args, ctx, curator, json_rows=rows)
    except OSError as exc:
        raise CliError(os_error_text(exc, "read"), 2) from None
    ctx.json(list_document("all", [
        queue_json("memory", queue.folder, read_write_approval(curator.home.config_path), len(inspections)),
        queue_json("skills", skills.folder, skills.write_approval(), len(rows) - len(inspections))], rows))
    return 0


def _with(args, **changes):
    import argparse

    return argparse.Namespace(**{**vars(args), **changes})


# -- JSON shapes -----------------------------------------------------------------------------------


def record_json(queue, ins: Inspection, duplicates: dict[str, str], reveal: bool = False) -> dict[str, Any]:
    r = ins.record
    return {
        "subsystem": "memory", "id": r.id, "file": r.file, "created_at": r.created_at, "age": queue.age(r), "origin": r.origin,
        "auto": r.auto, "target": r.target, "action": r.action, "summary": masked(r.title, ins, reveal),
        "can_apply": ins.can_apply, "reason": masked(ins.reason or "", ins, reveal) or None,
        "reason_plain": masked(plain_reason(ins), ins, reveal) or None,
        "reason_kind": ins.reason_kind, "scanner_hit": ins.scanner_hit, "never_applies": ins.never_applies,
        "forcible": ins.forcible, "already_in_memory": ins.already_in_memory, "pinned": not r.unpinned,
        "group": ins.group, "duplicate_of": duplicates.get(r.id), "broken": r.broken,
        "warnings": [masked(w, ins, reveal) for w in ins.warnings],
    }


def finding_json(f, text: str, reveal: bool) -> dict[str, Any]:
    shown = text[f.start:f.end]
    if getattr(f, "secret", False) and not reveal:
        shown = mask(shown)
    return {"kind": "scanner", "rule": f.rule, "severity": f.severity, "detail": f.detail,
            "hermes_blocks": bool(getattr(f, "hermes_blocks", False)), "secret": bool(getattr(f, "secret", False)),
            "match": shown}


def duplicates_of(queue, inspections) -> dict[str, str]:
    """id → the id of the first record staging the same change."""
    out = {}
    for ids in queue.groups(inspections).values():
        for rid in ids[1:]:
            out[rid] = ids[0]
    return out


# -- masking ---------------------------------------------------------------------------------------


def mask(secret: str) -> str:
    from core.scan import scanner

    return scanner.mask(secret)


MAX_SOURCE_STRINGS = 2_000  # strings of one record learnt from (a huge batch is still scanned line by line)
_MASKERS: dict[tuple[int, bool], tuple[Inspection, Masker]] = {}


def masker(ins: Inspection, reveal: bool) -> Masker:
    """The one Masker for a record: it knows every secret of the record's texts (new and old)."""
    key = (id(ins), reveal)
    hit = _MASKERS.get(key)
    if hit is None or hit[0] is not ins:
        m = Masker(reveal)
        if not reveal:
            r = ins.record
            texts = [r.raw, r.summary]
            texts += [t for op in r.ops for t in (op.content, op.old_text, getattr(op, "matched_entry", None))]
            texts += [t for c in ins.changes if c.kind != "kept" for t in (c.before, c.after)]
            texts += [t for t in ins.matched] + [sc.text for sc in ins.scanned]
            texts += payload_strings(r.payload)
            m.learn([t for t in texts[:MAX_SOURCE_STRINGS] if isinstance(t, str)])
        hit = _MASKERS[key] = (ins, m)
    return hit[1]


def payload_strings(payload: Any) -> list[str]:
    """The strings of a record's payload, without recursion (a payload may be nested very deeply)."""
    out: list[str] = []
    stack = [payload]
    while stack and len(out) < MAX_SOURCE_STRINGS:
        node = stack.pop()
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out


def masked(text: str, ins: Inspection, reveal: bool) -> str:
    """`text` with every secret masked (`sk-…9f2a`): the ones in `text` and in the record's texts."""
    return masker(ins, reveal)(text)


def masked_obj(obj: Any, ins: Inspection, reveal: bool) -> Any:
    return masker(ins, reveal).obj(obj)


# -- list ------------------------------------------------------------------------------------------


def status_text(ins: Inspection) -> Text:
    from rich.text import Text

    if ins.already_in_memory:
        return Text("✓ already in memory", style="cyan")
    if ins.unpinned_ok:
        return Text("✓ can apply (unpinned)", style="yellow")
    if ins.can_apply:
        return Text("✓ can apply", style="green")
    label = reason_label(ins.reason_kind)
    if ins.scanner_hit and not ins.forcible and ins.reason_kind != HERMES_SCAN:  # (the scan is the reason)
        label += " · scanner hit"
    if ins.never_applies:
        label += " · never applies"
    return Text(label, style="yellow" if ins.forcible else "red")


def cmd_list(args, ctx: CliContext, curator, queue) -> int:
    records = queue.list()
    inspections = queue.inspect_all(records)
    dups = duplicates_of(queue, inspections)
    approval = read_write_approval(curator.home.config_path)
    if args.json:
        ctx.json(list_document("memory", [queue_json("memory", queue.folder, approval, len(records))],
                               [record_json(queue, i, dups, args.reveal) for i in inspections]))
        return 0
    from rich.text import Text

    head = f"{len(records)} staged write{'s' if len(records) != 1 else ''} in {curator.home.display()}/pending/memory"
    head += f" · write approval {'on' if approval else 'off'}"
    if records:
        head += f" · oldest {queue.age(records[0])}"
    ctx.text(head, style="bold")
    if not records:
        ctx.text("Nothing waits for approval.", style="dim")
        return 0
    for ins in inspections:
        r = ins.record
        line = Text()
        line.append_text(literal(r.id if r.valid_id else r.file, "bold"))
        line.append_text(literal(f"  {queue.age(r):<14} {r.target or '?':<7}{r.action or '?':<8}"))
        if r.auto:
            line.append("[auto] ", style="magenta")
        line.append_text(status_text(ins))
        if r.id in dups:
            line.append(f"  same change as {dups[r.id]}", style="dim")
        ctx.print(line)
        if not r.broken:
            ctx.print(Text("    ") + literal(masked(r.title, ins, args.reveal)))
        if ins.reason and not ins.can_apply:
            ctx.print(Text("    ") + literal(masked(plain_reason(ins), ins, args.reveal), "dim"))
    bad = sum(1 for i in inspections if not i.can_apply)
    never = sum(1 for i in inspections if i.never_applies)
    if bad:
        ctx.text(f"{bad} can't apply as staged: `hmc pending show ID` says why"
                 + (f"; `hmc pending reject invalid` clears the {never} that can never apply." if never else "."),
                 style="dim")
    return 0


# -- show ------------------------------------------------------------------------------------------


def cmd_show(args, ctx: CliContext, curator, queue) -> int:
    record = queue.get(args.id)
    ins = queue.inspect(record)
    dups = duplicates_of(queue, queue.inspect_all())
    if args.json:
        data = record_json(queue, ins, dups, args.reveal)
        data.update({
            "file_name": ins.file, "limit": ins.limit, "chars_before": ins.used_before, "chars_after": ins.used_after,
            "label_before": ins.label_before, "label_after": ins.label_after,
            "changes": [{"kind": c.kind, "before": masked(c.before, ins, args.reveal) if c.before else c.before,
                         "after": masked(c.after, ins, args.reveal) if c.after else c.after}
                        for c in ins.changes if c.kind != "kept"],
            "findings": [masked_obj(finding_json(f, s.text, args.reveal), ins, args.reveal)
                         for s in ins.scanned for f in s.findings],
            "payload": masked_obj(record.payload, ins, args.reveal),
            "unified_diff": [masked(x, ins, args.reveal) for x in ins.unified_diff()] if args.unified else None,
        })
        ctx.json(data)
        return broken_exit(record)
    show(ctx, queue, ins, dups, args.reveal)
    if args.unified:
        ctx.text("")
        for line in ins.unified_diff():
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim" if line.startswith("@") else ""
            ctx.text(masked(line, ins, args.reveal), style=style)
    if args.raw:
        ctx.text("")
        ctx.text(f"{record.file}:", style="bold")
        ctx.text(masked(record.raw, ins, args.reveal))
    return broken_exit(record)


def broken_exit(record) -> int:
    """A broken record file is unreadable input: the reason on stderr, exit 2."""
    if record.broken:
        raise CliError(f"{record.file} can't be read as a pending record: {record.broken}; "
                       f"`hmc pending reject {record.id if record.valid_id else record.file}` removes it", 2)
    return 0


def show(ctx: CliContext, queue, ins: Inspection, dups: dict[str, str], reveal: bool) -> None:
    from rich.text import Text

    r = ins.record
    when = "staged" if r.dated else "file modified"
    if r.broken:
        title = Text("pending ", style="bold") + literal(r.file, "bold")
        title.append(f" · broken record file · {when} {queue.age(r)}")
    else:
        title = Text(f"pending {r.id}", style="bold")
        title.append_text(literal(f" · {r.action or '?'} in {ins.file or '?'} · {when} {queue.age(r)}"))
    if r.created_at:
        title.append(f" ({timefmt.local_time(r.created_at)})", style="dim")
    if r.auto:
        title.append(" [auto] background review", style="magenta")
    ctx.print(title)
    if r.broken:
        return  # the reason goes to stderr once (broken_exit)
    ctx.text("summary: ", literal(masked(r.title, ins, reveal)))
    if r.id in dups:
        ctx.text(f"same change as {dups[r.id]}: approving both writes it once", style="dim")
    if ins.already_in_memory:
        ctx.text("✓ already in memory: approving writes nothing and clears the record", style="cyan")
    elif ins.unpinned_ok:
        ctx.text("✓ can apply, unpinned: the entry is found by its text (no pin), as older Hermes did; "
                 "check the diff below", style="yellow")
    elif ins.can_apply:
        ctx.text("✓ can apply", style="green")
    else:
        line = Text("✗ can't apply: " if not ins.forcible else "⚠ needs confirmation: ",
                    style="bold red" if not ins.forcible else "bold yellow")
        line.append_text(literal(masked(plain_reason(ins), ins, reveal)))
        if ins.scanner_hit and not ins.forcible and ins.reason_kind != HERMES_SCAN:
            line.append(" (the security scan also flags the new text)")
        if not ins.forcible:
            line.append(" · can never apply (`reject invalid` clears it)" if ins.never_applies
                        else " · may apply later (`reject invalid` keeps it)", style="dim")
        ctx.print(line)
    for warning in ins.warnings:
        w = Text("⚠ ", style="yellow")
        w.append_text(literal(masked(warning, ins, reveal)))
        ctx.print(w)
    if ins.file:
        ctx.text(f"{ins.file}: {ins.label_before} → {ins.label_after}")
    changes = [c for c in ins.changes if c.kind != "kept"]
    kept = len(ins.changes) - len(changes)
    if changes:
        ctx.text("")
    for c in changes:
        if c.kind == "patched":  # one span: the changed words stand out, the rest is kept
            ctx.text("~ one span patched, the rest of the entry kept:")
            parts = inline_diff(masked(c.before or "", ins, reveal), masked(c.after or "", ins, reveal))
            for mark, drop, style in (("- ", "+", "red"), ("+ ", "-", "green")):
                block = Text(mark, style=f"bold {style}")
                for tag, piece in parts:
                    if tag != drop:
                        block.append_text(literal(piece, style=f"bold underline {style}" if tag != "=" else style))
                ctx.print(block)
            continue
        if c.kind in ("removed", "replaced"):
            head = "- " if c.kind == "removed" else "- (whole entry replaced) "
            block = Text(head, style="bold red")
            block.append_text(literal(masked(c.before or "", ins, reveal)))
            block.stylize("red")
            ctx.print(block)
        if c.kind in ("added", "replaced"):
            block = Text("+ ", style="bold green")
            block.append_text(literal(masked(c.after or "", ins, reveal)))
            block.stylize("green")
            ctx.print(block)
    if kept and ins.file:
        ctx.text(f"  ({kept} other entr{'y' if kept == 1 else 'ies'} unchanged)", style="dim")
    for s in ins.scanned:
        for f in s.findings:
            detail = str(f.detail)
            line = Text(f"scanner {f.severity.upper()} " + ("" if detail.startswith(f.rule) else f"{f.rule}: "),
                        style="bold yellow")
            line.append_text(literal(masked(finding_detail(f, s.text, reveal), ins, reveal)))
            ctx.print(line)


# -- approve / reject ------------------------------------------------------------------------------


def cmd_approve(args, ctx: CliContext, curator, queue) -> int:
    from rich.text import Text

    every = [i for i in args.ids if i.lower() == "all"]
    if every and len(args.ids) > 1:
        raise CliError("give either `all` or record ids, not both", 2)
    if (args.text is not None or args.target) and (every or len(args.ids) != 1):
        raise CliError("--text and --target edit one record: give exactly one id", 2)
    if args.force and every:
        raise CliError("--force approves a scanner hit one record at a time; give its id", 2)
    if queue is curator.pending:  # memory records: applied under rules the doctor may have shown to differ
        from tui.cli.common import refuse_if_rules_differ

        refuse_if_rules_differ(curator, "approve", args.force,
                               "approve by id with --force to apply it anyway" if every else "pass --force to apply it anyway")
    if every:
        report = queue.approve_all()
        done, failed = list(report.done), [(f.id, f.kind, cli_reason(f.reason, f.kind)) for f in report.failed]
        plain = {f.id: cli_reason(plain_failure(curator, queue, f.id, f.reason), f.kind) for f in report.failed}
    else:
        done, failed, plain = [], [], {}
        for rid in args.ids:
            try:
                done.append(queue.approve(rid, edited=args.text, target=args.target, force=args.force))
            except ApproveRefused as exc:
                failed.append((exc.id, exc.kind, cli_reason(str(exc), exc.kind, by_id=True)))
                plain[exc.id] = cli_reason(plain_failure(curator, queue, exc.id, str(exc)), exc.kind, by_id=True)
            except PendingError as exc:
                if len(args.ids) == 1:
                    raise
                failed.append((rid, "unknown", str(exc)))
    # result messages quote entries ("Entry replaced (was '…')"): mask what they and the records held
    mask = Masker(args.reveal, [(a.result.before, a.result.after) for a in done] + [args.text])
    failed = [(i, k, mask(m)) for i, k, m in failed]
    if args.json:
        ctx.json({
            "approved": [{"id": a.id, "target": a.target, "changed": a.changed, "edited": a.edited,
                          "label": a.result.label, "messages": [mask(m) for m in a.result.messages],
                          "warnings": [mask(w) for w in a.warnings]}
                         for a in done],
            "failed": [{"id": i, "reason_kind": k, "reason": m, "reason_plain": mask(plain.get(i, m))}
                       for i, k, m in failed],
        })
    else:
        for a in done:
            line = Text(f"approved {a.id}", style="bold green")
            line.append(f" → {curator.stores[a.target].name}: ")
            line.append_text(literal(mask(" ".join(a.result.messages))))
            line.append(f"  ({a.result.label})", style="dim")
            ctx.print(line)
            for w in a.warnings:
                ctx.text("  ⚠ ", literal(mask(w)), style="yellow")
        for rid, _kind, message in failed:
            line = Text("kept ", style="bold red") + literal(rid, "bold red")  # a file name, in `approve all`
            line.append(": ")
            line.append_text(literal(mask(plain.get(rid, message))))
            ctx.print(line)
        if every and not done and not failed:
            ctx.text("Nothing waits for approval.", style="dim")
    return batch_exit([k for _, k, _ in failed], bool(done))


def plain_reason(ins: Inspection) -> str:
    """Why a record can't apply, said for a person (the release's words stay in `reason`)."""
    from core.hermes.wording import for_person

    if not ins.reason:
        return ""
    return for_person(ins.reason, ins.file or "the file", len(ins.before) if ins.file else None,
                      see="hmc memory list")


def plain_failure(curator, queue, rid: str, message: str) -> str:
    """An approval's refusal for a person, about the record's store when it can be told."""
    try:
        target = queue.get(rid).target
    except Exception:  # a broken or vanished record: no store to name
        target = None
    return plainly(message, curator.stores.get(target) if target else None)


def cli_reason(message: str, kind: str, by_id: bool = False) -> str:
    if kind == "empties-store":
        return message.replace("(confirm, or use --force)", "(approve it by id with --force)" if not by_id
                               else "(pass --force)")
    if kind != "scanner":
        return message
    how = "pass --force to write it anyway" if by_id else "approve it by id with --force to write it anyway"
    how = how[0].upper() + how[1:] + "."
    if "Confirm to write it anyway." in message:
        return message.replace("Confirm to write it anyway.", how)
    return f"{message.rstrip().rstrip('.')}. {how}"


def cmd_reject(args, ctx: CliContext, curator, queue) -> int:
    words = [i.lower() for i in args.ids]
    if ("all" in words or "invalid" in words) and len(args.ids) > 1:
        raise CliError("give `all`, `invalid` or record ids, not a mix", 2)
    if words == ["all"]:
        report = queue.reject_all()
        done, failed = list(report.done), [(f.id, f.kind, f.reason) for f in report.failed]
    elif words == ["invalid"]:
        report = queue.reject_invalid()
        done, failed = list(report.done), [(f.id, f.kind, f.reason) for f in report.failed]
    else:
        done, failed = [], []
        for rid in args.ids:
            try:
                done.append(queue.reject(rid).id)
            except PendingError as exc:
                if len(args.ids) == 1:
                    raise
                failed.append((rid, getattr(exc, "kind", "unknown"), str(exc)))
    mask = Masker(args.reveal)
    kinds = [k for _, k, _ in failed]
    failed = [(i, mask(m)) for i, _, m in failed]
    if args.json:
        ctx.json({"rejected": done, "failed": [{"id": i, "reason": m} for i, m in failed]})
    else:
        for rid in done:
            ctx.text("rejected ", literal(rid), style="bold")
        for rid, message in failed:
            ctx.text("kept ", literal(rid), ": ", literal(message), style="red")
        if not done and not failed:
            ctx.text("Nothing to reject.", style="dim")
        elif done:
            ctx.text("(hmc keeps a copy of each rejected record; `u` in pending mode brings the last one back)",
                     style="dim")
    return batch_exit(kinds, bool(done))


def approval_json(args, ctx: CliContext, curator) -> int:
    """`pending approval [on|off] --json` for either queue: the state, and what a change did."""
    from core.pending.config_edit import ConfigEditError, set_write_approval

    path = curator.home.config_path
    out: dict[str, Any] = {"subsystem": args.subsystem, "config": str(path)}
    if args.state is None:
        on = read_write_approval(path) if args.subsystem == "memory" else curator.pending_skills.write_approval()
        ctx.json({**out, "write_approval": on, "changed": False})
        return 0
    try:
        edit = set_write_approval(path, args.state == "on", args.subsystem)
    except ConfigEditError as exc:
        raise CliError(str(exc), 2) from None
    ctx.json({**out, "write_approval": edit.after, "changed": edit.changed, "created": edit.created,
              "line": edit.line})
    return 0


def cmd_approval(args, ctx: CliContext, curator, queue) -> int:
    path = curator.home.config_path
    if args.state is None:
        on = read_write_approval(path)
        ctx.text(f"write approval is {'on' if on else 'off'} ({curator.home.display()}/config.yaml)")
        if not on:
            ctx.text("Hermes applies memory writes at once, including those from its background review.", style="dim")
        return 0
    return set_approval(ctx, path, args.state, "memory")


__all__ = ["register", "run", "record_json"]
