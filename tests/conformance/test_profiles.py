"""Which profiles a Hermes home has, and which one a bare `hermes` opens: hmc's discovery
(core.profiles.discovery) against each release's own hermes_cli.profiles, run in a subprocess.

For every home of the matrix (an edge-case home, some of whose profiles the release itself made
with create_profile, and a few seeded random homes) the release answers, with HERMES_HOME at the
home's root:
- its list of profiles: list_profile_names() (0.22+, reads nothing else) or list_profiles();
- for each folder under profiles/, whether resolve_profile_env(<its name>) opens that folder;
- for each state of <root>/active_profile, get_active_profile() and what resolve_profile_env does
  with it (what a bare `hermes` does: a ValueError or FileNotFoundError makes it exit 1).
A few active_profile files are written by the release's own set_active_profile (`hermes profile use`).

hmc must list exactly the release's profiles that the release can open (0.13-0.16 list
profiles/default/ as a second "default": that is hmc's default_trap). A profile the release lists
but refuses to open (a reserved name, a name ending in a line break) must be in hmc's `skipped`.
`active` must be the profile a bare `hermes` opens ("default" when it exits 1), and
`sticky_problem` set exactly when it exits 1.

Hermes's own `hermes profile create` (the CLI) needs python-dotenv, which the conformance install
(--no-deps) lacks: the profiles are made with create_profile(name, no_alias=True), the function
that command calls.
"""

from __future__ import annotations

import base64
import inspect
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from core.hermes.release import for_version, parse_version
from core.profiles.discovery import discover, read_sticky, shown
from tests.conformance import releases
from tests.conformance.strategies import SCALE_ENV

pytestmark = pytest.mark.area("reading")

SEED = 20261107
GENERATED_HOMES = 4
TIMEOUT = 120
MARKERS = ("config.yaml", ".env", "SOUL.md", "profile.yaml", "auth.json", "state.db")


# ------------------------------------------------------------------ shared with the oracle
# These two functions run on both sides: in the test, and (their source pasted into ORACLE) in
# the release's process. Standard library only.


def set_sticky(root, spec):
    """Put <root>/active_profile in the state `spec` names (removing what was there first):
    {"missing"}, {"bytes": b64}, {"folder"} (a directory), {"link": b64} (a link to a file holding
    those bytes), {"dangling"} (a link to nothing). {"use": name} is left to the caller."""
    import base64
    import os
    import shutil

    path = os.path.join(root, "active_profile")
    target = os.path.join(root, "sticky-target")
    for p in (path, target):
        if os.path.islink(p) or os.path.isfile(p):
            os.unlink(p)
        elif os.path.isdir(p):
            shutil.rmtree(p)
    if "bytes" in spec:
        with open(path, "wb") as fh:
            fh.write(base64.b64decode(spec["bytes"]))
    elif "folder" in spec:
        os.mkdir(path)
    elif "link" in spec:
        with open(target, "wb") as fh:
            fh.write(base64.b64decode(spec["link"]))
        os.symlink("sticky-target", path)
    elif "dangling" in spec:
        os.symlink("sticky-target", path)


def profiles_tree(root):
    """Everything under <root>/profiles/ (links not followed), as [relative path, kind]."""
    import os
    import stat

    out = []
    base = os.path.join(root, "profiles")
    for top, dirs, files in os.walk(base):
        for name in sorted(dirs + files):
            p = os.path.join(top, name)
            mode = os.lstat(p).st_mode
            kind = ("link" if stat.S_ISLNK(mode) else "dir" if stat.S_ISDIR(mode)
                    else "file" if stat.S_ISREG(mode) else "other")
            out.append([os.path.relpath(p, base), kind])
    return sorted(out)


ORACLE = inspect.getsource(set_sticky) + "\n\n" + inspect.getsource(profiles_tree) + r'''

import base64, contextlib, io, json, os, sys
from pathlib import Path

import hermes_cli.profiles as P

REFUSED = (ValueError, FileNotFoundError)  # what _apply_profile_override turns into exit 1


def quiet(f, *a, **k):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return f(*a, **k)


def opened(name):
    """What resolve_profile_env(name) does: {"home"} or {"raised", "refused", "message"}."""
    try:
        return {"home": str(quiet(P.resolve_profile_env, name))}
    except Exception as exc:
        return {"raised": type(exc).__name__, "refused": isinstance(exc, REFUSED),
                "message": str(exc)[:200]}


def state(root):
    path = os.path.join(root, "active_profile")
    if os.path.isfile(path) and not os.path.islink(path):
        with open(path, "rb") as fh:
            return {"bytes": base64.b64encode(fh.read()).decode()}
    return {"missing": True} if not os.path.lexists(path) else {"other": True}


answers = []
for home in json.load(sys.stdin)["homes"]:
    root = home["root"]
    os.environ["HERMES_HOME"] = root
    created = {}
    for name in home["create"]:
        try:
            created[name] = {"path": str(quiet(P.create_profile, name, no_alias=True))}
        except Exception as exc:
            created[name] = {"raised": type(exc).__name__, "message": str(exc)[:200]}
    tree = profiles_tree(root)
    if hasattr(P, "list_profile_names"):  # 0.22+: the same filter as list_profiles, nothing read
        names = quiet(P.list_profile_names)
    else:
        names = [info.name for info in quiet(P.list_profiles)]
    entries = sorted(os.listdir(os.path.join(root, "profiles")))
    opens = [[entry, opened(entry)] for entry in entries]
    sticky = []
    for spec in home["sticky"]:
        set_sticky(root, {"missing": True} if "use" in spec else spec)
        used = None
        if "use" in spec:
            try:
                quiet(P.set_active_profile, spec["use"])
                used = {"ok": True}
            except Exception as exc:
                used = {"raised": type(exc).__name__, "message": str(exc)[:200]}
        raw = quiet(P.get_active_profile)
        sticky.append({"spec": spec, "use": used, "state": state(root), "raw": raw[:100],
                       "raw_len": len(raw), "bare": None if raw == "default" else opened(raw)})
    answers.append({"root": root, "created": created, "tree": tree, "names": names,
                    "opens": opens, "sticky": sticky})
json.dump({"homes": answers}, sys.stdout)
'''


# ------------------------------------------------------------------ the homes


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def put(path: Path, data: bytes = b"") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


CREATED = ["ops", "coder", "a1_b-2", "b" * 64]  # made by the release's create_profile

EDGE_STICKY = [
    {"missing": True},
    {"bytes": b64(b"")},
    {"bytes": b64(b"  \n\t\n")},
    {"bytes": b64(b"ops\n")},
    {"bytes": b64(b"ops")},
    {"bytes": b64(b"OPS")},
    {"bytes": b64(b"  Ops \r\n")},
    {"bytes": b64(b"default\n")},
    {"bytes": b64(b"Default")},
    {"bytes": b64(b"DEFAULT\r\n")},
    {"bytes": b64(b"\xff\xfeops")},  # not UTF-8
    {"bytes": b64(b"op\xe9s\n")},  # Latin-1
    {"bytes": b64(b"nosuch\n")},
    {"bytes": b64(b"has.dot")},
    {"bytes": b64(b"Upper\n")},  # a folder Upper/ exists, upper/ doesn't
    {"bytes": b64(b"\xef\xbb\xbfops\n")},  # a BOM
    {"bytes": b64(b"\xef\xbb\xbfdefault\n")},
    {"bytes": b64(b"a" * 5000)},  # over-long
    {"bytes": b64(b"ops\nextra\n")},
    {"bytes": b64(b"memonly\n")},  # marker-less profile
    {"bytes": b64(b"emptydir\n")},
    {"bytes": b64(b"gone\n")},  # tombstoned
    {"bytes": b64(b"hermes\n")},  # reserved, has a folder
    {"bytes": b64(b"tmp\n")},  # reserved, no folder
    {"bytes": b64(b"nl\n")},  # only "nl\n" exists
    {"bytes": b64(b"linked\n")},
    {"bytes": b64(b"linkmem\n")},
    {"bytes": b64(b"dangling\n")},
    {"bytes": b64(b"afile\n")},
    {"bytes": b64(b"b" * 64 + b"\n")},
    {"bytes": b64(b"c" * 65 + b"\n")},
    {"bytes": b64(b"m-soul\n")},
    {"bytes": b64(b"m-dangling\n")},
    {"bytes": b64(b"m-dirmarker\n")},
    {"bytes": b64(b"m-linktomb\n")},
    {"bytes": b64(b" " * 4100 + b"ops\n")},  # a valid name padded past 4096 bytes
    {"folder": True},
    {"link": b64(b"coder\n")},
    {"dangling": True},
    {"use": "Coder"},
    {"use": "default"},
    {"use": "memonly"},
    {"use": "nosuch"},
]


def edge_home(root: Path) -> dict:
    """The hand-built odd cases; CREATED are added by the release itself."""
    prof = root / "profiles"
    (root / "memories").mkdir(parents=True)
    put(root / "memories" / "MEMORY.md", b"the default's own memory")
    put(prof / "memonly" / "memories" / "MEMORY.md", b"a note")  # no marker
    (prof / "emptydir").mkdir()
    for marker in MARKERS:
        put(prof / f"m-{marker.strip('.').split('.')[0].lower()}" / marker)
    (prof / "m-dangling").mkdir()
    os.symlink("nowhere", prof / "m-dangling" / "config.yaml")  # a dangling marker link
    (prof / "m-dirmarker" / "config.yaml").mkdir(parents=True)  # a marker that is a folder
    put(prof / "gone" / "config.yaml")
    put(prof / ".deleted" / "gone", b"deleted\n")  # tombstone
    put(prof / ".deleted" / "nodir", b"deleted\n")  # tombstone with no folder
    put(prof / "m-linktomb" / "config.yaml")
    os.symlink("nowhere", prof / ".deleted" / "m-linktomb")  # a tombstone that is a dangling link
    put(prof / "default" / "config.yaml")  # the trap
    put(prof / "default" / "memories" / "MEMORY.md", b"stale")
    for name in ("hermes", "tmp", "Upper", "has.dot", "_under", "-dash", "c" * 65, "sp ace", "\u00e9t\u00e9",
                 "nl\n", "a\nb", ".hidden", ".ops.staging-123"):
        put(prof / name / "config.yaml")
    put(prof / os.fsdecode(b"bad\xff") / "config.yaml")  # a name that isn't UTF-8
    put(root / "elsewhere" / "real" / "config.yaml")
    os.symlink("../elsewhere/real", prof / "linked")  # a link to a profile folder
    os.symlink("memonly", prof / "linkmem")  # a link to a marker-less folder
    os.symlink("../elsewhere/nothing", prof / "dangling")
    put(prof / "afile", b"not a folder")
    os.symlink("afile", prof / "linkfile")
    os.mkfifo(prof / "fifo")
    return {"root": str(root), "create": CREATED, "sticky": EDGE_STICKY}


NAME_POOL = ["ops", "a", "x9", "dev-1", "my_bot", "0day", "work", "b" * 64, "Ops", "WORK", "has.dot",
             "_x", "-x", "c" * 65, "sp ace", "\u00e9", "hermes", "test", "tmp", "root", "sudo", "default",
             ".hidden", "nl\n", "a\nb", "x\t"]
FILLERS = ["memories/MEMORY.md", "skills/note.md", "README.md", "logs/agent.log"]
WRAPS = ["{}", "{}\n", " {} ", "{}\r\n", "\t{}\n\n", "\ufeff{}", "{}\x00"]


def generated_home(root: Path, rng: random.Random) -> dict:
    prof = root / "profiles"
    prof.mkdir(parents=True)
    names = []
    for _ in range(rng.randint(6, 14)):
        name = rng.choice(NAME_POOL)
        if rng.random() < 0.3:
            name = rng.choice([name.upper(), name + "\n", name + "-" + str(rng.randint(0, 99)), name.title()])
        if name in names or not name or "/" in name:
            continue
        names.append(name)
        kind = rng.choices(["dir", "link", "dangling", "file"], [10, 2, 1, 1])[0]
        path = prof / name
        if kind == "dir":
            path.mkdir()
            for item in rng.sample(MARKERS + tuple(FILLERS), rng.choice([0, 1, 1, 2, 3])):
                if item in MARKERS and rng.random() < 0.15:
                    os.symlink("nowhere", path / item)
                else:
                    put(path / item, b"x")
            if rng.random() < 0.2:
                put(prof / ".deleted" / name, b"deleted\n")
        elif kind == "link":
            others = [n for n in names[:-1] if (prof / n).is_dir()]
            os.symlink(rng.choice(others) if others else "../outside", path)
        elif kind == "dangling":
            os.symlink("../nothing-here", path)
        else:
            put(path, b"file")
    (root / "outside").mkdir()
    put(root / "outside" / "SOUL.md")
    sticky = [{"missing": True}]
    for _ in range(8):
        pick = rng.random()
        if pick < 0.15 and names:
            sticky.append({"use": rng.choice(names + ["Default", "nosuch"])})
            continue
        name = rng.choice(names + NAME_POOL) if pick < 0.85 else rng.choice(["", "default", "Default", "zz"])
        if rng.random() < 0.3:
            name = name.upper()
        sticky.append({"bytes": b64(rng.choice(WRAPS).format(name).encode("utf-8"))})
    free = [n for n in ("fresh", "made-1", "made_2") if n not in names]
    return {"root": str(root), "create": free[:rng.randint(0, 1)], "sticky": sticky}


# ------------------------------------------------------------------ running the release


def oracle_env(folder: Path, scratch: Path) -> dict:
    """As HermesOracle runs a release (tests/conformance/oracle.py), with scratch HOME and HERMES_HOME."""
    start = releases._START_ENV
    env = {
        "PATH": start.get("PATH", os.defpath),
        "PYTHONPATH": str(folder),
        "PYTHONHASHSEED": "0",
        "PYTHONIOENCODING": "utf-8",
        "HERMES_HOME": str(scratch / "hermes-home"),
        "HOME": str(scratch / "user"),
        "TZ": "UTC",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
    }
    if start.get("TMPDIR"):
        env["TMPDIR"] = start["TMPDIR"]
    return env


def ask_release(version: str, homes: list[dict], scratch: Path) -> list[dict]:
    try:
        folder = releases.release_dir(version)
    except releases.ReleaseUnavailable as exc:  # as the oracle fixture: a failure, never a skip
        pytest.fail(str(exc), pytrace=False)
    for sub in ("user", "hermes-home", "cwd"):
        (scratch / sub).mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([sys.executable, "-P", "-c", ORACLE], input=json.dumps({"homes": homes}),
                          capture_output=True, text=True, encoding="utf-8", env=oracle_env(folder, scratch),
                          cwd=scratch / "cwd", timeout=TIMEOUT)
    assert proc.returncode == 0, f"hermes {version}'s profiles oracle failed:\n{proc.stderr[-3000:]}"
    return json.loads(proc.stdout)["homes"]


# ------------------------------------------------------------------ comparing


def opens_own_folder(root: Path, name: str, answer: dict) -> bool:
    """resolve_profile_env(name) lands on profiles/<name> itself (as spelled)."""
    return "home" in answer and Path(answer["home"]) == root / "profiles" / name


def bare_hermes(root: Path, answer: dict) -> tuple[str, bool]:
    """(the profile a bare `hermes` opens, whether it exits 1 instead) from one sticky answer."""
    bare = answer["bare"]
    if bare is None:
        return "default", False
    if "home" not in bare:
        return "default", bare["refused"]
    home = Path(bare["home"])
    if home == root:
        return "default", False
    assert home.parent == root / "profiles", bare
    return home.name, False


def described(spec: dict) -> str:
    """A sticky spec as a line can hold it (its bytes decoded for reading, cut)."""
    for key in ("bytes", "link"):
        if key in spec:
            data = base64.b64decode(spec[key])
            text = repr(data[:40]) + (f"... ({len(data)} bytes)" if len(data) > 40 else "")
            return text if key == "bytes" else f"a link to a file holding {text}"
    return ", ".join(f"{k} {v!r}" if v is not True else k for k, v in spec.items())


def check_home(release, home: dict, answer: dict) -> list[str]:
    root = Path(home["root"])
    bad = []
    assert answer["tree"] == profiles_tree(root), "the release changed profiles/ after listing it"
    for name, made in answer["created"].items():
        if name in CREATED:
            assert "path" in made, (name, made)  # the edge home's own profiles were made

    theirs = answer["names"]
    opens = {entry: got for entry, got in answer["opens"]}
    expected = ["default"] + [n for n in dict.fromkeys(theirs[1:]) if opens_own_folder(root, n, opens.get(n, {}))]
    unopenable = [n for n in dict.fromkeys(theirs[1:]) if not opens_own_folder(root, n, opens.get(n, {}))
                  and n != "default"]
    assert theirs[:1] == ["default"], theirs
    set_sticky(str(root), {"missing": True})
    found = discover(root, release)
    if found.names() != expected:
        mine = found.names()
        bad.append(f"profiles: hermes opens {[n for n in expected if n not in mine]!r} that hmc doesn't list; hmc "
                   f"lists {[n for n in mine if n not in expected]!r} that hermes doesn't open (hermes lists "
                   f"{theirs!r}; hmc skips {[(s.shown, s.why) for s in found.skipped]!r})")
    for name in unopenable:  # shown() cuts long names: two folders may share a label
        whys = [s.why for s in found.skipped if s.shown == shown(name)]
        if not any("reserved" in why or "line break" in why for why in whys):
            bad.append(f"{name!r}: hermes lists it but can't open it ({opens.get(name)}); "
                       f"hmc doesn't name it as skipped for that ({whys!r})")
    if "default" in theirs[1:] and found.default_trap != root / "profiles" / "default":
        bad.append(f"hermes lists profiles/default/ as a second 'default'; hmc's default_trap is {found.default_trap}")

    for got in answer["sticky"]:
        spec = got["spec"]
        if "use" in spec:  # the release wrote it: give hmc the same bytes (or none)
            assert "other" not in got["state"], got
            spec = got["state"]
        set_sticky(str(root), spec)
        active, fails = bare_hermes(root, got)
        found = discover(root, release)
        what = (f"active_profile {described(got['spec'])} (hermes read {got['raw'][:40]!r}, {got['raw_len']} chars; "
                f"resolve: {got['bare']}; use: {got['use']})")
        if found.active != active or (found.sticky_problem is not None) != fails:
            bad.append(f"{what}: hermes opens {active!r}{' and exits 1' if fails else ''}; hmc active "
                       f"{found.active!r}, sticky {found.sticky!r}, problem {found.sticky_problem!r}")
        elif not fails and found.sticky != (None if active == "default" else active):
            bad.append(f"{what}: hmc's sticky is {found.sticky!r}, not {active!r}")
        if read_sticky(root, release) != (found.sticky, found.sticky_problem):
            bad.append(f"{what}: read_sticky on its own says {read_sticky(root, release)!r}, discover "
                       f"{(found.sticky, found.sticky_problem)!r}")
    return bad


def test_profiles_and_the_sticky_profile_agree(hermes_release, tmp_path):
    release, notice = for_version(parse_version(hermes_release))
    assert notice is None and release.name == hermes_release, notice
    scale = max(1, int(os.environ.get(SCALE_ENV, "1") or 1))
    rng = random.Random(SEED if scale == 1 else None)
    homes = [edge_home(tmp_path / "edge")]
    homes += [generated_home(tmp_path / f"gen-{i}", rng) for i in range(GENERATED_HOMES * scale)]
    answers = ask_release(hermes_release, homes, tmp_path / "oracle")
    bad = []
    for home, answer in zip(homes, answers, strict=True):
        bad += [f"{Path(home['root']).name}: {line}" for line in check_home(release, home, answer)]
    assert not bad, f"hermes {hermes_release} and hmc disagree on {len(bad)} point(s):\n" + "\n".join(bad)
