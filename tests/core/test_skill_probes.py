"""Probes of the skills queue at the memory queue's depth (test_crash_kill.py, test_pending_concurrency.py,
test_pending_hostile.py): kill -9 at random moments of approve-all, two approvers at once, hostile
names and paths, special files anywhere under skills/. Every random input is seeded; a failure
prints the seed."""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal
import socket
import string
import subprocess
import sys
from pathlib import Path

import pytest

from core.pending import skills as sk
from core.pending.skill_records import VALID_NAME_RE
from core.pending.skills import SkillApproveRefused, SkillPendingError, SkillQueue
from core.store.journal import History
from tests.core.test_pending_skills import skill_md, stage, tree

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
ROUNDS = 12  # approvers killed mid-run in a row, at most

APPROVE_ALL = """
import os, signal, sys
from core.pending.skills import SkillQueue
kill_at = int(sys.argv[2])  # SIGKILL itself at this fsync (0: never): a crash at a known point, not a timing
if kill_at:
    real, seen = os.fsync, [0]
    def fsync(fd):
        seen[0] += 1
        if seen[0] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(fd)
    os.fsync = fsync
SkillQueue(sys.argv[1]).approve_all()
print("done", flush=True)
"""


def make(tmp_path: Path, name: str = "home", skills: int = 6) -> Path:
    h = tmp_path / name
    for i in range(skills):
        d = h / "skills" / f"s{i}"
        (d / "references").mkdir(parents=True)
        (d / "SKILL.md").write_text(skill_md(f"s{i}", f"Skill {i}", "Line one.\nLine two.\n"))
        (d / "references" / "r.md").write_text(f"ref {i}\n")
    (h / "pending" / "skills").mkdir(parents=True)
    (h / "config.yaml").write_text("skills:\n  write_approval: true\n")
    return h


def random_records(home: Path, rng: random.Random, n: int) -> list[str]:
    """A mixed queue: single writes, patches, and batches touching several skills."""
    ids = []
    for i in range(n):
        s, t = f"s{rng.randrange(6)}", f"s{rng.randrange(6)}"
        kind = rng.randrange(4)
        if kind == 0:
            payload = {"action": "write_file", "name": s, "file_path": f"references/n{i}.md",
                       "file_content": f"note {i}\n" * rng.randrange(1, 50)}
        elif kind == 1:
            payload = {"action": "patch", "name": s, "file_path": "references/r.md", "old_string": "ref",
                       "new_string": f"ref{i}"}
        elif kind == 2:
            payload = {"action": "batch", "operations": [
                {"action": "write_file", "name": s, "file_path": f"scripts/b{i}.sh", "file_content": "echo\n"},
                {"action": "write_file", "name": t, "file_path": f"references/b{i}.md", "file_content": "b\n"},
                {"action": "patch", "name": s, "old_string": "Line one.", "new_string": f"Line {i}."}]}
        else:
            payload = {"action": "remove_file", "name": s, "file_path": "references/r.md"}
        ids.append(stage(home, payload, rid=f"{0xd0000000 + i:08x}", created=1000.0 + i))
    return ids


def pending(home: Path) -> list[str]:
    return sorted(n for n in os.listdir(home / "pending" / "skills") if not n.startswith("."))


def leftovers(home: Path) -> list[str]:
    """hmc's claims and temp files anywhere in the home's skills/ and pending/skills/."""
    out = [n for n in os.listdir(home / "pending" / "skills") if n.startswith(".")]
    out += [p.relative_to(home).as_posix() for p in (home / "skills").rglob("*") if ".hmc-" in p.name]
    return out


def applied_tags(home: Path) -> list[str]:
    history = History(home)
    records = history.tree_records("skills")
    undone = {r.undoes for r in records if r.undoes is not None}
    return [r.tag for r in records if r.undoes is None and r.id not in undone and r.tag]


def test_kill_9_during_approve_all_leaves_the_tree_of_an_unkilled_run(tmp_path):
    seed = 2026_12
    rng = random.Random(seed)
    home, control = make(tmp_path), make(tmp_path, "control")
    ids = random_records(home, random.Random(seed), 60)
    random_records(control, random.Random(seed), 60)
    SkillQueue(control).approve_all()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    kills = 0
    for _ in range(ROUNDS):  # each round: an approver killed at a seeded fsync (writes, journal, claims)
        if not pending(home):
            break
        proc = subprocess.Popen([sys.executable, "-c", APPROVE_ALL, str(home), str(rng.randint(1, 40))], cwd=ROOT,
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _out, err = proc.communicate(timeout=60)
        kills += proc.returncode == -signal.SIGKILL
        assert b"Traceback" not in err, (seed, err.decode(errors="replace"))
        SkillQueue(home).recover_claims()  # what the next hmc command does first
        assert leftovers(home) == [], f"seed {seed}: left behind {leftovers(home)}"
        tags = [t.split(".claim-")[0].lstrip(".") for t in applied_tags(home)]
        assert len(tags) == len(set(tags)), f"seed {seed}: a record was applied twice"
        assert not set(tags) & set(pending(home)), f"seed {seed}: an applied record came back"
    assert kills >= 2, f"seed {seed}: only {kills} approvers were killed mid-run"
    SkillQueue(home).approve_all()
    # every batch all or nothing, every record once, in order: the same tree as a run never killed
    assert tree(home / "skills") == tree(control / "skills"), f"seed {seed}: {kills} kills"
    assert pending(home) == pending(control)
    assert len(ids) == 60


def _approver(home: str, out) -> None:
    queue = SkillQueue(home)
    done, _failed = queue.approve_all()
    out.put(done)


def test_two_approvers_at_once_apply_each_record_once(tmp_path):
    seed = 77
    home = make(tmp_path)
    random_records(home, random.Random(seed), 30)
    control = make(tmp_path, "control")
    random_records(control, random.Random(seed), 30)
    SkillQueue(control).approve_all()
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    procs = [ctx.Process(target=_approver, args=(str(home), out)) for _ in range(2)]
    for p in procs:
        p.start()
    done = [rid for _ in procs for rid in out.get(timeout=60)]
    for p in procs:
        p.join(30)
    assert len(done) == len(set(done)), f"seed {seed}: applied twice: {sorted(done)}"
    SkillQueue(home).approve_all()  # what one approver skipped while the other held it
    assert leftovers(home) == []
    assert tree(home / "skills") == tree(control / "skills"), f"seed {seed}"


# ------------------------------------------------------------------------------------ special files


def _fifo(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)


def _socket(path: Path) -> socket.socket:
    path.parent.mkdir(parents=True, exist_ok=True)
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    return s


def test_special_files_in_unrelated_skills_change_nothing(tmp_path):
    plain = make(tmp_path, "plain")
    odd = make(tmp_path, "odd")
    for h in (plain, odd):
        stage(h, {"action": "write_file", "name": "s1", "file_path": "references/x.md", "file_content": "x"})
        stage(h, {"action": "patch", "name": "s2", "old_string": "Line two.", "new_string": "Line 2."})
    _fifo(odd / "skills" / "s4" / "assets" / "pipe")
    _fifo(odd / "skills" / "s5" / "loose-pipe")
    sock = _socket(odd / "skills" / "s3" / "sock")
    big = odd / "skills" / "s5" / "assets" / "huge.bin"
    big.parent.mkdir(parents=True, exist_ok=True)
    with open(big, "wb") as fh:  # a 3 GB sparse file: never read
        fh.truncate(3 << 30)
    try:
        views = {}
        for h in (plain, odd):
            queue = SkillQueue(h)
            views[h.name] = ([(i.can_apply, i.kind, [c.path for c in i.changes])
                              for i in (queue.inspect(r) for r in queue.list())], queue.simulate_all())
        assert views["plain"] == views["odd"]
        assert views["odd"][1] == (2, 0)
        done, failed = SkillQueue(odd).approve_all()
        assert len(done) == 2 and failed == []
    finally:
        sock.close()


@pytest.mark.parametrize("special", ["fifo", "socket", "folder", "symlink", "huge"])
def test_an_unreadable_record_is_named_by_its_id_never_by_its_claim(tmp_path, special):
    home = make(tmp_path)
    path = home / "pending" / "skills" / "aaaa0001.json"
    keep = None
    if special == "fifo":
        os.mkfifo(path)
    elif special == "socket":
        keep = _socket(path)
    elif special == "folder":
        path.mkdir()
    elif special == "symlink":
        (tmp_path / "elsewhere.json").write_text("{}")
        path.symlink_to(tmp_path / "elsewhere.json")
    else:
        with open(path, "wb") as fh:
            fh.truncate(51 << 20)
    try:
        queue = SkillQueue(home)
        [record] = queue.list()
        assert record.id == "aaaa0001" and record.broken
        with pytest.raises(SkillApproveRefused) as exc:
            queue.approve("aaaa0001")
        assert exc.value.id == "aaaa0001" and exc.value.kind == sk.BROKEN
        assert ".claim-" not in str(exc.value) and "aaaa0001.json" in str(exc.value)
        done, failed = queue.approve_all()
        assert done == [] and failed[0][0] == "aaaa0001" and ".claim-" not in failed[0][2]
        assert os.path.lexists(path) and leftovers(home) == []
    finally:
        if keep is not None:
            keep.close()


# ------------------------------------------------------------------------------------ hostile input


def hostile_names(rng: random.Random, n: int) -> list[str]:
    pieces = ["..", "/", "\\", "\n", "\r", "\x00", " ", "\t", "é", "\u202e", "$(x)", "[b]", "*", "~", "-", ".", "A"]
    out = ["evil\n", "x\n", " x", "x ", "..", ".", "a/b", "a/../b", "-x", "x" * 65, "", "\x00x"]
    for _ in range(n):
        out.append("".join(rng.choice(pieces + list(string.ascii_lowercase)) for _ in range(rng.randrange(1, 8))))
    return out


def test_hostile_names_categories_and_paths_never_write_outside_their_skill(tmp_path):
    seed = 4242
    rng = random.Random(seed)
    home = make(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (home / "skills" / "s0" / "linked").symlink_to(outside)  # a link inside a skill: never written through
    around = sorted(p.name for p in tmp_path.iterdir())
    names = hostile_names(rng, 15)
    for name in names:
        stage(home, {"action": "create", "name": name, "content": skill_md("x")})
        stage(home, {"action": "create", "name": "okname", "category": name, "content": skill_md("okname")})
        stage(home, {"action": "write_file", "name": "s0", "file_path": f"references/{name}", "file_content": "x"})
        stage(home, {"action": "write_file", "name": "s0", "file_path": name, "file_content": "x"})
        stage(home, {"action": "batch", "operations": [
            {"action": "write_file", "name": "s1", "file_path": f"scripts/{name}", "file_content": "x"}]})
    stage(home, {"action": "write_file", "name": "s0", "file_path": "linked/../../x", "file_content": "x"})
    stage(home, {"action": "write_file", "name": "s0", "file_path": "references/../linked/x", "file_content": "x"})
    queue = SkillQueue(home)
    queue.approve_all()
    assert list(outside.iterdir()) == [], f"seed {seed}"
    for md in (home / "skills").rglob("SKILL.md"):  # every skill folder and category: a clean name
        for part in md.parent.relative_to(home / "skills").parts:
            assert part == part.strip() and "\n" not in part and VALID_NAME_RE.fullmatch(part), \
                f"seed {seed}: {part!r}"
    assert {p.name for p in tmp_path.iterdir()} - set(around) <= {"xdg-state"}, f"seed {seed}"  # hmc's journal
    assert leftovers(home) == []


# ------------------------------------------------------------------------------------ masking (CLI)


def _key() -> tuple[str, str]:
    rng = random.Random(5)
    aws = "AKIA" + "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(16))
    gh = "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))
    return aws, gh


class Run:
    def __init__(self, args, code: int, out: str, err: str):
        self.args, self.returncode, self.stdout, self.stderr = args, code, out, err


@pytest.fixture
def hmc(capsys, monkeypatch):
    """`hmc --home HOME ARGS…` in this process (each a fresh curator, as a new command would be)."""
    from tui.cli.main import main

    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")

    def run(home: Path, *args: str) -> Run:
        capsys.readouterr()
        code = main(["--home", str(home), *args])
        out, err = capsys.readouterr()
        return Run(args, code, out, err)
    return run


def test_key_shaped_paths_names_and_record_ids_are_masked_unless_revealed(tmp_path, hmc):
    aws, gh = _key()
    home = make(tmp_path)
    stage(home, {"action": "write_file", "name": "s0", "file_path": f"references/{aws}.md", "file_content": "x"},
          rid="aaaa0001")
    stage(home, {"action": "create", "name": gh.lower(), "content": skill_md("tok")}, rid="aaaa0002")
    stage(home, {"action": "batch", "operations": [
        {"action": "write_file", "name": "s1", "file_path": f"scripts/{aws}.sh", "file_content": "echo\n"}]},
        rid="aaaa0003")
    (home / "pending" / "skills" / f"{aws}.json").write_text(json.dumps(
        {"id": aws, "created_at": 5000.0, "payload": {"action": "write_file", "name": "s2",
                                                       "file_path": "references/y.md", "file_content": "y"}}))
    shown = hmc(home, "pending", "list", "--subsystem", "skills", "--reveal")
    assert aws in shown.stdout and gh.lower() in shown.stdout
    outputs = [hmc(home, "pending", "list", "--subsystem", "skills"),
               hmc(home, "pending", "list", "--subsystem", "skills", "--json"),
               hmc(home, "pending", "list", "--subsystem", "all"),
               hmc(home, "pending", "list", "--subsystem", "all", "--json"),
               hmc(home, "pending", "show", "aaaa0001", "--subsystem", "skills"),
               hmc(home, "pending", "show", "aaaa0003", "--subsystem", "skills", "--json"),
               hmc(home, "pending", "show", aws, "--subsystem", "skills"),
               hmc(home, "pending", "approve", "aaaa0001", "--subsystem", "skills"),
               hmc(home, "pending", "approve", aws, "--subsystem", "skills", "--json"),
               hmc(home, "pending", "approve", "all", "--subsystem", "skills"),
               hmc(home, "undo", "--subsystem", "skills"),
               hmc(home, "undo", "--subsystem", "skills", "--json")]
    for r in outputs:
        text = r.stdout + r.stderr
        assert r.returncode in (0, 1), (r.args, text)
        assert aws not in text and gh.lower() not in text, (r.args, text)
    assert "AKIA" in outputs[0].stdout  # masked, not dropped: `AKIA…` stays recognisable
    assert outputs[7].stdout.startswith("approved aaaa0001: create s0/references/AKIA")
    assert "undid" in outputs[10].stdout


def test_pending_list_names_a_fifo_problem_in_words_not_a_python_list(tmp_path, hmc):
    home = make(tmp_path)
    _fifo(home / "skills" / "s3" / "pipe")
    _fifo(home / "skills" / "s3" / "references" / "pipe2")
    stage(home, {"action": "write_file", "name": "s1", "file_path": "references/x.md", "file_content": "x"})
    r = hmc(home, "pending", "list", "--subsystem", "skills")
    assert r.returncode == 0, r.stderr
    assert "[(" not in r.stdout + r.stderr and "1 would apply, 0 would be kept" in r.stdout
    # a FIFO where the record reads is reported by name, and the others still list
    stage(home, {"action": "patch", "name": "s3", "file_path": "references/pipe2", "old_string": "a",
                 "new_string": "b"})
    r = hmc(home, "pending", "list", "--subsystem", "skills", "--json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)["records"]
    assert [row["can_apply"] for row in rows] == [True, False]
    assert "skills/s3/references/pipe2 can't be read" in rows[1]["reason"] and "[(" not in rows[1]["reason"]


def test_two_threads_inspecting_while_one_approves_never_crash(tmp_path):
    """The TUI reads the queue in a worker thread while an approval runs in another."""
    import threading

    home = make(tmp_path)
    random_records(home, random.Random(3), 30)
    queue = SkillQueue(home)
    errors: list[BaseException] = []

    def read():
        try:
            for _ in range(5):
                with queue.reading():
                    [queue.inspect(r) for r in queue.list()]
        except (SkillPendingError, OSError):
            pass
        except BaseException as exc:  # noqa: BLE001 - the test reports it
            errors.append(exc)

    threads = [threading.Thread(target=read) for _ in range(2)]
    for t in threads:
        t.start()
    queue.approve_all()
    for t in threads:
        t.join()
    assert errors == []


DIE_MID_WRITE = """
import os, signal, sys
from core.pending import skill_undo
from core.pending.skills import SkillQueue

real = skill_undo._write_at
calls = []

def dying(dfd, name, data, mode, kind="undo"):
    calls.append(name)
    if len(calls) == int(sys.argv[2]):  # leave a temp beside the file, as a kill mid-write does
        fd = os.open(skill_undo.temp_name(name, kind), os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=dfd)
        os.write(fd, data[:3])
        os.kill(os.getpid(), signal.SIGKILL)
    real(dfd, name, data, mode, kind)

skill_undo._write_at = dying
SkillQueue(sys.argv[1]).approve_all()
"""


@pytest.mark.parametrize("die_at", [1, 2])
def test_a_killed_approver_leaves_a_temp_the_next_run_removes_and_a_half_batch_it_puts_back(tmp_path, die_at):
    home = make(tmp_path)
    before = tree(home / "skills")
    rid = stage(home, {"action": "batch", "operations": [
        {"action": "write_file", "name": "s1", "file_path": "references/new.md", "file_content": "new\n"},
        {"action": "patch", "name": "s1", "old_string": "Line one.", "new_string": "Line 1."}]})
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", DIE_MID_WRITE, str(home), str(die_at)], cwd=ROOT, env=env,
                          capture_output=True, timeout=60)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode(errors="replace")
    temps = [p.name for p in (home / "skills" / "s1").rglob(".*.hmc-tmp.*")]
    assert len(temps) == 1, temps
    SkillQueue(home).recover_claims()  # the next hmc command
    assert leftovers(home) == []
    assert tree(home / "skills") == before  # the half-written batch was put back
    assert pending(home) == [f"{rid}.json"]
    done, failed = SkillQueue(home).approve_all()
    assert done == [rid] and (home / "skills/s1/references/new.md").read_text() == "new\n"
