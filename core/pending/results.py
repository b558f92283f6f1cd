"""What approving and rejecting memory records returns (core/pending/queue.py re-exports these)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.store.memory import WriteResult


@dataclass(frozen=True)
class Approval:
    id: str
    target: str
    result: WriteResult
    edited: bool = False
    warnings: tuple[str, ...] = ()
    auto: bool = False  # the background review staged it (and it was approved as staged)

    @property
    def changed(self) -> bool:
        return self.result.changed


@dataclass(frozen=True)
class Failure:
    id: str
    kind: str
    reason: str


@dataclass(frozen=True)
class Report:
    """What `approve_all` / `reject_all` did: each success, each failure (the record kept)."""

    done: tuple[Any, ...] = ()  # Approval (approve) or record ids (reject)
    failed: tuple[Failure, ...] = ()
    skipped: tuple[str, ...] = ()  # staged after the person looked: left for them

    @property
    def ok(self) -> bool:
        return not self.failed
