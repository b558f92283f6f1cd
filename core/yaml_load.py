"""Parsing config text with PyYAML, safely, as a release does (core.home.load_yaml is the way in).

Its own module so that importing core.home doesn't import PyYAML (~20 ms of start-up): it is
imported only when YAML text must actually be parsed (a config.yaml not in hmc's cache, a skill's
front matter, an edit of config.yaml).
"""

from __future__ import annotations

import re

import yaml


class _NoAliasLoader(yaml.SafeLoader):
    """PyYAML's safe loader without anchors/aliases: an alias bomb (a 1 KB file that expands to
    gigabytes) can't be expanded. No Hermes setting needs an alias."""

    def compose_node(self, parent, index):  # type: ignore[override]
        if self.check_event(yaml.events.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not allowed here",
                                              event.start_mark)
        return super().compose_node(parent, index)


class _Yaml11Loader(_NoAliasLoader):
    """0.22's YAML policy (ruamel, YAML 1.1): bare y/Y/n/N are booleans too, and a mapping that
    repeats a key is an error (the release then falls back to its defaults)."""

    def construct_mapping(self, node, deep=False):  # type: ignore[override]
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                hashable = hash(key) is not None
            except TypeError:
                hashable = False
            if hashable and key in seen:
                raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}",
                                                        key_node.start_mark)
            if hashable:
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


_Yaml11Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:y|Y|n|N)$"), list("yYnN"))
_Yaml11Loader.bool_values = {**yaml.SafeLoader.bool_values, "y": True, "n": False}


def load(raw: str, yaml11: bool = False) -> object:
    """Parse config text: no aliases, no deep nesting blowing the stack (raises ValueError).
    `yaml11`: 0.22's policy (YAML 1.1 with y/n booleans and no repeated keys)."""
    loader = _Yaml11Loader if yaml11 else _NoAliasLoader
    try:
        return yaml.load(raw, Loader=loader)  # noqa: S506 (a SafeLoader subclass)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None)
        detail = (" (aliases are not allowed)" if problem and "aliases" in str(problem)
                  else " (a key appears twice)" if problem and "duplicate key" in str(problem) else "")
        raise ValueError(f"config.yaml is not valid YAML{where}{detail}") from None
    except RecursionError:
        raise ValueError("config.yaml is nested too deeply to read") from None
