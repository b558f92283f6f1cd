"""Every profile's open review findings, counted by severity: what the review screen's profile
switch lists (`hmc review --all-profiles` prints the findings themselves, profile by profile).

Counting reviews each profile as the review screen would (its kept decisions hidden) and records
nothing: no profile's review is marked done by being counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # pragma: no cover
    from core.curator import Curator


@dataclass(frozen=True)
class ProfileFindings:
    profile: str
    counts: dict[str, int] | None  # severity -> open findings; None: the profile couldn't be reviewed
    why: str = ""  # why it couldn't

    @property
    def total(self) -> int:
        return sum(self.counts.values()) if self.counts else 0

    def said(self) -> str:
        """"3 findings: 1 warning, 2 info", "nothing to fix", or why it couldn't be reviewed."""
        if self.counts is None:
            return f"can't be reviewed: {self.why}"
        if not self.total:
            return "nothing to fix"
        from core.review.findings import SEVERITIES

        parts = [f"{self.counts[s]} {s}" for s in reversed(SEVERITIES) if self.counts.get(s)]
        return f"{self.total} finding{'s' if self.total != 1 else ''}: {', '.join(parts)}"


def by_profile(curator: "Curator", *, stale_days: int, old_days: int | None,
               should_stop: Callable[[], bool] | None = None) -> list[ProfileFindings]:
    """Each profile of `curator`'s home (the current one as it is), its open findings counted."""
    from core.profiles import curators
    from core.review.findings import decisions, run_review

    out = []
    for name, other, why in curators(curator):
        if should_stop is not None and should_stop():
            break
        if other is None:
            out.append(ProfileFindings(name, None, why))
            continue
        try:
            findings = run_review(other, include_kept=True, fresh=other is not curator, stale_days=stale_days,
                                  old_days=old_days)
            kept = decisions(other).kept_keys()
        except Exception as exc:  # noqa: BLE001 - one profile's damage must not hide the others
            out.append(ProfileFindings(name, None, str(exc) or type(exc).__name__))
            continue
        counts: dict[str, int] = {}
        for f in findings:
            if f.key not in kept:
                counts[f.severity] = counts.get(f.severity, 0) + 1
        out.append(ProfileFindings(name, counts))
    return out
