"""The command palette's provider: every action of the screen beneath as "area: Verb"."""

from __future__ import annotations

from textual.command import DiscoveryHit, Hit, Hits, Provider


class CuratorCommands(Provider):
    """Lists `app.palette_commands()`: modes, the current screen's actions, profiles."""

    async def discover(self) -> Hits:
        for title, help_text, callback in self.app.palette_commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self.app.palette_commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
