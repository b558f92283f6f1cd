"""Measured-quality corpora for the security scanner.

Secrets are built at run time from seeded random characters, so no key-shaped
literal is ever committed; injections and benign notes are plain text.
"""
