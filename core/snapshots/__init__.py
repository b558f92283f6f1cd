"""What each session actually loaded: the MEMORY and USER blocks recovered from the system prompt
state.db stored for it (blocks.py), one session as read (session.py), the sessions read from
state.db (loaded.py), summed up (tally.py: each distinct snapshot once in catalog.py, each
session's snapshot by rowid in runs.py) and cached between runs (cache.py), how a snapshot
compares with the files now and which open chats still run on an old one (compare.py), and
Hermes's pruning of old sessions (pruning.py). Nothing here ever writes state.db.

May import: the standard library, core.hermes (the release's rules: block format, blocked notices,
config values), core.home (config.yaml) and core.sessions (the read-only connection). Sits below
core.timeline, which uses it for attribution.
"""
