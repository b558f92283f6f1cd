"""hmc's headless domain: everything the product knows, usable without a terminal.

Top-level modules: home.py (where the Hermes home is, its profiles, config.yaml, creating one),
curator.py (the one context object: home, config, stores, both queues, state.db, clock),
timefmt.py (times for people), errors.py (the refusal both interfaces report), progress.py (when
long work is worth showing, and the jobs running now: stdlib only), settings.py (hmc's own
config.toml), yaml_load.py (parsing config text with PyYAML, imported only when text must be
parsed), config_cache.py (what hmc read from a config.yaml, cached by its bytes: a start-up doesn't
import PyYAML), hmc_cache.py (hmc's cache folder and the digest-checked frame of every cache
file), attention.py (`hmc status --short`: its figures, its line, and the summary that lets a shell
prompt skip the rest of hmc; stdlib at the top). The packages below mirror the product; each one's docstring says what it holds.

May import: the standard library, pyyaml and platformdirs. Never textual, rich or tui/ (a test
imports every module and checks textual stays out). Lower packages never import higher ones, in
this order: hermes, timefmt, progress, hmc_cache, scan, store, yaml_load, config_cache, home,
sessions, pending, curator, timeline, review, demo, doctor, settings (tests/core/test_layout.py
keeps it, and that there are no import cycles).
"""
