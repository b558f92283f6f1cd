"""Where hmc's skill approvals differ from the release on purpose, each side asserted exactly (rows of
docs/releases.md's "Where hmc differs from Hermes" tables): file modes on an approved write, and
names and categories Hermes's checks let through with a line break or spaces that end up in a
folder name."""

from __future__ import annotations

import pytest

from core.pending.skills import INVALID, SkillQueue
from tests.conformance.oracle import OracleUnsupported, copy_home, home_files
from tests.conformance.test_skills import BASE, CONFIG, skill_md

pytestmark = pytest.mark.area("deviations")


def _staged_pair(oracle, make_home, tmp_path, writes, files=BASE):
    oracle.require("write_approval")
    home = make_home(config=CONFIG, files=files)
    staged = oracle.skills_stage(home, writes)
    assert len(staged["pending_ids"]) == len(writes), staged["results"]
    return home, copy_home(home, tmp_path / "hmc-home")


def test_skill_file_modes_on_approve(oracle, make_home, tmp_path):
    """An approved rewrite of scripts/go.sh (0755): up to 0.20 the release leaves it 0600 (its temp
    file's mode), and creates new files 0600; hmc keeps the file's mode and creates new files 0644,
    as 0.22 does."""
    _shown_from_0_18_1(oracle)
    writes = [{"action": "write_file", "name": "beta", "file_path": "scripts/go.sh", "file_content": "echo went\n"},
              {"action": "write_file", "name": "beta", "file_path": "references/new.md", "file_content": "new\n"}]
    home, mine = _staged_pair(oracle, make_home, tmp_path, writes, {**BASE, "skills/beta/scripts/go.sh": "echo go\n"})
    for h in (home, mine):
        (h / "skills/beta/scripts/go.sh").chmod(0o755)
    release = oracle.skills_pending(home, ["approve", "all"])
    assert release["pending"] == []
    SkillQueue(mine, lock_dir=tmp_path).approve_all()
    mode = lambda rel: (mine / "skills" / rel).stat().st_mode & 0o7777  # noqa: E731
    assert mode("beta/scripts/go.sh") == 0o755 and mode("beta/references/new.md") == 0o644
    theirs = (release["skills_modes"]["beta/scripts/go.sh"], release["skills_modes"]["beta/references/new.md"])
    if theirs == (0o755, 0o644):
        raise OracleUnsupported(oracle.version, "this release keeps the mode and creates 0644, as hmc does")
    assert theirs == (0o600, 0o600)


def _shown_from_0_18_1(oracle) -> None:
    """0.17.0 and 0.18.0 keep what they found under skills/ from one home to the next in a process:
    skills staged here change what later skill tests see in the same oracle (test_skills then
    compares against the wrong tree). The deviations are shown on 0.18.1 and later; on these two
    they are n/a (never a pass)."""
    if tuple(int(x) for x in oracle.version.split(".")[:3]) < (0, 18, 1):
        raise OracleUnsupported(oracle.version, "its skill index outlives one home in the oracle's process")


def _not_shown(oracle, release: dict, name: str) -> None:
    """The release approved the record but its skill is nowhere in the home it was given: 0.17.0 and
    0.18.0 resolve their skills folder once per process, so in a long oracle run a create can land
    in an earlier home's folder. The deviation can't be shown on this run: n/a, never a pass."""
    if not any(name in path for path in release["skills_files"]):
        raise OracleUnsupported(oracle.version, f"its approve wrote {name!r} outside the home it was given")
    raise AssertionError(f"{name!r} landed elsewhere in the tree: {sorted(release['skills_files'])}")


def test_a_skill_name_ending_in_a_line_break(oracle, make_home, tmp_path):
    """Hermes's name check (`^…$` with re.match) lets a final newline through and creates
    skills/evil⏎/; hmc refuses the name."""
    _shown_from_0_18_1(oracle)
    writes = [{"action": "create", "name": "evil\n", "content": skill_md("evil", "Evil.", "Body.")}]
    home, mine = _staged_pair(oracle, make_home, tmp_path, writes)
    release = oracle.skills_pending(home, ["approve", "all"])
    assert release["pending"] == []
    if "evil\n/SKILL.md" not in release["skills_files"]:  # 0.17.0/0.18.0 after other homes: see _created
        _not_shown(oracle, release, "evil")
    assert "evil\n/SKILL.md" in release["skills_files"]
    queue = SkillQueue(mine, lock_dir=tmp_path)
    ins = queue.inspect(queue.list()[0])
    assert not ins.can_apply and ins.kind == INVALID and "Invalid skill name 'evil\\n'" in ins.reason
    done, failed = queue.approve_all()
    assert done == [] and not (mine / "skills" / "evil\n").exists()


@pytest.mark.parametrize("category", [" cat", "cat\n", "cat "])
def test_a_category_with_spaces_or_a_line_break_around_it(oracle, make_home, tmp_path, category):
    """Hermes checks the category stripped but makes the folder as given (`skills/ cat/x/`); hmc
    refuses it."""
    _shown_from_0_18_1(oracle)
    writes = [{"action": "create", "name": "catted", "category": category,
               "content": skill_md("catted", "Catted.", "Body.")}]
    home, mine = _staged_pair(oracle, make_home, tmp_path, writes)
    release = oracle.skills_pending(home, ["approve", "all"])
    assert release["pending"] == []
    if f"{category}/catted/SKILL.md" not in release["skills_files"]:
        _not_shown(oracle, release, "catted")
    queue = SkillQueue(mine, lock_dir=tmp_path)
    before = home_files(mine, "skills")
    done, failed = queue.approve_all()
    assert done == [] and failed[0][1] == INVALID and "Invalid category" in failed[0][2]
    assert home_files(mine, "skills") == before
