"""`hmc doctor [--json]`: check hmc against the Hermes installed on this machine (core.doctor).

Exit 0 when every check agrees, 1 when something differs, 2 when Hermes can't be found or run.
A progress line goes to stderr while Hermes answers; the verdict is remembered for `hmc status`,
the TUI and the writes that depend on an area that differs.
"""

from __future__ import annotations

import signal
import sys
from contextlib import contextmanager
from pathlib import Path

from core.hermes.oneline import one_line
from core.scan.mask import mask_untrusted
from tui.cli.common import CliContext, CliError, add_reveal, visible


def register(sub) -> None:
    p = sub.add_parser("doctor", help="check hmc against the Hermes installed here, and say where they differ",
                       description="Check hmc against the Hermes installed here: hmc runs its driver in Hermes's "
                       "own Python, offline, on scratch homes (your files are never touched), and compares what "
                       "Hermes does with what hmc would do. Exit 0 when every check agrees, 1 when something "
                       "differs, 2 when Hermes can't be found or run. The verdict is remembered for `hmc status`, "
                       "the TUI and the writes that depend on an area that differs.")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_reveal(p)
    p.set_defaults(run=run)


def home_root(ctx: CliContext) -> Path | None:
    """The Hermes home whose `hermes-agent` checkout counts (a missing home still has PATH)."""
    try:
        return ctx.curator(require_home=False).home.root
    except CliError:
        from core.home import default_home

        return Path(ctx.home).expanduser() if ctx.home else default_home()


def rules(ctx: CliContext) -> str | None:
    """--hermes-version or $HMC_HERMES_VERSION: check hmc's rules for that release instead."""
    import os

    from core.hermes.release import ENV, VersionError, parse_version

    wanted = ctx.hermes_version or (os.environ.get(ENV) or "").strip() or None
    if wanted:
        try:
            parse_version(wanted)
        except VersionError as exc:
            raise CliError(f"{exc} (from --hermes-version or ${ENV})") from None
    return wanted


def masked(value, reveal: bool):
    """Every string in the verdict with its secrets masked (what Hermes printed may hold one)."""
    if isinstance(value, str):
        return mask_untrusted(value, reveal)
    if isinstance(value, dict):
        return {k: masked(v, reveal) for k, v in value.items()}
    if isinstance(value, list):
        return [masked(v, reveal) for v in value]
    return value


@contextmanager
def stopped_by_signals():
    """SIGTERM or SIGHUP (`timeout -s TERM`, a closed terminal) during a check ends it as ctrl-c
    does: the driver's whole process group is stopped and the scratch folder removed on the way
    out (probe.run's and doctor's `finally`), then hmc exits 130 ("interrupted")."""
    def interrupt(_signum, _frame):
        raise KeyboardInterrupt

    signals = [s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None]
    try:
        before = {s: signal.signal(s, interrupt) for s in signals}
    except ValueError:  # not the main thread: nothing to catch here
        before = {}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


def progress(text: str) -> None:
    sys.stderr.write("hmc doctor: " + visible(mask_untrusted(text)) + "\n")
    sys.stderr.flush()


def run(args, ctx: CliContext) -> int:
    from core.doctor import verdict as remembered
    from core.doctor.cases import AREA_NAMES
    from core.doctor.check import doctor

    with stopped_by_signals():
        verdict = doctor(home_root(ctx), progress=progress, rules=rules(ctx))
    remembered.save(verdict)
    reveal = bool(getattr(args, "reveal", False))
    if args.json:
        ctx.json(masked(verdict.as_dict(), reveal))
        return verdict.exit_code()
    if verdict.status == "error":
        if verdict.version:
            ctx.text(f"Hermes {verdict.version} — {verdict.where}")
        ctx.text(mask_untrusted(verdict.summary(), reveal), style="red")
        return verdict.exit_code()
    ctx.text(f"Hermes {verdict.version} — {verdict.where}", style="bold")
    ctx.text(f"  run by {one_line(verdict.python)} ({verdict.how})"
             + (f"; it reports {verdict.reported}" if verdict.reported else ""))
    ctx.text(f"  hmc applies {verdict.rules}'s rules" + (f" ({verdict.notice})" if verdict.notice else ""))
    for area, tally in verdict.areas.items():
        mark = "n/a" if not tally["run"] else ("ok" if tally["agreed"] == tally["run"] else "DIFFERS")
        line = f"{AREA_NAMES[area]:<32} {tally['agreed']:>3}/{tally['run']:<3} {mark}"
        if tally["skipped"]:
            line += f"  ({tally['skipped']} n/a: this release can't answer)"
        ctx.text(line, style="yellow" if mark == "DIFFERS" else "")
        for d in verdict.differences:
            if d.area == area:
                ctx.text(f"  ✗ {d.case} — Hermes: {mask_untrusted(d.hermes, reveal)}; "
                         f"hmc would: {mask_untrusted(d.hmc, reveal)}")
    ctx.text(f"{verdict.summary()} ({verdict.seconds:g} s)", style="bold" if verdict.status == "agree" else "yellow")
    return verdict.exit_code()
