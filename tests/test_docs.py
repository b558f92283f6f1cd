"""The guide (README.md and docs/) stays true to the code (issue 36).

- every relative link and image in README.md and docs/*.md resolves to a file, and a `#anchor` to a
  heading of the target (GitHub's slugs);
- every subcommand hmc's parser has is documented in docs/cli.md under its own heading
  (`### hmc <cmd> <sub>`), with every long option it takes named in that section;
- every key hmc binds (the BINDINGS of the app and of every screen, dialog and widget class in tui/)
  has a row in docs/settings-and-keys.md (or the page of its screen) naming its binding id and each of
  its keys, so a binding added without docs fails, naming the key and the screen.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]

# The pages the TUI's help dialog links by name: each must exist.
EXPECTED_PAGES = ["memory", "pending", "search", "review", "history", "why", "profiles", "doctor",
                  "settings-and-keys", "cli", "releases", "performance", "architecture"]

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def prose(text: str) -> str:
    """The text outside fenced code blocks (a `[x](y)` in code is not a link)."""
    return FENCE.sub("", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces to -."""
    text = re.sub(r"`|\*\*|\*|_(?=\w)|(?<=\w)_", "", heading.strip()).lower()
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    out: set[str] = set()
    seen: dict[str, int] = {}
    for line in prose(path.read_text(encoding="utf-8")).splitlines():
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = slug(m[1])
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else f"{s}-{n}")
    return out


def test_the_pages_the_help_dialog_links_exist():
    missing = [f"docs/{name}.md" for name in EXPECTED_PAGES if not (DOCS / f"{name}.md").is_file()]
    assert not missing, missing
    assert (DOCS / "README.md").is_file() or (DOCS / "index.md").is_file()


def links() -> list[tuple[Path, str]]:
    out = []
    for page in PAGES:
        for target in LINK.findall(prose(page.read_text(encoding="utf-8"))):
            if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
                continue  # https:, mailto: … : not checked here
            out.append((page, target))
    return out


def test_there_are_links_to_check():
    found = links()
    assert len(found) > 100, len(found)
    assert any(t.endswith(".svg") for _, t in found)


@pytest.mark.parametrize("page", PAGES, ids=rel)
def test_every_relative_link_and_image_resolves(page):
    broken = []
    for source, target in links():
        if source != page:
            continue
        path_part, _, anchor = target.partition("#")
        dest = (page.parent / unquote(path_part)).resolve() if path_part else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
            continue
        if anchor:
            if dest.suffix != ".md":
                broken.append(f"{target}: an anchor into a file that isn't Markdown")
            elif anchor not in anchors(dest):
                broken.append(f"{target}: no heading #{anchor} in {rel(dest)}")
    assert not broken, f"{rel(page)}:\n  " + "\n  ".join(broken)


def test_slugs_follow_github():
    assert slug("To repair a drifted file (`r`)") == "to-repair-a-drifted-file-r"
    assert slug("Promises the agent didn't keep") == "promises-the-agent-didnt-keep"
    assert slug("In your shell prompt: `hmc status --short`") == "in-your-shell-prompt-hmc-status---short"
    assert slug("hmc's own state follows the home, not its path") == "hmcs-own-state-follows-the-home-not-its-path"


# --- the command line ---------------------------------------------------------------------------


def commands() -> dict[str, list[str]]:
    """Every `hmc CMD [SUB]` the parser has -> its long options (walking hmc's own parser, as
    shell completion does)."""
    from tui.cli.main import build_parser

    out: dict[str, list[str]] = {}

    def walk(parser: argparse.ArgumentParser, name: str) -> None:
        options = sorted({o for a in parser._actions for o in a.option_strings
                          if o.startswith("--") and o != "--help"})
        group = any(isinstance(a, argparse._SubParsersAction) for a in parser._actions)
        if name and (options or not group):  # `memory`, `pending`: only words for their subcommands
            out[name] = options
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for word, child in action.choices.items():
                    walk(child, f"{name} {word}".strip())

    walk(build_parser(), "")
    return out


def cli_sections() -> dict[str, str]:
    """docs/cli.md's sections by heading text (any level), each up to the next heading."""
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    out: dict[str, str] = {}
    parts = re.split(r"^#{2,6}\s+(.+?)\s*$", text, flags=re.M)
    for heading, body in zip(parts[1::2], parts[2::2]):
        out[heading.strip("` ")] = body
    return out


def test_the_parser_is_walked():
    found = commands()
    for name in ("status", "memory add", "pending approval", "config set", "completion", "why"):
        assert name in found, sorted(found)
    assert "--json" in found["memory list"]


@pytest.mark.parametrize("command", sorted(commands()))
def test_every_subcommand_is_documented_in_the_cli_reference(command):
    sections = cli_sections()
    heading = f"hmc {command}"
    assert heading in sections, (f"`{heading}` has no section in docs/cli.md: add a `### {heading}` "
                                 "heading with its flags and JSON shape")
    body = sections[heading]
    if command == "status":  # `status --short`'s own options are in its subsection
        body += next((b for h, b in sections.items() if h.startswith("In your shell prompt")), "")
    missing = [o for o in commands()[command] if not re.search(re.escape(o) + r"(?![\w-])", body)]
    assert not missing, f"docs/cli.md's `{heading}` section doesn't name {missing}"


def test_the_global_options_are_documented():
    from tui.cli.main import build_parser

    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    section = text.split("## Global options", 1)[1].split("\n## ", 1)[0]
    options = {o for a in build_parser()._actions for o in a.option_strings if o.startswith("--")} - {"--help"}
    missing = sorted(o for o in options if f"`{o}" not in section)
    assert not missing, f"docs/cli.md's Global options don't name {missing}"


# --- keys -----------------------------------------------------------------------------------------

# How docs write a Textual key name (in a code span: `Esc`, `/`, `ctrl+s`).
KEY_NAMES = {"slash": "/", "question_mark": "?", "escape": "Esc", "enter": "Enter", "delete": "Delete",
             "space": "Space", "tab": "Tab", "down": "↓", "up": "↑", "left": "←", "right": "→",
             "pagedown": "PgDn", "pageup": "PgUp", "home": "Home", "end": "End", "plus": "+", "minus": "-"}

# The page of each screen's module (its keys may be documented there instead of settings-and-keys.md).
PAGE_OF_MODULE = {"memory": "memory.md", "time_travel": "history.md", "pending": "pending.md",
                  "pending_skills": "pending.md", "queue": "pending.md", "skill_edit": "pending.md",
                  "search": "search.md", "search_transcript": "search.md", "loaded_memory": "why.md",
                  "why": "why.md", "review": "review.md", "profiles": "profiles.md", "timeline": "history.md",
                  "entry_history": "history.md", "first_run": "cli.md"}


def key_name(key: str) -> str:
    key = key.strip()
    if key.startswith("f") and key[1:].isdigit():
        return key.upper()
    return KEY_NAMES.get(key, key)


def bound_classes() -> list[type]:
    """Every class in tui/ (the app, tui.screens.*, tui.widgets.*) that declares BINDINGS itself."""
    from textual.dom import DOMNode

    import tui.screens
    import tui.widgets

    names = ["tui.app"]
    for package in (tui.screens, tui.widgets):
        names += [f"{package.__name__}.{m.name}" for m in pkgutil.iter_modules(package.__path__)]
    out = []
    for name in names:
        module = importlib.import_module(name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == name and issubclass(cls, DOMNode) and "BINDINGS" in cls.__dict__:
                out.append(cls)
    return out


def bindings() -> list[tuple[str, str, str, str]]:
    """(screen, binding id, key, the module's short name) for every key of every binding hmc declares."""
    from textual.binding import Binding

    out = []
    for cls in bound_classes():
        textuals = {(key.strip(), b.action) for base in cls.__mro__ if base.__module__.startswith("textual.")
                    for b in base.__dict__.get("BINDINGS", ()) if isinstance(b, Binding)
                    for key in b.key.split(",")}  # a Textual widget's own keys kept as they are (TextArea's moves)
        for binding in cls.__dict__["BINDINGS"]:
            if binding.id is None and all((k.strip(), binding.action) in textuals for k in binding.key.split(",")):
                continue
            assert isinstance(binding, Binding), (cls, binding)  # hmc's bindings are Binding objects with ids
            screen = f"{cls.__module__}.{cls.__qualname__}"
            assert binding.id, f"{screen}: the binding {binding.key!r} has no id (config.toml's [keys] needs one)"
            for key in binding.key.split(","):
                out.append((screen, binding.id, key.strip(), cls.__module__.rsplit(".", 1)[-1]))
    return out


def table_rows(text: str) -> list[str]:
    return [line for line in prose(text).splitlines() if line.lstrip().startswith("|")]


def test_the_bindings_are_walked():
    found = {(b[1], b[2]) for b in bindings()}
    for expected in (("app.help", "question_mark"), ("memory.add", "a"), ("pending.approve", "y"),
                     ("dialog.help", "f1"), ("list.down", "j"), ("search.suggestion", "ctrl+y")):
        assert expected in found
    assert len(found) > 100


@pytest.mark.parametrize("screen,binding_id,key,module", bindings(), ids=lambda v: str(v))
def test_every_key_is_documented(screen, binding_id, key, module):
    """A table row in docs/settings-and-keys.md (or the screen's own page) that names the binding id
    in a code span and the key in one (`Esc`, `/`, `ctrl+s`, `A`…)."""
    pages = [DOCS / "settings-and-keys.md"] + ([DOCS / PAGE_OF_MODULE[module]] if module in PAGE_OF_MODULE else [])
    shown = key_name(key)
    rows = [row for page in pages for row in table_rows(page.read_text(encoding="utf-8"))
            if f"`{binding_id}`" in row]
    assert rows, (f"the key {shown!r} ({key!r}) of {screen} (binding id {binding_id!r}) is not documented: "
                  f"add a row with `{shown}` and `{binding_id}` to docs/settings-and-keys.md "
                  "(\"New keys, to document\" takes it until it finds its table)")
    assert any(f"`{shown}`" in row for row in rows), (
        f"the key {shown!r} ({key!r}) of {screen} is bound to {binding_id!r}, but no row of that binding "
        f"in docs/settings-and-keys.md names `{shown}`:\n" + "\n".join(rows))


def test_no_documented_binding_id_is_gone():
    """A binding id in the keys page's tables that no binding has any more (renamed or removed)."""
    ids = {b[1] for b in bindings()}
    text = (DOCS / "settings-and-keys.md").read_text(encoding="utf-8")
    documented = set()
    for row in table_rows(text):
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        last = cells[-1] if cells else ""
        documented |= set(re.findall(r"`([a-z_]+(?:\.[a-z_]+)+)`", last))
    gone = sorted(documented - ids)
    assert not gone, f"docs/settings-and-keys.md documents binding ids hmc no longer has: {gone}"
