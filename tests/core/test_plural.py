from core.plural import counted, noun


def test_one_is_singular_and_every_other_count_plural():
    assert counted(1, "entry", "entries") == "1 entry"
    assert [counted(n, "entry", "entries") for n in (0, 2, 1234)] == ["0 entries", "2 entries", "1,234 entries"]
    assert counted(1, "message") == "1 message" and counted(3, "message") == "3 messages"
    assert noun(1, "char") == "char" and noun(-1, "char") == "chars"
