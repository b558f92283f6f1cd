"""What a Hermes release does: release detection (state.db schema -> release, the installed
hermes-agent), the per-release rules (reading, drift, matching, limits, messages, the prompt
block, config values) and the scan Hermes applies. The only place that knows release differences;
also what a person is told about them: prompt_usage.py (the file's usage vs the prompt label's)
and wording.py (the release's refusals, said for a person). Also the driver that runs inside
Hermes's own interpreter (driver.py: never imported, only run) and finding that interpreter and
running the driver in a subprocess (probe.py).

May import: the standard library only; nothing else from core (it is the lowest package).
"""
