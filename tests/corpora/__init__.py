"""Measured-quality corpora, one module per detector (secrets, injections and benign
notes for the scanner; dates; duplicates …).

Secrets are built at run time from seeded random characters, so no key-shaped
literal is ever committed.
"""
