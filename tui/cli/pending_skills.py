"""`hmc pending … --subsystem skills`: the skill write-approval queue (pending/skills/) from a shell.

Every string here comes from a record or a skill file: it is printed literally (never markup) and
masked (`sk-…9f2a`) unless --reveal.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from core.pending.skill_plan import BATCH
from core.pending.skill_records import op_label
from core.pending.skills import SkillApproveRefused, SkillInspection, SkillPendingError, SkillQueue
from core.scan.mask import Masker
from tui.cli.common import CliContext, CliError, batch_exit, list_document, literal, queue_json, set_approval


def queue_for(curator) -> SkillQueue:
    return curator.pending_skills


def _masker(ins: SkillInspection | None, reveal: bool, *extra: Any) -> Masker:
    sources: list[Any] = list(extra)
    if ins is not None:
        r = ins.record
        sources += [r.summary, r.payload]
        sources += [t for c in ins.changes for t in (c.before, c.after)]
    return Masker(reveal, sources)


def _files(changes, mask: Masker) -> list[dict[str, Any]]:
    return [{"path": mask(c.path), "change": c.kind, "size_before": c.size_before, "size_after": c.size_after}
            for c in changes]


def record_json(ins: SkillInspection, mask: Masker, *, detail: bool = False) -> dict[str, Any]:
    r = ins.record
    out: dict[str, Any] = {
        "subsystem": "skills", "id": mask(r.id), "file": mask(r.file), "created_at": r.created_at or None,
        "origin": r.origin, "auto": r.auto, "action": mask(r.action) or None, "name": mask(r.name) or None,
        "summary": mask(r.summary), "can_apply": ins.can_apply, "reason_kind": ins.kind,
        "reason": mask(ins.reason) if ins.reason else None, "forcible": ins.forcible,
        "never_applies": ins.never_applies, "broken": mask(r.broken),
        "skill_dir": mask(ins.skill_dir) or None,
        "files": _files(ins.changes, mask),
    }
    if r.action == BATCH:
        out["operations"] = [{"index": i, "number": i + 1, "action": mask(a), "name": mask(n), "file_path": mask(fp) or None,
                              "files": _files(changes, mask)} for i, a, n, fp, changes in ins.operations()]
    if not r.broken:
        out["broken"] = None
    if detail:
        fm = lambda f: None if f is None else {"name": mask(f.name), "description": mask(f.description)}  # noqa: E731
        out["frontmatter_before"] = fm(ins.frontmatter_before)
        out["frontmatter_after"] = fm(ins.frontmatter_after)
        out["diffs"] = {mask(c.path): [mask(line) for line in c.unified_diff()] for c in ins.changes}
        if r.action == BATCH:
            for op, (*_head, changes) in zip(out["operations"], ins.operations()):
                op["diffs"] = [[mask(line) for line in c.unified_diff()] for c in changes]
        out["findings"] = [{"rule": f.rule, "severity": f.severity, "detail": mask(f.detail),
                            "secret": f.secret} for f in ins.findings]
        out["payload"] = mask.obj(r.payload)
    return out


def status(ins: SkillInspection) -> Text:
    if ins.can_apply:
        return Text("✓ can apply", style="green")
    return Text(f"{'⚠' if ins.forcible else '✗'} {ins.kind}", style="yellow" if ins.forcible else "red")


def inspections(queue: SkillQueue) -> list[SkillInspection]:
    with queue.reading():
        return [queue.inspect(r) for r in queue.list()]


def cmd_list(args, ctx: CliContext, curator, *, json_rows: list | None = None) -> int:
    queue = queue_for(curator)
    queue.recover_claims()
    with queue.reading():  # skills/ walked once, config.yaml read once, for the whole listing
        return _list(args, ctx, curator, queue, json_rows)


def _list(args, ctx: CliContext, curator, queue: SkillQueue, json_rows: list | None) -> int:
    items = inspections(queue)
    rows = [record_json(i, _masker(i, args.reveal)) for i in items]
    if json_rows is not None:  # --subsystem all gathers both queues
        json_rows.extend(rows)
        return 0
    if args.json:
        ctx.json(list_document("skills", [queue_json("skills", queue.folder, queue.write_approval(), len(items))],
                               rows))
        return 0
    head = f"{len(items)} staged skill write{'s' if len(items) != 1 else ''} in {curator.home.display()}/pending/skills"
    head += f" · write approval {'on' if queue.write_approval() else 'off'}"
    ctx.text(head, style="bold")
    guard = queue.guard_reason()
    if guard:
        ctx.text("hmc won't approve skill writes here: ", guard, style="yellow")
    if not items:
        ctx.text("Nothing waits for approval.", style="dim")
        return 0
    for ins in items:
        r, mask = ins.record, _masker(ins, args.reveal)
        line = literal(mask(r.id), "bold")
        line.append_text(literal(f"  {mask(r.action) or '?':<12}"))
        line.append_text(literal(f"{mask(r.name) or '?':<24} "))
        if r.auto:
            line.append("[auto] ", style="magenta")
        line.append_text(status(ins))
        ctx.print(line)
        if r.summary:
            ctx.print(Text("    ") + literal(mask(r.summary)))
        if ins.reason and not ins.can_apply:
            ctx.print(Text("    ") + literal(mask(ins.reason), "dim"))
    ok, bad = queue.simulate_all()
    ctx.text(f"approve all (in order): {ok} would apply, {bad} would be kept", style="dim")
    return 0


def cmd_show(args, ctx: CliContext, curator) -> int:
    queue = queue_for(curator)
    record = queue.get(args.id)
    ins = queue.inspect(record)
    mask = _masker(ins, args.reveal)
    if args.json:
        ctx.json(record_json(ins, mask, detail=True))
        return 2 if record.broken else 0
    title = Text("pending skill write ", style="bold") + literal(mask(record.id), "bold")
    if record.broken:
        ctx.print(title)
        raise CliError(mask(f"{record.file} can't be read as a pending record: {record.broken}; "
                            f"`hmc pending reject {record.id} --subsystem skills` removes it"), 2)
    title.append_text(literal(f" · {mask(record.action)} {mask(record.name)}"))
    if record.auto:
        title.append(" [auto] background review", style="magenta")
    ctx.print(title)
    if record.summary:
        ctx.text("summary: ", literal(mask(record.summary)))
    if ins.can_apply:
        ctx.text("✓ can apply", style="green")
    else:
        line = Text("⚠ needs confirmation: " if ins.forcible else "✗ can't apply: ",
                    style="bold yellow" if ins.forcible else "bold red")
        line.append_text(literal(mask(ins.reason or "")))
        if not ins.forcible:
            line.append(" · can never apply (`reject invalid` clears it)" if ins.never_applies
                        else " · Hermes may still apply it (`reject invalid` keeps it)", style="dim")
        ctx.print(line)
    if ins.skill_dir:
        ctx.text("skill folder: ", literal(mask(ins.skill_dir)))
    b, a = ins.frontmatter_before, ins.frontmatter_after
    if b is not None or a is not None:
        for label, f in (("before", b), ("after", a)):
            ctx.text(f"SKILL.md {label}: ", literal("(none)" if f is None else
                                                   f"name={mask(f.name)!s} · description={mask(f.description)!s}"))
    if record.action == BATCH:
        ops = ins.operations()
        ctx.text(f"{len(ops)} operation{'s' if len(ops) != 1 else ''}, applied all or none:", style="bold")
        for i, a, n, fp, changes in ops:
            ctx.text("")
            ctx.text(literal(mask(op_label(i, len(ops), a, n, fp))), style="bold")
            _print_changes(ctx, changes, mask)
    else:
        _print_changes(ctx, ins.changes, mask)
    for f in ins.findings:
        line = Text(f"scanner {f.severity.upper()} {f.rule}: ", style="bold yellow")
        line.append_text(literal(mask(f.detail)))
        ctx.print(line)
    return 0


def _print_changes(ctx: CliContext, changes, mask: Masker) -> None:
    for c in changes:
        sizes = f"{c.size_before if c.size_before is not None else '-'} → {c.size_after if c.size_after is not None else '-'} bytes"
        ctx.text(f"{c.kind:<7} ", literal(mask(c.path)), f"  ({sizes})", style="bold")
    for c in changes:
        ctx.text("")
        for line in c.unified_diff():
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else \
                "dim" if line.startswith("@") else ""
            ctx.text(literal(mask(line.rstrip("\n"))), style=style)


def _ids(args) -> tuple[bool, list[str]]:
    every = [i for i in args.ids if i.lower() == "all"]
    if every and len(args.ids) > 1:
        raise CliError("give either `all` or record ids, not both", 2)
    return bool(every), list(args.ids)


def cmd_approve(args, ctx: CliContext, curator) -> int:
    if args.target:
        raise CliError("--target is for memory records", 2)
    every, ids = _ids(args)
    if args.text is not None and (every or len(ids) != 1):
        raise CliError("--text edits one record: give exactly one id", 2)
    if args.force and every:
        raise CliError("--force approves a scanner hit one record at a time; give its id", 2)
    queue = queue_for(curator)
    queue.recover_claims()
    done: list[tuple[str, SkillInspection | None]] = []
    failed: list[tuple[str, str, str]] = []
    if every:
        ok, bad = queue.approve_all()
        done = [(rid, None) for rid in ok]
        failed = bad
    else:
        for rid in ids:
            try:
                done.append((rid, queue.approve(rid, force=args.force, content=args.text)))
            except SkillApproveRefused as exc:
                how = " Pass --force to write it anyway." if exc.kind == "scanner" else ""
                failed.append((rid, exc.kind, str(exc) + how))
            except SkillPendingError as exc:
                if len(ids) == 1:
                    raise CliError(str(exc), 2) from None
                failed.append((rid, "unknown", str(exc)))
    mask = Masker(args.reveal, [args.text])
    failed = [(mask(i), k, mask(m)) for i, k, m in failed]
    if args.json:
        ctx.json({"subsystem": "skills", "approved": [mask(rid) for rid, _ in done],
                  "failed": [{"id": i, "reason_kind": k, "reason": m} for i, k, m in failed],
                  "not_undoable": [{"id": mask(rid), "reason": ins.undo_note} for rid, ins in done
                                   if ins is not None and ins.journal_id is not None and ins.undo_note]})
    else:
        for rid, ins in done:
            line = Text("approved ", style="bold green") + literal(mask(rid), "bold green")
            if ins is not None:
                line.append(": ")
                line.append_text(literal(mask(", ".join(f"{c.kind} {c.path}" for c in ins.changes))))
            ctx.print(line)
            if ins is not None and ins.journal_id is not None and ins.undo_note:
                ctx.text(f"  can't be undone: {ins.undo_note}", style="yellow")
        for rid, _kind, message in failed:
            line = Text("kept ", style="bold red") + literal(rid, "bold red")
            line.append(": ")
            line.append_text(literal(message))
            ctx.print(line)
        if every and not done and not failed:
            ctx.text("Nothing waits for approval.", style="dim")
    return batch_exit([k for _, k, _ in failed], bool(done))


def cmd_reject(args, ctx: CliContext, curator) -> int:
    words = [i.lower() for i in args.ids]
    if ("all" in words or "invalid" in words) and len(args.ids) > 1:
        raise CliError("give `all`, `invalid` or record ids, not a mix", 2)
    queue = queue_for(curator)
    if words in (["all"], ["invalid"]):
        targets = [i.id for i in inspections(queue)
                   if words == ["all"] or i.never_applies]
    else:
        targets = list(args.ids)
    done, failed = [], []
    for rid in targets:
        try:
            done.append(queue.reject(rid).id)
        except SkillPendingError as exc:
            if len(targets) == 1 and words not in (["all"], ["invalid"]):
                raise CliError(str(exc), 2) from None
            failed.append((rid, getattr(exc, "kind", "error"), str(exc)))
    mask = Masker(args.reveal)
    kinds = [k for _, k, _ in failed]
    done, failed = [mask(rid) for rid in done], [(mask(rid), mask(m)) for rid, _, m in failed]
    if args.json:
        ctx.json({"subsystem": "skills", "rejected": done, "failed": [{"id": i, "reason": m} for i, m in failed]})
    else:
        for rid in done:
            ctx.text("rejected ", literal(rid), style="bold")
        for rid, message in failed:
            ctx.text("kept ", literal(rid), ": ", literal(message), style="red")
        if not done and not failed:
            ctx.text("Nothing to reject.", style="dim")
    return batch_exit(kinds, bool(done))


def cmd_approval(args, ctx: CliContext, curator) -> int:
    path = curator.home.config_path
    queue = queue_for(curator)
    if args.state is None:
        on = queue.write_approval()
        ctx.text(f"skill write approval is {'on' if on else 'off'} ({curator.home.display()}/config.yaml)")
        return 0
    return set_approval(ctx, path, args.state, "skills")


COMMANDS = {"list": cmd_list, "show": cmd_show, "approve": cmd_approve, "reject": cmd_reject,
            "approval": cmd_approval}
