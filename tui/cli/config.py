"""`hmc config [--json]` and `hmc config set KEY VALUE`: hmc's own settings (core.settings), not
Hermes's config.yaml. Listing never fails on a bad file (its problems are listed); a refused `set`
exits 2 with one line and writes nothing."""

from __future__ import annotations

from core.settings import SettingsError, describe, set_setting
from tui.cli.common import CliContext, CliError


def register(sub) -> None:
    p = sub.add_parser("config", help="hmc's own settings: where they live, each value and its source; set one",
                       description="hmc's own settings (config.toml in hmc's user config folder; not Hermes's "
                       "config.yaml): the file's path, every setting with the value hmc uses and whether it "
                       "comes from the file or is the default, and the file's problems.")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    ops = p.add_subparsers(dest="op", metavar="OP")
    q = ops.add_parser("set", help="set one setting, validated as loading validates it",
                       description="Set KEY to VALUE in config.toml, checked exactly as hmc checks the file when "
                       "it loads it; written atomically, every other line and comment kept. Keys: theme, "
                       "poll_interval, review.stale_days, review.old_days, keys.<binding id>.")
    q.add_argument("key", metavar="KEY")
    q.add_argument("value", metavar="VALUE")
    q.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run)
    q.set_defaults(run=run)


def _shown(value) -> str:
    if value is None:
        return "(Textual's default)"
    return f'"{value}"' if isinstance(value, str) else f"{value:g}" if isinstance(value, float) else str(value)


def run(args, ctx: CliContext) -> int:
    if args.op == "set":
        try:
            row = set_setting(args.key, args.value)
        except SettingsError as exc:
            raise CliError(str(exc), 2) from None
        view = describe()
        if args.json:
            ctx.json({"path": str(view.path), "set": {"key": row.key, "value": row.value, "source": row.source},
                      "problems": list(view.problems)})
        else:
            ctx.text(f"set {row.key} = {_shown(row.value)} in {view.path}")
            for problem in view.problems:
                ctx.text(f"note: {problem}", style="yellow")
        return 0
    view = describe()
    if args.json:
        ctx.json(view.as_json())
        return 0
    ctx.text(f"{view.path}" + ("" if view.exists else " (not created yet: every value is the default)"), style="bold")
    width = max(len(r.key) for r in view.rows)
    for row in view.rows:
        default = ("" if row.source == "default" else " (default: the built-in key)" if row.key.startswith("keys.")
                   else f" (default {_shown(row.default)})")
        ctx.text(f"{row.key:<{width}}  {_shown(row.value):<22} {row.source}{default}")
        ctx.text(f"{'':<{width}}  {row.about}", style="dim")
    for problem in view.problems:
        ctx.text(f"problem: {problem}", style="yellow")
    ctx.text("`hmc config set KEY VALUE` changes one (checked as hmc checks the file).", style="dim")
    return 0
