"""A `skills/` folder that is itself a symlink (skills kept in a dotfiles or git checkout) is written
through, as Hermes writes through it; links *inside* skills/ stay refused (issue 20, decided)."""

from __future__ import annotations

import shutil

from core.pending import skills as sk
from tests.core.test_pending_skills import home, queue, skill_md, stage, tree  # noqa: F401  (home: a fixture)


def test_a_linked_skills_folder_is_written_through(home, tmp_path):  # noqa: F811
    target = tmp_path / "dotfiles" / "skills"
    shutil.move(home / "skills", target)
    (home / "skills").symlink_to(target)
    q = queue(home, tmp_path)
    ids = [
        stage(home, {"action": "edit", "name": "alpha", "content": skill_md("alpha", "v2")}),
        stage(home, {"action": "write_file", "name": "alpha", "file_path": "references/new.md",
                     "file_content": "new\n"}),
        stage(home, {"action": "create", "name": "fresh", "category": "ops", "content": skill_md("fresh")}),
    ]
    for rid in ids:
        assert q.inspect(q.get(rid)).can_apply, rid
    done, failed = q.approve_all()
    assert (done, failed) == (ids, [])
    assert (home / "skills").is_symlink()  # still the link, the files written where it points
    assert "description: v2" in (target / "alpha" / "SKILL.md").read_text()
    assert (target / "alpha" / "references" / "new.md").read_text() == "new\n"
    assert (target / "ops" / "fresh" / "SKILL.md").read_text() == skill_md("fresh")


def test_links_inside_a_linked_skills_folder_stay_refused(home, tmp_path):  # noqa: F811
    target = tmp_path / "dotfiles" / "skills"
    shutil.move(home / "skills", target)
    (home / "skills").symlink_to(target)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.md").write_text("precious\n")
    (target / "alpha" / "references" / "ln.md").symlink_to(outside / "precious.md")
    q = queue(home, tmp_path)
    rid = stage(home, {"action": "write_file", "name": "alpha", "file_path": "references/ln.md",
                       "file_content": "pwned"})
    ins = q.inspect(q.get(rid))
    assert not ins.can_apply and ins.kind == sk.ESCAPES
    before = tree(outside)
    q.approve_all()
    assert tree(outside) == before


def test_undo_of_an_approval_in_a_linked_skills_folder(home, tmp_path):  # noqa: F811
    target = tmp_path / "dotfiles" / "skills"
    shutil.move(home / "skills", target)
    (home / "skills").symlink_to(target)
    before = tree(target)
    q = queue(home, tmp_path)
    stage(home, {"action": "edit", "name": "alpha", "content": skill_md("alpha", "v2")})
    q.approve_all()
    assert tree(target) != before
    q.undo()
    assert tree(target) == before and (home / "skills").is_symlink()
