"""The memory files and hmc's own writes: MemoryStore (format, lock, re-read, checks, atomic write,
change token), atomic.py (all-or-nothing writes, reads that never block, private folders) and the
journal of every write hmc made (for undo, restore and crash recovery).

May import: the standard library, platformdirs, core.hermes and core.scan.
"""
