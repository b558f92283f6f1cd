"""`hmc doctor`: hmc checked against the Hermes installed on this machine (issue #18).

cases.py   the fixed cases, per area: the homes hmc builds, what the driver asks Hermes, and the
           same question asked of hmc's own rules for the detected release
check.py   the run: find Hermes (core.hermes.probe), build scratch homes, run the driver in
           Hermes's interpreter, compare, and the verdict
verdict.py the verdict remembered per installed release and code digest in hmc's state folder,
           and the differences a write must name before it goes ahead

May import: everything else in core (it sits on top: store, pending, sessions, curator); never
textual, rich or tui/.
"""
