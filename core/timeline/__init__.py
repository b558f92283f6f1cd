"""Memory history: every write to MEMORY.md / USER.md rebuilt from state.db, hmc's journal and
Hermes's snapshots (history.py, making model.py's values: writes, blame, diffs; a store's entries
indexed for the replay in state.py; the writes held as rows in writes.py; the read
calls' cache in cache.py), and the words for people on top of it (view.py: origin lines, an
entry's origin and history, time travel's dates and diff; usage.py: each store's usage per week,
`hmc log --chart`).
No Textual here.

May import: the standard library, platformdirs, and core.hermes, timefmt, scan, store, home,
sessions, pending and curator (the packages before it in core's order)."""

from core.timeline.history import (Blame, Diff, Divergence, RollbackConflict, Timeline, TimelineError, Write,
                                   build_timeline, rebuild)

__all__ = ["Blame", "Diff", "Divergence", "RollbackConflict", "Timeline", "TimelineError", "Write",
           "build_timeline", "rebuild"]
