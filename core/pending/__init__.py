"""The write-approval queues of both subsystems. Memory: queue.py (the queue), records.py (what a
staged memory write is), inspection.py (what approving one would do), results.py (what approving
returns), approve_all.py (approve-all as one group commit per file). Skills: skills.py (the
queue), skill_records.py (what a staged skill write is), skill_undo.py (undoing an approval).
Both claim records through claims.py; config_edit.py changes a write_approval line.

May import: the standard library, pyyaml, core.hermes, core.timefmt, core.scan, core.store and
core.home (and core.sessions, below it in the order).
"""
