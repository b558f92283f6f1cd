"""Read-only access to state.db: the connection layer and schema probe (db.py), the query language
(query.py), search (search.py, with the value objects in model.py and the session and window
reads in reads.py), snippets, every profile's search (profiles.py) and the agent's memory tool
calls as state.db recorded them (memory_calls.py). Nothing here ever writes state.db.

May import: the standard library only (below everything but core.hermes in the order), and orjson
(memory_calls' fast path for the common row).
"""
