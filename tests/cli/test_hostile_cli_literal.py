"""The one literal renderer (tui.literal) and the one secret masker (core.scan.mask.Masker)."""

from __future__ import annotations

import io
import json
import os
import random
import re
import string

from hypothesis import example, given, settings
from hypothesis import strategies as st
from rich.text import Text

from core.home import os_error_text
from core.scan.mask import MASK_SCAN_LIMIT, Masker, mask_untrusted, maybe_secret
from core.scan.scanner import scan
from tests.corpora.secrets import build_secret_samples
from tui.literal import SafeConsole, dumps, literal, visible

UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
SEED = int(os.environ.get("HMC_SEED", "20261120"))  # HMC_SEED replays or explores


def key(prefix: str, n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    """A key built at run time, the same for the same arguments and seed."""
    rng = random.Random(f"{SEED}:{prefix}:{n}:{alphabet}")
    return prefix + "".join(rng.choice(alphabet) for _ in range(n))


def test_visible_shows_every_class():
    assert visible("a\x1b]52;c;x\x07b") == "a␛]52;c;x␇b"
    assert visible("\x00\r\x7f") == "␀␍␡"
    assert visible("\u009b31m\u0085") == "\\x9b31m\\x85"
    assert visible("\u202eevil\u202c \u2066x\u2069") == "\\u202eevil\\u202c \\u2066x\\u2069"
    assert visible("lone \ud800") == "lone \\ud800"
    assert visible("keep\nlines\tand tabs, é, 漓, 🚀, [bold]") == "keep\nlines\tand tabs, é, 漓, 🚀, [bold]"
    assert visible(None) == "" and visible(42) == "42"


@given(st.text())
@example("\x1b]52;c;aGk=\x07\x9b31m\u202e\u2066\ud800\x00\x7f\r\x85")  # every class, on purpose
def test_visible_leaves_nothing_a_terminal_acts_on(text):
    shown = visible(text)
    assert UNSAFE.search(shown) is None
    assert visible(shown) == shown  # idempotent: rendering twice changes nothing
    shown.encode("utf-8")  # always encodable


@given(st.recursive(st.text() | st.integers() | st.none(),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                    max_leaves=8))
@example({"\x1b[2J": ["\ud800", None, 10 ** 30, {"\u202e": "\x9b\x00"}]})
def test_dumps_escapes_and_round_trips(obj):
    out = dumps(obj, indent=2)
    assert UNSAFE.search(out.replace("\n", " ")) is None
    assert json.loads(out) == obj


def test_dumps_keeps_readable_non_ascii():
    assert dumps({"t": "café 漓江 \u202e"}) == '{"t": "café 漓江 \\u202e"}'


def test_literal_is_never_markup():
    text = literal("[bold]x[/bold] [@click=app.quit]q[/] \x1b[2J")
    assert isinstance(text, Text) and text.plain == "[bold]x[/bold] [@click=app.quit]q[/] ␛[2J" and not text.spans


def console_output(*renderables, terminal: bool) -> str:
    buf = io.StringIO()
    console = SafeConsole(file=buf, force_terminal=terminal, color_system="truecolor" if terminal else None,
                          highlight=False, soft_wrap=True)
    for r in renderables:
        console.print(r)
    return buf.getvalue()


def test_safe_console_makes_raw_strings_visible_and_keeps_its_own_styles():
    raw = Text("source cli\x1b]0;pwned\x07 \u202eevil", style="bold cyan")  # a string that skipped literal()
    plain = console_output(raw, terminal=False)
    assert plain == "source cli␛]0;pwned \\u202eevil\n"  # (rich itself drops BEL from a Text)
    styled = console_output(raw, terminal=True)
    assert "\x1b[1;36m" in styled  # rich's own style, rendered from the style, not the text
    assert re.sub("\x1b\\[[0-9;]*m", "", styled) == plain


# -- masking ----------------------------------------------------------------------------------------------


def test_masker_masks_what_the_scanner_finds():
    sk, gh, aws = key("sk-proj-", 48), key("ghp_", 36), key("AKIA", 16, string.ascii_uppercase + string.digits)
    letters = key("ghp_", 36, string.ascii_letters), key("glpat-", 20, string.ascii_letters)  # no digit at all
    text = f"a {sk} b {gh} c {aws} d {letters[0]} e {letters[1]}"
    shown = mask_untrusted(text)
    for secret in (sk, gh, aws, *letters):
        assert secret not in shown and secret[-4:] in shown, f"{secret[:6]}… (HMC_SEED={SEED})"
    assert mask_untrusted(text, reveal=True) == text


def test_masker_masks_a_known_secret_quoted_cut_short():
    aws = key("AKIA", 16, string.ascii_uppercase + string.digits)
    mask = Masker(sources=[f"AWS deploy user key id {aws}"])
    message = f"Entry replaced (was 'AWS deploy user key id {aws[:11]}…')"  # a preview cut at a length
    shown = mask(message)
    assert aws[:11] not in shown and shown.startswith("Entry replaced (was 'AWS deploy user key id AKIA…")
    assert mask("AKIA is a prefix, AKIAXY is short") == "AKIA is a prefix, AKIAXY is short"


def test_masker_reaches_into_json_and_stops_at_depth():
    sk = key("sk-proj-", 48)
    deep: object = sk
    for _ in range(200):
        deep = [deep]
    shown = Masker().obj({"payload": {"content": f"x {sk}", "deep": deep}})
    assert sk not in json.dumps(shown)
    assert "nested more than" in json.dumps(shown)


def test_masker_scans_long_text_in_windows_and_caps_it():
    sk = key("sk-proj-", 48)
    text = "word " * 20_000 + sk + " tail"  # past the scanner's own 65,536-character cap
    assert sk not in mask_untrusted(text)
    huge = "x" * (MASK_SCAN_LIMIT + 10) + sk
    shown = mask_untrusted(huge)
    assert sk not in shown and "more characters not shown" in shown
    assert mask_untrusted(huge, reveal=True) == huge


@settings(max_examples=30)
@given(st.text(max_size=60), st.text(max_size=60))
@example("sk-proj-", "\u200b")  # another key's start before it, an invisible character after
@example("token:", "\x00")
def test_masker_never_leaks_a_secret_between_any_text(before, after):
    sk = key("sk-proj-", 48)
    shown = Masker()(f"{before} {sk} {after}")
    assert sk not in shown, f"key from HMC_SEED={SEED}"


def test_os_error_text_is_one_line():
    exc = PermissionError(13, "Permission denied", "/tmp/x/pending/memory")
    assert os_error_text(exc, "read") == "can't read /tmp/x/pending/memory: permission denied"
    assert os_error_text(NotADirectoryError(20, "Not a directory", "README.md")) == "README.md: not a directory"
    assert os_error_text(OSError("odd")) == "odd"


def test_every_secret_the_scanner_finds_is_masked():
    """The cheap pre-filter lets through every secret shape of the scanner's corpus."""
    samples = [s for s in build_secret_samples() if any(f.secret for f in scan(s.text))]
    assert len(samples) >= 50
    for s in samples:
        assert maybe_secret(s.text), s.provider
        assert s.secret not in mask_untrusted(s.text), s.provider


def test_prose_skips_the_full_scan():
    assert not maybe_secret("User prefers pnpm over npm for all JS projects.")
    assert not maybe_secret("Timezone Europe/Paris (CET/CEST). Weekdays 08:30–17:30.")
