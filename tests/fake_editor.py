"""A stand-in for the person's editor, run as $EDITOR by the tests of ctrl+e (core and TUI).

    python fake_editor.py copy SOURCE FILE   writes SOURCE's bytes into FILE
    python fake_editor.py keep FILE          leaves FILE as it is
    python fake_editor.py exit N FILE        leaves FILE and exits with status N

With $FAKE_EDITOR_LOG set, it first writes there (JSON) the file it was given, what it held, and
the permission bits of the file and its folder."""

import json
import os
import stat
import sys
from pathlib import Path

action, path = sys.argv[1], Path(sys.argv[-1])
log = os.environ.get("FAKE_EDITOR_LOG")
if log:
    Path(log).write_text(json.dumps({
        "path": str(path), "text": path.read_text(encoding="utf-8"), "argv": sys.argv[1:],
        "file_mode": stat.S_IMODE(path.stat().st_mode), "dir_mode": stat.S_IMODE(path.parent.stat().st_mode)}))
if action == "copy":
    path.write_bytes(Path(sys.argv[2]).read_bytes())
elif action == "exit":
    sys.exit(int(sys.argv[2]))
