"""hmc's wider security scan (secrets, multilingual injections, tag characters, rule tables, the
Hermes-compatible ids first) and the masking of what it finds for display (mask.py: `Masker`, the
one masker the command line and the TUI share). The injection checks are rules built
(injections.py) from one word list per language (lexicons.py).

May import: the standard library and core.hermes.
"""
