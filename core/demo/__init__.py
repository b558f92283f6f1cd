"""The demo home (`hmc demo`) and the benchmark databases: build.py writes them (seeded,
deterministic); content.py holds what goes into the home's files, sessions.py plans state.db's
conversations from conversations.py (slot pools, cron jobs, story lines) and intents.py.

May import: the standard library and every core package before it (all but settings).
"""
