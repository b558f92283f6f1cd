"""The demo home's pending records get the verdicts they were planted for."""

from __future__ import annotations

from core.curator import open_curator
from core.demo.build import DEMO_TODAY, MALFORMED_ID, PENDING_IDS, build_demo_home
from core.pending.queue import BROKEN, HERMES_SCAN, LIMIT, PIN_CHANGED, SCANNER, UNPINNED


def test_demo_verdicts(tmp_path):
    home = build_demo_home(tmp_path / "hermes", DEMO_TODAY)
    queue = open_curator(home, today=DEMO_TODAY).pending
    records = queue.list()
    ids = [r.id for r in records]
    assert sorted(ids) == sorted([*PENDING_IDS.values(), MALFORMED_ID])  # skill writes are not ours
    assert [r.created_at for r in records if r.id != MALFORMED_ID] == sorted(
        r.created_at for r in records if r.id != MALFORMED_ID)
    ins = {i.id: i for i in queue.inspect_all(records)}
    by = {key: ins[rid] for key, rid in PENDING_IDS.items()}
    assert ins[MALFORMED_ID].reason_kind == BROKEN
    assert by["stale_pin"].reason_kind == PIN_CHANGED
    assert by["over_limit"].reason_kind == LIMIT
    assert by["scanner"].reason_kind == HERMES_SCAN and by["secret"].reason_kind == SCANNER
    assert by["bg_duplicate"].already_in_memory and by["bg_duplicate"].can_apply
    assert by["group_a"].group == by["group_b"].group and queue.groups(ins.values())[by["group_a"].group] == [
        PENDING_IDS["group_a"], PENDING_IDS["group_b"]]
    for key in ("add", "patch_pinned", "remove_pinned", "batch"):
        assert by[key].can_apply, (key, by[key].reason)
    assert by["patch_pinned"].record.action == "patch" and by["stale_pin"].record.action == "patch"
    # the one record 0.20 staged before the upgrade: 0.22.2 (the demo's release) refuses it unpinned
    assert by["replace_unpinned"].record.unpinned and not by["patch_pinned"].record.unpinned
    assert by["replace_unpinned"].reason_kind == UNPINNED and not by["replace_unpinned"].can_apply
    assert "staged by an older Hermes" in by["replace_unpinned"].reason
    assert [k for k, i in by.items() if i.record.unpinned] == ["replace_unpinned"]


def test_demo_approve_all_then_nothing_applicable_is_left(tmp_path):
    home = build_demo_home(tmp_path / "hermes", DEMO_TODAY)
    queue = open_curator(home, today=DEMO_TODAY).pending
    report = queue.approve_all()
    left = {f.id for f in report.failed}
    assert left == {PENDING_IDS["stale_pin"], PENDING_IDS["over_limit"], PENDING_IDS["scanner"],
                    PENDING_IDS["secret"], PENDING_IDS["replace_unpinned"], MALFORMED_ID}
    assert {r.id for r in queue.list()} == left
    assert not queue.approve_all().done  # a second pass applies nothing twice


def test_clear_invalid_on_the_demo_keeps_what_may_apply_later(tmp_path):
    """`reject_invalid` clears only what can never apply: the stale pin, the half-written file, the
    injection Hermes's own scan refuses and the record 0.22.2 refuses for want of a pin. The
    over-limit record (memory may shrink) and the secret only hmc's wider scan flags stay, even once
    they are also over the limit after approve-all."""
    home = build_demo_home(tmp_path / "hermes", DEMO_TODAY)
    queue = open_curator(home, today=DEMO_TODAY).pending
    queue.approve_all()
    ins = {i.id: i for i in queue.inspect_all()}
    hit = ins[PENDING_IDS["secret"]]
    assert hit.scanner_hit and not hit.never_applies, hit.reason_kind
    assert ins[PENDING_IDS["scanner"]].never_applies
    assert not ins[PENDING_IDS["over_limit"]].never_applies
    report = queue.reject_invalid()
    assert set(report.done) == {PENDING_IDS["stale_pin"], MALFORMED_ID, PENDING_IDS["scanner"],
                                PENDING_IDS["replace_unpinned"]}
    assert {r.id for r in queue.list()} == {PENDING_IDS["over_limit"], PENDING_IDS["secret"]}


def test_unpinned_replace_is_refused_until_edited(tmp_path):
    """On 0.22.2 the unpinned record is refused (no 'check the diff' warning: it can't apply at all)."""
    home = build_demo_home(tmp_path / "hermes", DEMO_TODAY)
    queue = open_curator(home, today=DEMO_TODAY).pending
    ins = {i.id: i for i in queue.inspect_all()}
    unpinned = ins[PENDING_IDS["replace_unpinned"]]
    assert not unpinned.unpinned_ok and unpinned.reason_kind == UNPINNED
    assert not ins[PENDING_IDS["patch_pinned"]].unpinned_ok and not ins[PENDING_IDS["add"]].unpinned_ok
    broken = ins[MALFORMED_ID].record
    assert broken.broken and not broken.dated
    assert ins[PENDING_IDS["add"]].record.dated


def test_demo_skill_verdicts_and_approve_all(tmp_path):
    """A realistic skills queue: five writes that apply, a stale patch and a `../` path that don't."""
    from core.demo.build import PENDING_SKILL_IDS
    from core.pending.skills import ESCAPES, NO_MATCH, SkillQueue

    home = build_demo_home(tmp_path / "hermes", DEMO_TODAY)
    queue = SkillQueue(home, lock_dir=tmp_path)
    ins = {i.id: i for i in (queue.inspect(r) for r in queue.list())}
    by = {key: ins[rid] for key, rid in PENDING_SKILL_IDS.items()}
    assert by["patch_stale"].kind == NO_MATCH and by["escape"].kind == ESCAPES
    for key in ("create", "patch", "edit", "write_file", "delete"):
        assert by[key].can_apply, (key, by[key].reason)
    assert [c.kind for c in by["delete"].changes] == ["delete"]
    assert by["write_file"].changes[0].path == "paylane-webhook-debug/scripts/check-clock.sh"
    assert queue.simulate_all() == (5, 2)
    escape_target = (home / "skills/tideway-release/SKILL.md").read_bytes()
    done, failed = queue.approve_all()
    assert sorted(done) == sorted(PENDING_SKILL_IDS[k] for k in ("create", "patch", "edit", "write_file", "delete"))
    assert {f[0] for f in failed} == {PENDING_SKILL_IDS["patch_stale"], PENDING_SKILL_IDS["escape"]}
    assert not (home / "skills/csv-export-v1").exists()
    assert (home / "skills/paylane-webhook-replay/SKILL.md").is_file()
    assert (home / "skills/paylane-webhook-debug/scripts/check-clock.sh").is_file()
    assert "-n auto" in (home / "skills/tideway-release/SKILL.md").read_text()
    assert "skip the tests" not in (home / "skills/tideway-release/SKILL.md").read_text()
    assert escape_target != b"" and "every Monday" in (home / "skills/weekly-ops-report/SKILL.md").read_text()
