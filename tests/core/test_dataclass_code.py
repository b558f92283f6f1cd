"""core.dataclass_code: the code `dataclasses` compiles, kept between runs. A class defined from the
kept code is the class a plain definition gives; a run after the first compiles nothing; any file
that isn't what hmc wrote for this interpreter is ignored; `dataclasses` gets the builtin back."""

from __future__ import annotations

import dataclasses
import json
import marshal
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from core import dataclass_code
from core.hmc_cache import frame

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def builtin_exec_back():
    yield
    dataclass_code.deactivate()
    assert "exec" not in vars(dataclasses)


def define_all(tag: str = "") -> dict[str, type]:
    """One class of each shape hmc uses (and a few it might): frozen, defaults, factories, keyword
    only, slots, order, no eq, a subclass, a post-init."""
    out: dict[str, type] = {}

    @dataclasses.dataclass(frozen=True)
    class Frozen:
        a: int
        b: str = "x"
        c: tuple = ()
    out["Frozen"] = Frozen

    @dataclasses.dataclass
    class Factories:
        items: list = dataclasses.field(default_factory=list)
        table: dict = dataclasses.field(default_factory=dict)
        hidden: int = dataclasses.field(default=0, repr=False, compare=False)
    out["Factories"] = Factories

    @dataclasses.dataclass(frozen=True, kw_only=True)
    class KwOnly:
        name: str
        size: int = 3
    out["KwOnly"] = KwOnly

    @dataclasses.dataclass(slots=True, eq=False)
    class Slotted:
        x: float
        y: float = 0.5
    out["Slotted"] = Slotted

    @dataclasses.dataclass(order=True, frozen=True)
    class Ordered:
        rank: int
        label: str
    out["Ordered"] = Ordered

    @dataclasses.dataclass(frozen=True)
    class Child(Frozen):
        d: int = 7
    out["Child"] = Child

    @dataclasses.dataclass
    class PostInit:
        raw: str
        size: int = dataclasses.field(init=False)

        def __post_init__(self) -> None:
            self.size = len(self.raw)
    out["PostInit"] = PostInit
    return out


def behaviour(classes: dict[str, type]) -> list:
    """What each class does: its repr, equality, hash, order, frozenness, defaults and signature."""
    import inspect

    F, Fa, K, S, O, C, P = (classes[n] for n in ("Frozen", "Factories", "KwOnly", "Slotted", "Ordered", "Child",
                                                  "PostInit"))
    seen: list = []
    f = F(1)
    seen += [repr(f).split(".")[-1], f == F(1, "x", ()), f == F(2), hash(f) == hash(F(1)), f.b, f.c]
    try:
        f.a = 3
        seen.append("assigned")
    except dataclasses.FrozenInstanceError as exc:
        seen.append(f"frozen: {exc}")
    try:
        del f.a
        seen.append("deleted")
    except dataclasses.FrozenInstanceError as exc:
        seen.append(f"frozen: {exc}")
    a, b = Fa(), Fa()
    a.items.append(1)
    seen += [b.items, repr(Fa([2], {"k": 1}, 5)).split(".")[-1], Fa([1], hidden=1) == Fa([1], hidden=2)]
    seen += [repr(K(name="n")).split(".")[-1], str(inspect.signature(K))]
    with pytest.raises(TypeError):
        K("positional")
    s = S(1.0)
    seen += [repr(s).split(".")[-1], s == S(1.0), hasattr(s, "__dict__"), S.__slots__]
    seen += [sorted([O(2, "b"), O(1, "z"), O(1, "a")]) == [O(1, "a"), O(1, "z"), O(2, "b")], O(1, "a") < O(1, "b")]
    seen += [repr(C(1, d=2)).split(".")[-1], C(1) == F(1), str(inspect.signature(C))]
    seen += [P("four").size, repr(P("ab")).split(".")[-1], str(inspect.signature(P))]
    seen += [[f.name for f in dataclasses.fields(cls)] for cls in classes.values()]
    seen += [dataclasses.asdict(F(5, "y", (1,))), dataclasses.replace(F(1), b="z").b]
    return seen


def test_classes_from_kept_code_behave_as_plain_ones(tmp_path):
    plain = behaviour(define_all())
    path = tmp_path / "dc.cache"
    first = dataclass_code.activate(path)
    compiled_first = behaviour(define_all())
    assert first.compiled > 0
    dataclass_code.deactivate()
    assert path.is_file() and (path.stat().st_mode & 0o777) == 0o600
    second = dataclass_code.activate(path)
    kept = behaviour(define_all())
    assert second.compiled == 0, "every source was in the file: nothing is compiled again"
    assert plain == compiled_first == kept


def test_kept_code_is_what_the_builtin_compiles(tmp_path):
    path = tmp_path / "dc.cache"
    dataclass_code.activate(path)
    define_all()
    dataclass_code.deactivate()
    kept = dataclass_code.activate(path)
    assert kept.codes
    for source, code in kept.codes.items():
        assert code == compile(source, "<string>", "exec", dont_inherit=True)


def test_methods_from_kept_code_are_equal_functions(tmp_path):
    """The generated functions themselves: same code, same defaults, same names."""
    plain = define_all()
    path = tmp_path / "dc.cache"
    dataclass_code.activate(path)
    define_all()
    dataclass_code.deactivate()
    dataclass_code.activate(path)
    kept = define_all()
    for name in plain:
        for method in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__", "__lt__"):
            a, b = vars(plain[name]).get(method), vars(kept[name]).get(method)
            assert (a is None) == (b is None), (name, method)
            if callable(a) and hasattr(a, "__code__"):
                assert a.__code__ == b.__code__ and a.__defaults__ == b.__defaults__ and a.__qualname__ == b.__qualname__


def test_the_builtin_is_given_back(tmp_path):
    dataclass_code.activate(tmp_path / "dc.cache")
    assert vars(dataclasses)["exec"].__self__ is dataclass_code._active
    dataclass_code.deactivate()
    assert "exec" not in vars(dataclasses)
    dataclass_code.deactivate()  # twice: nothing to do
    assert behaviour(define_all()) == behaviour(define_all())


def test_a_source_that_isnt_text_goes_to_the_builtin(tmp_path):
    kept = dataclass_code.activate(tmp_path / "dc.cache")
    ns: dict = {}
    kept.exec(compile("x = 41 + 1", "<t>", "exec"), {}, ns)
    assert ns == {"x": 42} and kept.compiled == 0 and not kept.codes
    kept.exec("y = 2", {}, ns, closure=None)  # a keyword a later dataclasses might pass: the builtin's
    assert ns["y"] == 2 and kept.compiled == 0 and not kept.codes


def written(tmp_path) -> tuple[Path, bytes]:
    path = tmp_path / "dc.cache"
    dataclass_code.activate(path)
    define_all()
    dataclass_code.deactivate()
    return path, path.read_bytes()


def body_of(data: bytes) -> bytes:
    return data[data.index(b"\n") + 1:]


def framed(body: bytes) -> bytes:
    return frame(body) + body


def damaged_shapes(data: bytes, rng: random.Random) -> dict[str, bytes]:
    body = body_of(data)
    version = dataclass_code.VERSION_LINE
    codes = marshal.loads(body[len(version):])
    source = next(iter(codes))
    cut = rng.randrange(1, len(data) - 1)
    return {
        "empty": b"",
        "torn": data[:cut],
        "garbage": bytes(rng.randrange(256) for _ in range(2000)),
        "edited without its frame": data[:-5] + b"XXXXX",
        "another python": framed(b"2.7.18 (default)\ncpython-27\n" + body[len(version):]),
        "no version line": framed(body[len(version):]),
        "not marshal": framed(version + b"\x00garbage\xff" * 10),
        "a list": framed(version + marshal.dumps(list(codes.values()))),
        "text for code": framed(version + marshal.dumps({source: "print('no')"})),
        "bytes for a source": framed(version + marshal.dumps({source.encode(): codes[source]})),
    }


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_file_that_isnt_hmcs_for_this_python_is_ignored(tmp_path, seed):
    rng = random.Random(seed)
    path, data = written(tmp_path)
    plain = behaviour(define_all())
    for name, bad in damaged_shapes(data, rng).items():
        path.write_bytes(bad)
        kept = dataclass_code.activate(path)
        try:
            assert kept.codes == {}, f"seed {seed}: {name} was read"
            assert behaviour(define_all()) == plain, f"seed {seed}: {name}"
            assert kept.compiled > 0
        finally:
            dataclass_code.deactivate()
        assert body_of(path.read_bytes()).startswith(dataclass_code.VERSION_LINE), f"{name}: written again"


def test_a_folder_or_a_missing_file_starts_empty_and_an_unwritable_folder_costs_nothing_else(tmp_path):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    kept = dataclass_code.activate(folder)
    assert kept.codes == {}
    behaviour(define_all())
    dataclass_code.deactivate()  # can't replace a folder: nothing raised
    assert folder.is_dir()
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        dataclass_code.activate(locked / "sub" / "dc.cache")
        behaviour(define_all())
        dataclass_code.deactivate()
    finally:
        locked.chmod(0o700)


def test_nothing_new_nothing_written(tmp_path):
    path, data = written(tmp_path)
    before = path.stat().st_mtime_ns
    os.utime(path, ns=(before - 10**9, before - 10**9))
    kept = dataclass_code.activate(path)
    define_all()
    assert kept.compiled == 0
    dataclass_code.deactivate()
    assert path.stat().st_mtime_ns == before - 10**9 and path.read_bytes() == data


def test_at_most_max_kept_newest_first(tmp_path, monkeypatch):
    monkeypatch.setattr(dataclass_code, "MAX_KEPT", 5)
    path = tmp_path / "dc.cache"
    kept = dataclass_code.activate(path)
    define_all()
    newest = list(kept.codes)[-5:]
    dataclass_code.deactivate()
    again = dataclass_code.activate(path)
    assert list(again.codes) == newest


def hmc(home: Path, env: dict, *words: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tui.cli", "--home", str(home), *words], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_command_line_keeps_the_code_and_prints_the_same(tmp_path):
    from core.demo.build import build_demo_home
    from tools.shots import TODAY

    home = build_demo_home(tmp_path / "home", TODAY)
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    env.pop(dataclass_code.PATH_ENV, None)  # the suite's shared file: this run keeps its own, as a user's does
    first = hmc(home, env, "--today", TODAY.isoformat(), "status", "--json")
    cache = tmp_path / "cache" / "hmc" / dataclass_code.FILE_NAME
    assert first.returncode == 0, first.stderr
    assert cache.is_file()
    stamp = cache.stat().st_mtime_ns
    second = hmc(home, env, "--today", TODAY.isoformat(), "status", "--json")
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout) == json.loads(first.stdout)
    assert cache.stat().st_mtime_ns == stamp, "the second run compiled nothing new: nothing written"


def test_the_environment_can_name_the_file(tmp_path, monkeypatch):
    named = tmp_path / "elsewhere" / "code.cache"
    monkeypatch.setenv(dataclass_code.PATH_ENV, str(named))
    kept = dataclass_code.activate()
    assert kept.path == named
    define_all()
    dataclass_code.deactivate()
    assert named.is_file()
    monkeypatch.delenv(dataclass_code.PATH_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert dataclass_code.activate().path == tmp_path / "xdg" / "hmc" / dataclass_code.FILE_NAME
