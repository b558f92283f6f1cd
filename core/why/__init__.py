"""`hmc why TEXT`: "I told it, and it forgot" — one answer from every cause hmc can see.

Given a fact in the user's words, `why(curator, text)` traces it through everything hmc reads, in
every profile, and gives a verdict per cause (yes / no / unknown), most likely first, each with its
evidence and one thing to do:

- `in-memory`: an entry holds it now (which store, profile and entry);
- `not-loaded`: it is in memory, but an open session loaded an older snapshot (a resumed session and
  a gateway chat never reload);
- `pending`: a staged record holds it, waiting for approval;
- `refused`: the agent tried and the tool said no (the release's reason, for a person);
- `removed`: it was in memory and a write removed or replaced it (the history);
- `never-saved`: the user asked, or the agent said it saved it, and no memory write followed;
- `not-asked`: it is only in conversation: no save was asked for or attempted;
- `other-profile`: another profile's memory holds it, or the stale `profiles/default/` folder (the
  default profile's memory is `<home>/memories`);
- `disabled`: memory is off for the store, or the memory tool is off on the platform the fact came
  from (core.hermes.toolsets);
- `provider`: an external memory provider is set: hmc can't see inside it;
- `pruned`: Hermes deleted old sessions, so where it was said may be gone.

The modules: trace (reading the sources), causes (the verdicts); what holds the fact is
core.review.facts.

May import: the standard library and every core package before it (why reads them all: hermes, store,
home, sessions, pending, snapshots, timeline, review, curator).
"""

from __future__ import annotations

from core.why.causes import CAUSES, Answer, Cause, evidence_line, why
from core.review.facts import Fact, FactError

__all__ = ["CAUSES", "Answer", "Cause", "Fact", "FactError", "evidence_line", "why"]
