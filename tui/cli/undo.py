"""`hmc undo [--subsystem memory|skills] [--json]`: undo hmc's last write of one subsystem.

memory (the default): hmc's last write to MEMORY.md or USER.md, as `u` in memory mode does — only
if the file still holds what hmc wrote. skills: hmc's last skill approval — the files it replaced
or deleted come back, the ones it created go — only if every file still holds what it wrote.
Exit 0 undone, 1 refused (nothing to undo, or a file changed since), 2 bad usage or unreadable.
"""

from __future__ import annotations

from typing import Any

from core.scan.mask import Masker
from tui.cli.common import CliContext, CliError, literal

SUBSYSTEMS = ("memory", "skills")


def register(sub) -> None:
    p = sub.add_parser("undo", help="undo hmc's last write (memory, or a skill approval)",
                       description="Undo hmc's last write of one subsystem: a memory write (default) or a skill "
                       "approval. Refused, and nothing written, if a file changed since hmc wrote it.")
    p.add_argument("--subsystem", choices=SUBSYSTEMS, default="memory",
                   help="memory (MEMORY.md/USER.md, default) or skills (the last skill approval)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--reveal", action="store_true", help="show secrets in paths and names unmasked")
    p.set_defaults(run=run)


def run(args, ctx: CliContext) -> int:
    curator = ctx.curator()
    undo = undo_skills if args.subsystem == "skills" else undo_memory
    try:
        done = undo(curator)
    except _Refused as exc:
        message = Masker(args.reveal)(str(exc))
        if args.json:
            ctx.json({"subsystem": args.subsystem, "undone": None, "refused": {"kind": exc.kind, "reason": message}})
            return exc.code
        raise CliError(message, exc.code) from None
    done = Masker(args.reveal).obj(done)  # a file or skill named like a key is masked too
    if args.json:
        ctx.json({"subsystem": args.subsystem, "undone": done})
        return 0
    line = literal(f"undid #{done['id']} ", "bold green")
    line.append_text(literal(done["summary"]))
    ctx.print(line)
    for f in done.get("files", []):
        ctx.text(f"  {f['undo']:<8} ", literal(f["path"]))
    return 0


class _Refused(Exception):
    def __init__(self, kind: str, message: str, code: int = 1):
        super().__init__(message)
        self.kind, self.code = kind, code


def undo_memory(curator) -> dict[str, Any]:
    from core.store.memory import FILE_NAMES, Conflict, StoreError, Unwritable

    history = curator.history
    rec = history.undoable()
    if rec is None and history.problem:
        raise _Refused("failed", f"{history.problem}: nothing can be undone", 2)
    if rec is None:
        raise _Refused("nothing", "hmc has written nothing to memory here to undo")
    from core.profiles.transfer import partner, undo_last

    try:
        undone = undo_last(curator)  # a move between profiles: both sides
    except Conflict as exc:
        raise _Refused("changed", str(exc)) from None
    except StoreError as exc:  # the home can't be written: 2, as every write command says it
        unwritable = isinstance(exc, Unwritable)
        raise _Refused("unwritable" if unwritable else "refused", str(exc), 2 if unwritable else 1) from None
    name = FILE_NAMES.get(rec.target, rec.target)
    pair = partner(rec)
    also = f" (and its other side, in profile {pair[2] if pair[1] == curator.home.profile else pair[1]})" \
        if pair and len(undone) > 1 else ""
    return {"id": rec.id, "action": rec.action, "target": rec.target, "file": rec.path,
            "summary": f"{rec.action} in {name}: the text before it is back{also}",
            "files": [{"undo": "restored", "path": r.path} for r in undone]}


def undo_skills(curator) -> dict[str, Any]:
    from core.pending.skills import SkillUndoRefused

    queue = curator.pending_skills
    try:
        done = queue.undo()
    except SkillUndoRefused as exc:
        raise _Refused(exc.kind, str(exc), 2 if exc.kind == "failed" else 1) from None
    return {"id": done.record_id, "action": done.action, "skill_dir": done.skill_dir, "detail": done.detail,
            "files": [{"path": p, "undo": what} for p, what in done.files], "summary": f"skill approval: {done.detail}"}
