"""`hmc config [--json]` and `hmc config set KEY VALUE`: hmc's own settings (core.settings), not
Hermes's config.yaml. Listing never fails on a bad file (its problems are listed); a refused `set`
exits 2 with one line and writes nothing."""

from __future__ import annotations

from core.settings import KEY_PREFIX, SettingsError, describe, set_setting, shown_value, view_lines
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


def app_check(key: str, value: str) -> str | None:
    """What the app checks when it loads the file and core can't: the theme's name, a binding id."""
    if key == "theme" and value.strip():
        from textual.theme import BUILTIN_THEMES

        if value.strip() not in BUILTIN_THEMES:
            return f"there is no theme named {value.strip()!r} (themes: {', '.join(sorted(BUILTIN_THEMES))})"
    if key.startswith(KEY_PREFIX):
        from tui.app import CuratorApp
        from tui.palette import binding_ids

        binding = key[len(KEY_PREFIX):]
        if binding not in binding_ids(CuratorApp):
            return f"{binding!r} is not a binding id (`?` in hmc lists them; e.g. pending.approve_all)"
    return None


def app_problems(view) -> list[str]:
    """The problems the app would add when loading the file (an unknown theme or binding id)."""
    out = []
    for row in view.rows:
        if row.source == "file" and (row.key == "theme" or row.key.startswith(KEY_PREFIX)):
            problem = app_check(row.key, str(row.value))
            if problem:
                out.append(f"config.toml: {problem}")
    return out


def run(args, ctx: CliContext) -> int:
    if args.op == "set":
        try:
            row = set_setting(args.key, args.value, check=app_check)
        except SettingsError as exc:
            raise CliError(str(exc), 2) from None
        view = describe()
        if args.json:
            ctx.json({"path": str(view.path), "set": {"key": row.key, "value": row.value, "source": row.source},
                      "problems": list(view.problems)})
        else:
            ctx.text(f"set {row.key} = {shown_value(row.value)} in {view.path}")
            for problem in view.problems:
                ctx.text(f"note: {problem}", style="yellow")
        return 0
    view = describe()
    problems = list(view.problems) + app_problems(view)
    if args.json:
        ctx.json({**view.as_json(), "problems": problems})
        return 0
    styles = {"path": "bold", "about": "dim", "problem": "yellow", "hint": "dim"}
    for text, kind in view_lines(view, problems):
        ctx.text(text, style=styles.get(kind, ""))
    return 0
