"""The memory files and hmc's own writes: MemoryStore (format, lock, re-read, checks, atomic write,
change token), group.py (many writes under one hold of the lock, written and journaled once), atomic.py (all-or-nothing writes, reads that never block, private folders) and the
journal of every write hmc made (for undo, restore and crash recovery).

May import: the standard library, platformdirs, core.hermes and core.scan.
"""
