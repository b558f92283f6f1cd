"""Text from outside hmc (a path, a folder's or a distribution's name) for one line of output.

A newline in a home's path or in a dist-info folder's name would split a line: "checked against
your Hermes: 56/56" could then be printed by a path. Every character that isn't printable (line
breaks, tabs, controls, bidi overrides, lone surrogates) is shown as its escape; the rest stays as
it is. Standard library only, like the rest of core.hermes.
"""

from __future__ import annotations


def one_line(text: object) -> str:
    """`text` on one line, every unprintable character shown as its escape (`\\n`, `\\x1b`, `\\u202e`)."""
    text = "" if text is None else str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
