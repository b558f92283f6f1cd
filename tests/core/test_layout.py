"""The package layout of core/ and tui/: no import cycles, at any depth (module level, functions,
TYPE_CHECKING), and no import upwards."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "core"
TUI = ROOT / "tui"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(*packages: Path) -> dict[str, set[str]]:
    """Who imports whom among the modules of `packages` (default: core/ and tui/)."""
    modules = {_module_name(p): p for package in (packages or (CORE, TUI)) for p in package.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            for target in targets:
                if target in modules and target != name and not name.startswith(target + "."):
                    graph[name].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_core_has_no_import_cycles():
    assert find_cycle(import_graph(CORE)) is None, " -> ".join(find_cycle(import_graph(CORE)) or [])


def test_tui_has_no_import_cycles():
    assert find_cycle(import_graph(TUI)) is None, " -> ".join(find_cycle(import_graph(TUI)) or [])


def test_no_import_cycles_anywhere():
    assert find_cycle(import_graph()) is None, " -> ".join(find_cycle(import_graph()) or [])


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


# Lower first: a package may import only those before it (DESIGN.md: no import cycles, a lower
# package never imports a higher one). Top-level modules (home, curator, timefmt) sit where listed.
LAYERS = ("hermes", "timefmt", "progress", "hmc_cache", "scan", "store", "clean_texts", "dataclass_code", "yaml_load", "config_cache", "home", "sessions", "snapshots", "pending", "curator", "timeline", "review", "why", "demo",
          "doctor",
          "settings")


def test_lower_packages_never_import_higher_ones():
    rank = {name: i for i, name in enumerate(LAYERS)}
    bad = []
    for module, targets in import_graph(CORE).items():
        if "." not in module:
            continue
        mine = module.split(".")[1]
        for target in targets:
            if "." not in target:
                continue
            theirs = target.split(".")[1]
            if mine != theirs and rank.get(theirs, -1) > rank.get(mine, len(LAYERS)):
                bad.append(f"{module} -> {target}")
    assert not bad, bad


# tui/ in the same form, lower first: the literal renderer, widgets (dumb), screens, the modes, the
# palette, the app, and the command line on top (it opens the app). Screens and widgets never
# import the command line, the app or the palette.
TUI_LAYERS = ("literal", "guide", "widgets", "screens", "modes", "palette", "app", "cli")


def test_lower_tui_rooms_never_import_higher_ones():
    rank = {name: i for i, name in enumerate(TUI_LAYERS)}
    bad = []
    for module, targets in import_graph(TUI).items():
        if "." not in module:
            continue
        mine = module.split(".")[1]
        for target in targets:
            if "." not in target:
                continue
            theirs = target.split(".")[1]
            if mine != theirs and rank.get(theirs, -1) > rank.get(mine, len(TUI_LAYERS)):
                bad.append(f"{module} -> {target}")
    assert not bad, bad



def test_every_tui_module_has_a_room():
    rooms = {module.split(".")[1] for module in import_graph(TUI) if module.count(".") >= 1}
    assert rooms <= set(TUI_LAYERS), sorted(rooms - set(TUI_LAYERS))


def test_every_package_says_what_lives_there_and_what_it_may_import():
    missing = []
    for package in (CORE, TUI):
        for init in sorted(package.rglob("__init__.py")):
            doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
            if "May import" not in doc and "Import rule" not in doc:
                missing.append(str(init.relative_to(ROOT)))
    assert not missing, missing
