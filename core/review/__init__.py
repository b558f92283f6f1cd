"""The monthly review: the findings of every detector (findings.py), near-duplicates
(duplicates.py), dated and relative-date entries (dates.py), text normalisation (textnorm.py),
entry ages from the timeline (ages.py), the remembered decisions (decisions.py), whether a text holds
a fact in the user's words (facts.py) and the promises the agent didn't keep (unsaved.py).

May import: the standard library and every core package before it: hermes, timefmt, scan, store,
home, sessions, pending, curator, timeline.
"""
