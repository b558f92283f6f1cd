"""Memory history: every write to MEMORY.md / USER.md rebuilt from state.db, hmc's journal and
Hermes's snapshots (see core/timeline/history.py). No Textual here."""

from core.timeline.history import (Blame, Diff, Divergence, RollbackConflict, Timeline, TimelineError, Write,
                                   build_timeline, rebuild)

__all__ = ["Blame", "Diff", "Divergence", "RollbackConflict", "Timeline", "TimelineError", "Write",
           "build_timeline", "rebuild"]
