"""What a Hermes release does: release detection (state.db schema -> release, the installed
hermes-agent), the per-release rules (reading, drift, matching, limits, messages, the prompt
block, config values) and the scan Hermes applies. The only place that knows release differences.

May import: the standard library only; nothing else from core (it is the lowest package).
"""
