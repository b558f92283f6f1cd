"""Find dates in free text (en, fr, es, it, ru, zh) and resolve them against a given day.

`find_dates(text, today)` returns `FoundDate`s: absolute dates (ISO, numeric day/month/year, month
names, `2026年4月15日`, month-and-year, years after "since"-like words), year-less day-and-month
dates, and relative phrases ("yesterday", "la semaine dernière", "вчера", "上周"…). It never makes a
date out of a version ("Django 5.1", "2024.10.1"), a percentage, a time, a phone number, an IP, a
hash or a Unix timestamp: bare numbers are only read as years right after a cue word.
"""
from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

__all__ = ["FoundDate", "find_dates", "newest", "resolve_relative", "MONTHS"]

ABSOLUTE, RELATIVE, SINCE, NO_YEAR = "date", "relative", "since", "no-year"
YEAR_MIN, YEAR_MAX = 1900, 2100


@dataclass(frozen=True)
class FoundDate:
    """One date in a text: where it is, what it means, how precise it is."""

    start: int
    end: int
    text: str
    value: date  # the day; for month/year precision, the first day of the period
    precision: str  # "day" | "month" | "year"
    kind: str = ABSOLUTE  # "date" | "relative" | "since" | "no-year"

    @property
    def last_day(self) -> date:
        """The last day of the period this date names (used for ages: be generous)."""
        if self.precision == "year":
            return date(self.value.year, 12, 31)
        if self.precision == "month":
            return date(self.value.year, self.value.month,
                        calendar.monthrange(self.value.year, self.value.month)[1])
        return self.value

    @property
    def iso(self) -> str:
        """"2026-04-15" / "2026-04" / "2026": the date at its precision, as an entry can say it."""
        fmt = {"day": "%Y-%m-%d", "month": "%Y-%m", "year": "%Y"}[self.precision]
        return f"{self.value.year:04d}" + self.value.strftime(fmt)[4:]

    @property
    def label(self) -> str:
        """"2026-04-15" / "2026-04" / "2026", prefixed with "~" when relative."""
        return ("~" if self.kind == RELATIVE else "") + self.iso


# --------------------------------------------------------------------------- vocabulary

_MONTH_WORDS: dict[int, tuple[str, ...]] = {
    1: ("january", "jan", "janvier", "janv", "enero", "ene", "gennaio",
        "январь", "января", "январе", "янв"),
    2: ("february", "feb", "février", "fevrier", "févr", "fevr", "febrero", "febbraio",
        "февраль", "февраля", "феврале", "фев", "февр"),
    3: ("march", "mar", "mars", "marzo", "март", "марта", "марте"),
    4: ("april", "apr", "avril", "avr", "abril", "abr", "aprile",
        "апрель", "апреля", "апреле", "апр"),
    5: ("may", "mai", "mayo", "maggio", "май", "мая", "мае"),
    6: ("june", "jun", "juin", "junio", "giugno", "giu", "июнь", "июня", "июне", "июн"),
    7: ("july", "jul", "juillet", "juil", "julio", "luglio", "lug",
        "июль", "июля", "июле", "июл"),
    8: ("august", "aug", "août", "aout", "agosto", "август", "августа", "августе", "авг"),
    9: ("september", "sep", "sept", "septembre", "septiembre", "setiembre", "settembre",
        "сентябрь", "сентября", "сентябре", "сен", "сент"),
    10: ("october", "oct", "octobre", "octubre", "ottobre", "ott",
         "октябрь", "октября", "октябре", "окт"),
    11: ("november", "nov", "novembre", "noviembre", "ноябрь", "ноября", "ноябре", "ноя", "нояб"),
    12: ("december", "dec", "décembre", "decembre", "déc", "diciembre", "dic", "dicembre",
         "декабрь", "декабря", "декабре", "дек"),
}
MONTHS: dict[str, int] = {w: m for m, words in _MONTH_WORDS.items() for w in words}
# Words that are also ordinary words: read them as months only with a year, or capitalised.
_AMBIGUOUS = {"may", "mar", "march", "mai", "jun", "jul", "dec", "sep", "ott", "ene", "dic",
              "mars", "lug", "giu", "ноя", "сен", "мая", "мае", "май", "март"}
_FULL_ENGLISH = {"january", "february", "march", "april", "may", "june", "july", "august",
                 "september", "october", "november", "december"}
_FULL_WORDS = _FULL_ENGLISH | {"mai", "juin", "mars", "août", "aout", "mayo", "май", "мая", "мае",
                               "март", "марта", "марте"}
_MONTH_RE = "|".join(sorted((re.escape(w) for w in MONTHS), key=len, reverse=True))

_CN_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
              "七": 7, "八": 8, "九": 9}


def _cn_number(token: str) -> int | None:
    """'3', '十', '十二', '二十五' → int."""
    if token.isdigit():
        return int(token)
    if not token:
        return None
    if "十" in token:
        head, _, tail = token.partition("十")
        tens = _CN_DIGITS.get(head, None) if head else 1
        ones = _CN_DIGITS.get(tail, None) if tail else 0
        if tens is None or ones is None:
            return None
        return tens * 10 + ones
    if len(token) == 1:
        return _CN_DIGITS.get(token)
    return None


_NUMBER_WORDS: dict[str, int] = {
    # en
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "a few": 3,
    "several": 3,
    # fr
    "un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7,
    "huit": 8, "neuf": 9, "dix": 10, "quelques": 3,
    # es
    "uno": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7,
    "ocho": 8, "nueve": 9, "diez": 10, "unos": 3, "unas": 3, "unos pocos": 3, "unas pocas": 3,
    # it
    "due": 2, "tre": 3, "quattro": 4, "sei": 6, "sette": 7, "otto": 8, "nove": 9,
    "dieci": 10, "qualche": 3, "alcuni": 3, "alcune": 3,
    # ru
    "один": 1, "одну": 1, "одна": 1, "два": 2, "две": 2, "три": 3, "четыре": 4, "пять": 5,
    "шесть": 6, "семь": 7, "восемь": 8, "девять": 9, "десять": 10, "несколько": 3, "пару": 2,
}
_NUM_RE = r"(?:\d{1,3}|" + "|".join(sorted((re.escape(w) for w in _NUMBER_WORDS), key=len,
                                            reverse=True)) + r")"
_CN_NUM_RE = r"(?:\d{1,3}|[一二两三四五六七八九十几]{1,3})"

# Unit words after a number that make it a quantity, not a year.
_UNIT_AFTER = re.compile(
    r"\s*(?:%|°|[x×]\d|[.,]\d|(?:px|pt|ms|s|sec|secs|seconds?|mins?|minutes?|h|hrs?|hours?|"
    r"days?|kb|mb|gb|tb|kib|mib|gib|b|bytes?|tokens?|chars?|characters?|caract[eè]res|"
    r"caratteri|символ\w*|токен\w*|req\w*|rows?|lines?|items?|users?|entries|words?|ports?|"
    r"euros?|dollars?|usd|eur|руб\w*|pedidos|clientes|clients?|utilisateurs|utenti|"
    r"пользовател\w*|штук\w*|мс|сек\w*|мин\w*|dpi|fps|hz|khz|mhz|ghz|w|kw|v|mah|k)\b|"
    r"\s*[€$£¥₽]|\s*[个字条次位人名元块秒分])",
    re.IGNORECASE)


# --------------------------------------------------------------------------- helpers

def _cjk(ch: str) -> bool:
    return "\u3040" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" or "\uff00" <= ch <= "\uffef"


def _glued_before(text: str, i: int) -> bool:
    """True when position i continues a word, a number or a dotted/dashed number run."""
    if i == 0:
        return False
    prev = text[i - 1]
    if prev.isalnum() and not _cjk(prev):
        return True
    if prev in ".-/:_," and i >= 2 and text[i - 2].isalnum() and not _cjk(text[i - 2]):
        return True
    return prev in "+#@$"


def _glued_after(text: str, j: int, allow_t: bool = False) -> bool:
    if j >= len(text):
        return False
    nxt = text[j]
    if allow_t and nxt in "Tt" and j + 1 < len(text) and text[j + 1].isdigit():
        return False
    if nxt.isalnum() and not _cjk(nxt):
        return True
    if nxt in ".-/:_," and j + 1 < len(text) and text[j + 1].isdigit():
        return True
    return nxt == "%"


def _make(y: int, m: int, d: int) -> date | None:
    if not (YEAR_MIN <= y <= YEAR_MAX):
        return None
    try:
        return date(y, m, d)
    except ValueError:
        return None


def _year(token: str) -> int:
    y = int(token)
    return y + 2000 if len(token) == 2 else y


def _nearest_year(today: date, month: int, day: int) -> date | None:
    """A day and month without a year: the occurrence nearest to today."""
    best = None
    for y in (today.year - 1, today.year, today.year + 1):
        d = _make(y, month, day)
        if d and (best is None or abs((d - today).days) < abs((best - today).days)):
            best = d
    return best


def _add_months(d: date, months: int) -> date:
    total = d.year * 12 + d.month - 1 + months
    y, m = divmod(total, 12)
    return date(y, m + 1, min(d.day, calendar.monthrange(y, m + 1)[1]))


_EN_HINTS = re.compile(r"\b(?:the|and|was|is|on|by|for|of|to|with|in|at|from|after|before)\b",
                       re.IGNORECASE)


def _prefers_month_first(text: str) -> bool:
    """English text writes 12/11/2025 month-first; the other five languages day-first."""
    if re.search(r"[А-Яа-яЁё\u4e00-\u9fff]", text):
        return False
    if re.search(r"[àâçéèêëîïôûùüÿœáíóúñ¿¡ìò]", text, re.IGNORECASE):
        return False
    return len(_EN_HINTS.findall(text)) >= 2


# --------------------------------------------------------------------------- absolute patterns

_ORD = r"(?:st|nd|rd|th|er|re|ème|eme|º|°|ª|-?го|-?е)?"
_YEAR_TAIL = r"(?:\s*(?:г\.|гг\.|года|году|год)(?!\w))?"
_MON = rf"(?P<mon>{_MONTH_RE})(?P<dot>\.)?"

_RX_ISO = re.compile(r"(?P<y>\d{4})(?P<s>[-/])(?P<m>\d{1,2})(?P=s)(?P<d>\d{1,2})")
_RX_YM = re.compile(r"(?P<y>\d{4})-(?P<m>\d{2})")
_RX_DMY = re.compile(r"(?P<a>\d{1,2})(?P<s>[/.\-])(?P<b>\d{1,2})(?P=s)(?P<y>\d{4}|\d{2})")
_RX_DAY_MONTH = re.compile(
    rf"(?<!\w)(?:(?:the|le|el|il|l'|lo)\s+)?(?P<d>\d{{1,2}}){_ORD}\s*(?:of\s+|de\s+|del\s+)?{_MON}"
    rf"(?!\w)(?:,?\s*(?:de\s+|del\s+)?(?P<y>\d{{4}}){_YEAR_TAIL})?",
    re.IGNORECASE)
_RX_MONTH_DAY = re.compile(
    rf"(?<!\w){_MON}\s+(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?!\d)(?:,?\s+(?P<y>\d{{4}}))?",
    re.IGNORECASE)
_RX_MONTH_YEAR = re.compile(
    rf"(?<!\w){_MON},?\s+(?:(?:de|del|of)\s+)?(?P<y>\d{{4}}){_YEAR_TAIL}", re.IGNORECASE)
_RX_QUARTER = re.compile(r"(?<!\w)Q(?P<q>[1-4])\s*(?P<y>\d{4})(?!\d)")
_RX_CJK_FULL = re.compile(
    rf"(?P<y>\d{{4}})\s*年\s*(?:(?P<m>{_CN_NUM_RE})\s*月(?:\s*(?P<d>{_CN_NUM_RE})\s*[日号號])?)?")
_RX_CJK_MD = re.compile(rf"(?P<m>{_CN_NUM_RE})\s*月\s*(?P<d>{_CN_NUM_RE})\s*[日号號]")

# Years after cue words ("since 2019", "depuis 2018", "с 2019 года", "从2021起").
_YEAR_CUES = (
    r"since|from|until|till|in|by|as\s+of|during|before|after|early|mid-?|late|"
    r"depuis|dès|en|jusqu'en|jusqu’en|avant|après|fin|début|"
    r"desde|hasta|antes\s+de|después\s+de|a\s+principios\s+de|a\s+finales\s+de|durante|"
    r"da|dal|dall'|nel|fino\s+al|entro\s+il|prima\s+del|dopo\s+il|durante\s+il|"
    r"с|со|в|до|после|к|начиная\s+с|"
    r"从|自从|自|于|在|截至|到"
)
_SINCE_WORDS = {"since", "depuis", "dès", "desde", "da", "dal", "dall'", "с", "со", "从",
                "自", "自从", "начиная с", "from"}
_RX_CUE_YEAR = re.compile(rf"(?<!\w)(?P<cue>{_YEAR_CUES})\s*(?P<y>\d{{4}}){_YEAR_TAIL}",
                          re.IGNORECASE)


def _absolute(text: str, today: date) -> list[FoundDate]:
    out: list[FoundDate] = []
    month_first = None

    def add(m: re.Match, value: date | None, precision: str, kind: str = ABSOLUTE,
            start: int | None = None, end: int | None = None) -> None:
        if value is None:
            return
        s = m.start() if start is None else start
        e = m.end() if end is None else end
        out.append(FoundDate(s, e, text[s:e], value, precision, kind))

    for m in _RX_ISO.finditer(text):
        if _glued_before(text, m.start()) or _glued_after(text, m.end(), allow_t=True):
            continue
        add(m, _make(int(m["y"]), int(m["m"]), int(m["d"])), "day")

    for m in _RX_YM.finditer(text):
        if _glued_before(text, m.start()) or _glued_after(text, m.end()):
            continue
        mo = int(m["m"])
        if 1 <= mo <= 12 and 1970 <= int(m["y"]) <= YEAR_MAX:
            add(m, _make(int(m["y"]), mo, 1), "month")

    for m in _RX_DMY.finditer(text):
        if _glued_before(text, m.start()) or _glued_after(text, m.end(), allow_t=True):
            continue
        sep, ytok = m["s"], m["y"]
        if len(ytok) == 2 and sep != "/":
            continue  # 06-12-34 is a phone number, 5.1.20 a version
        a, b, y = int(m["a"]), int(m["b"]), _year(ytok)
        if len(ytok) == 4 and not (1970 <= y <= YEAR_MAX):
            continue
        dm, md = _make(y, b, a), _make(y, a, b)
        if dm and md and dm != md:
            if month_first is None:
                month_first = _prefers_month_first(text)
            value = md if (sep == "/" and month_first) else dm
        else:
            value = dm or md
        add(m, value, "day")

    for m in _RX_DAY_MONTH.finditer(text):
        mon = m["mon"]
        if m["y"] is None and not _month_word_ok(mon, m["dot"], yearless=True):
            continue
        if _glued_before(text, m.start("d")):
            continue
        month, day = MONTHS[mon.lower()], int(m["d"])
        if m["y"]:
            if _glued_after(text, m.end("y")):
                continue
            add(m, _make(int(m["y"]), month, day), "day", start=m.start("d"))
        else:
            abbreviation = m["dot"] and len(mon) <= 5 and mon.lower() not in _FULL_WORDS
            add(m, _nearest_year(today, month, day), "day", NO_YEAR, start=m.start("d"),
                end=m.end("dot") if abbreviation else m.end("mon"))

    for m in _RX_MONTH_DAY.finditer(text):
        mon = m["mon"]
        if not _month_word_ok(mon, m["dot"], yearless=m["y"] is None):
            continue
        if _glued_after(text, m.end()):
            continue
        month, day = MONTHS[mon.lower()], int(m["d"])
        if m["y"]:
            add(m, _make(int(m["y"]), month, day), "day")
        else:
            add(m, _nearest_year(today, month, day), "day", NO_YEAR)

    for m in _RX_MONTH_YEAR.finditer(text):
        if _glued_after(text, m.end("y")) or _UNIT_AFTER.match(text, m.end("y")):
            continue
        add(m, _make(int(m["y"]), MONTHS[m["mon"].lower()], 1), "month")

    for m in _RX_QUARTER.finditer(text):
        q, y = int(m["q"]), int(m["y"])
        add(m, _make(y, 3 * q, 1), "month")

    for m in _RX_CJK_FULL.finditer(text):
        if m.start() and text[m.start() - 1].isdigit():
            continue
        y = int(m["y"])
        if m["m"] is None:
            tail = text[m.end():m.end() + 2]
            if tail.startswith(("前", "后", "後", "多")) or not (YEAR_MIN <= y <= YEAR_MAX):
                continue  # 2000年前 = "2000 years ago"
            add(m, _make(y, 1, 1), "year")
            continue
        mo = _cn_number(m["m"])
        if mo is None:
            continue
        if m["d"] is None:
            add(m, _make(y, mo, 1), "month")
        else:
            d = _cn_number(m["d"])
            add(m, _make(y, mo, d) if d else None, "day")

    for m in _RX_CJK_MD.finditer(text):
        if m.start() and (text[m.start() - 1].isdigit() or text[m.start() - 1] == "年"):
            continue
        mo, d = _cn_number(m["m"]), _cn_number(m["d"])
        if mo and d:
            add(m, _nearest_year(today, mo, d), "day", NO_YEAR)

    for m in _RX_CUE_YEAR.finditer(text):
        y = int(m["y"])
        if not (YEAR_MIN <= y <= YEAR_MAX) or _glued_after(text, m.end("y")):
            continue
        if _UNIT_AFTER.match(text, m.end("y")):
            continue
        if text[m.end("y"):m.end("y") + 1] in ("-", "–") and text[m.end("y") + 1:m.end("y") + 2].isdigit():
            pass  # a range "2019-2021": the first year still counts
        cue = re.sub(r"\s+", " ", m["cue"].lower())
        if cue not in _SINCE_WORDS and not 1950 <= y <= today.year + 10:
            continue  # "data in 2048 buckets": a far-off year after a weak cue is a number
        kind = SINCE if cue in _SINCE_WORDS else ABSOLUTE
        add(m, _make(y, 1, 1), "year", kind, start=m.start("y"))
    return out


def _month_word_ok(word: str, dot: str | None, *, yearless: bool) -> bool:
    low = word.lower()
    if not yearless:
        return True
    if low in _FULL_ENGLISH or low in _AMBIGUOUS:
        return word[0].isupper() or (dot is not None and low not in _FULL_ENGLISH)
    full = len(low) >= 5 or low in {"mai", "juin", "mayo", "май", "мая", "mars", "aout", "août"}
    return full or dot is not None or word[0].isupper()


# --------------------------------------------------------------------------- relative phrases

_UNIT_WORDS: dict[str, str] = {}
for unit, words in {
    "day": ("day", "days", "jour", "jours", "día", "días", "dia", "dias", "giorno", "giorni",
            "день", "дня", "дней", "сутки", "суток", "天", "日"),
    "week": ("week", "weeks", "semaine", "semaines", "semana", "semanas", "settimana", "settimane",
             "неделю", "недели", "недель", "неделя", "周", "星期", "个星期", "礼拜", "個星期"),
    "month": ("month", "months", "mois", "mes", "meses", "mese", "mesi", "месяц", "месяца",
              "месяцев", "个月", "個月", "月"),
    "year": ("year", "years", "an", "ans", "année", "années", "año", "años", "anno", "anni",
             "год", "года", "лет", "年"),
}.items():
    for w in words:
        _UNIT_WORDS[w] = unit
_UNIT_RE = "|".join(sorted((re.escape(w) for w in _UNIT_WORDS if not _cjk(w[0])), key=len,
                           reverse=True))
_CN_UNIT_RE = "|".join(sorted((re.escape(w) for w in _UNIT_WORDS if _cjk(w[0])), key=len,
                              reverse=True))

_WEEKDAYS = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5,
    "sunday": 6, "lundi": 0, "mardi": 1, "mercredi": 2, "jeudi": 3, "vendredi": 4, "samedi": 5,
    "dimanche": 6, "lunes": 0, "martes": 1, "miércoles": 2, "miercoles": 2, "jueves": 3,
    "viernes": 4, "sábado": 5, "sabado": 5, "domingo": 6, "lunedì": 0, "lunedi": 0,
    "martedì": 1, "martedi": 1, "mercoledì": 2, "mercoledi": 2, "giovedì": 3, "giovedi": 3,
    "venerdì": 4, "venerdi": 4, "sabato": 5, "domenica": 6,
    "понедельник": 0, "вторник": 1, "среду": 2, "четверг": 3, "пятницу": 4, "субботу": 5,
    "воскресенье": 6,
}
_WEEKDAY_RE = "|".join(sorted((re.escape(w) for w in _WEEKDAYS), key=len, reverse=True))

# (pattern, unit, offset) — offset in units relative to today.
_FIXED: list[tuple[str, str, int]] = [
    # days
    (r"the\s+day\s+before\s+yesterday|avant-hier|anteayer|antier|l'altro\s*ieri|altroieri|"
     r"l’altro\s*ieri|позавчера", "day", -2),
    (r"the\s+day\s+after\s+tomorrow|après-demain|pasado\s+mañana|dopodomani|послезавтра", "day", 2),
    (r"yesterday|last\s+night|hier(?:\s+soir)?|ayer|anoche|ieri(?:\s+sera)?|вчера|вчерашн\w*",
     "day", -1),
    (r"(?<!de\s)(?<!la\s)(?<!las\s)(?<!por\s)mañana(?!s)|tomorrow|demain|domani|завтра|завтрашн\w*",
     "day", 1),
    (r"today(?!'s\s+date)|tonight|this\s+(?:morning|afternoon|evening)|earlier\s+today|"
     r"aujourd'hui|aujourd’hui|ce\s+matin|ce\s+soir|cet\s+après-midi|"
     r"hoy(?!\s+(?:en\s+)?d[ií]a)|esta\s+(?:mañana|tarde|noche)|"
     r"oggi(?!\s*giorno)(?!\s+come\s+oggi)|stamattina|stamane|stasera|stanotte|"
     r"сегодня(?:шн\w*)?", "day", 0),
    # weeks
    (r"last\s+week(?!\s+of\b)|the\s+past\s+week|la\s+semaine\s+(?:dernière|derniere|passée|passee)|"
     r"la\s+semana\s+pasada|la\s+settimana\s+(?:scorsa|passata)|на\s+прошлой\s+неделе|"
     r"прошлой\s+неделе", "week", -1),
    (r"next\s+week(?!\s+of\b)|la\s+semaine\s+prochaine|la\s+semana\s+(?:próxima|proxima|que\s+viene)|"
     r"la\s+próxima\s+semana|la\s+settimana\s+prossima|la\s+prossima\s+settimana|"
     r"на\s+следующей\s+неделе", "week", 1),
    (r"this\s+week(?!\s+of\b)|cette\s+semaine|esta\s+semana|questa\s+settimana|на\s+этой\s+неделе",
     "week", 0),
    # months
    (r"last\s+month(?!\s+of\b)|le\s+mois\s+(?:dernier|passé|passe)|el\s+mes\s+pasado|"
     r"il\s+mese\s+(?:scorso|passato)|в\s+прошлом\s+месяце", "month", -1),
    (r"next\s+month(?!\s+of\b)|le\s+mois\s+prochain|el\s+(?:mes\s+(?:próximo|proximo|que\s+viene)|"
     r"próximo\s+mes)|il\s+mese\s+prossimo|il\s+prossimo\s+mese|в\s+следующем\s+месяце",
     "month", 1),
    (r"this\s+month(?!\s+of\b)|ce\s+mois(?:-ci)?|este\s+mes|questo\s+mese|в\s+этом\s+месяце",
     "month", 0),
    # years
    (r"last\s+year(?!\s+of\b)|l'(?:année|annee)\s+(?:dernière|derniere|passée|passee)|"
     r"l’(?:année|annee)\s+(?:dernière|derniere|passée)|l'an\s+(?:dernier|passé|passe)|"
     r"l’an\s+(?:dernier|passé)|el\s+año\s+pasado|l'anno\s+(?:scorso|passato)|"
     r"l’anno\s+(?:scorso|passato)|в\s+прошлом\s+году", "year", -1),
    (r"next\s+year(?!\s+of\b)|l'(?:année|annee)\s+prochaine|l'an\s+prochain|el\s+año\s+(?:próximo|"
     r"proximo|que\s+viene)|el\s+próximo\s+año|l'anno\s+prossimo|il\s+prossimo\s+anno|"
     r"в\s+следующем\s+году", "year", 1),
    (r"this\s+year(?!\s+of\b)|cette\s+année|este\s+año|quest'anno|quest’anno|в\s+этом\s+году",
     "year", 0),
]
_RX_FIXED = [(re.compile(rf"(?<!\w)(?:{p})(?!\w)", re.IGNORECASE), u, o) for p, u, o in _FIXED]

_CN_FIXED: list[tuple[str, str, int]] = [
    ("大前天", "day", -3), ("前天", "day", -2), ("昨天|昨日|昨晚|昨夜", "day", -1),
    ("今天|今日|今早|今晚|今夜|今天早上", "day", 0), ("明天|明日|明早|明晚", "day", 1),
    ("大后天", "day", 3), ("(?<![先落之最然])后天", "day", 2),
    ("上上周|上上个?星期", "week", -2), ("上周|上个?星期|上个?礼拜", "week", -1),
    ("本周|这周|这个?星期|這週", "week", 0), ("下周|下个?星期|下个?礼拜", "week", 1),
    ("上个月|上月", "month", -1), ("本月|这个月", "month", 0), ("下个月|下月", "month", 1),
    ("前年", "year", -2), ("去年", "year", -1), ("今年", "year", 0), ("明年", "year", 1),
    ("前几天|前些天|几天前", "day", -3),
]
_RX_CN_FIXED = [(re.compile(p), u, o) for p, u, o in _CN_FIXED]

_RX_AGO = re.compile(
    rf"(?<!\w)(?:(?P<n1>{_NUM_RE})\s+(?P<u1>{_UNIT_RE})\s+ago|"
    rf"il\s+y\s+a\s+(?P<n2>{_NUM_RE})\s+(?P<u2>{_UNIT_RE})|"
    rf"hace\s+(?P<n3>{_NUM_RE})\s+(?P<u3>{_UNIT_RE})|"
    rf"(?P<n4>{_NUM_RE})\s+(?P<u4>{_UNIT_RE})\s+fa|"
    rf"(?P<n5>{_NUM_RE})?\s*(?P<u5>{_UNIT_RE})\s+назад)(?!\w)",
    re.IGNORECASE)
_RX_CN_AGO = re.compile(rf"(?P<n>{_CN_NUM_RE})\s*(?P<u>{_CN_UNIT_RE})(?:之)?前")
_RX_LAST_WEEKDAY = re.compile(
    rf"(?<!\w)(?:last\s+(?P<w1>{_WEEKDAY_RE})|(?P<w2>{_WEEKDAY_RE})\s+(?:dernier|passé|pasado|"
    rf"scorso)|el\s+(?P<w3>{_WEEKDAY_RE})\s+pasado|в\s+прошл\w+\s+(?P<w4>{_WEEKDAY_RE}))(?!\w)",
    re.IGNORECASE)


def _shift(today: date, unit: str, n: int) -> tuple[date, str]:
    if unit == "day":
        return today + timedelta(days=n), "day"
    if unit == "week":
        return today + timedelta(days=7 * n), "day"
    if unit == "month":
        d = _add_months(today, n)
        return date(d.year, d.month, 1), "month"
    return date(today.year + n, 1, 1), "year"


def _number(tok: str | None) -> int:
    if not tok:
        return 1
    tok = tok.lower().strip()
    if tok.isdigit():
        return int(tok)
    if tok in _NUMBER_WORDS:
        return _NUMBER_WORDS[tok]
    return _cn_number(tok) or 3  # 几 = "a few"


def _relative(text: str, today: date) -> list[FoundDate]:
    out: list[FoundDate] = []

    def add(s: int, e: int, unit: str, n: int) -> None:
        value, precision = _shift(today, unit, n)
        out.append(FoundDate(s, e, text[s:e], value, precision, RELATIVE))

    for rx, unit, off in _RX_FIXED:
        for m in rx.finditer(text):
            add(m.start(), m.end(), unit, off)
    for rx, unit, off in _RX_CN_FIXED:
        for m in rx.finditer(text):
            add(m.start(), m.end(), unit, off)
    for m in _RX_AGO.finditer(text):
        for k in "12345":
            if m[f"u{k}"]:
                unit = _UNIT_WORDS[m[f"u{k}"].lower()]
                add(m.start(), m.end(), unit, -_number(m[f"n{k}"]))
                break
    for m in _RX_CN_AGO.finditer(text):
        if m.start() and text[m.start() - 1].isdigit():
            continue
        add(m.start(), m.end(), _UNIT_WORDS[m["u"]], -_number(m["n"]))
    for m in _RX_LAST_WEEKDAY.finditer(text):
        name = next(m[g] for g in ("w1", "w2", "w3", "w4") if m[g])
        wd = _WEEKDAYS[name.lower()]
        back = (today.weekday() - wd) % 7 or 7
        out.append(FoundDate(m.start(), m.end(), m[0], today - timedelta(days=back), "day",
                             RELATIVE))
    return out


# --------------------------------------------------------------------------- public API

_FULLWIDTH = str.maketrans("０１２３４５６７８９／－．：", "0123456789/-.:")


def find_dates(text: str, today: date) -> list[FoundDate]:
    """All dates in `text`, resolved against `today`, in text order, overlaps removed."""
    if not text:
        return []
    norm = text.translate(_FULLWIDTH)  # same length: spans stay valid
    found = _absolute(norm, today) + _relative(norm, today)
    # Longest match wins where spans overlap (e.g. "15 avril 2026" over "avril 2026").
    found.sort(key=lambda f: (-(f.end - f.start), f.start))
    kept: list[FoundDate] = []
    for f in found:
        if all(f.end <= k.start or f.start >= k.end for k in kept):
            kept.append(FoundDate(f.start, f.end, text[f.start:f.end], f.value, f.precision,
                                  f.kind))
    kept.sort(key=lambda f: f.start)
    return kept


def newest(dates: list[FoundDate], kinds: tuple[str, ...] = (ABSOLUTE,)) -> FoundDate | None:
    """The date whose period ends last among `kinds` (None when there is none)."""
    pool = [d for d in dates if d.kind in kinds]
    return max(pool, key=lambda d: d.last_day, default=None)


def resolve_relative(text: str, saved: date | None) -> tuple[list[FoundDate], str] | None:
    """The relative phrases of `text` read against `saved`, the day it was written, and the text with
    each replaced by the date it meant (ISO, at the phrase's precision: "yesterday" saved on
    2026-11-05 is 2026-11-04, "last month" 2026-10, "last year" 2025). None when the day isn't known
    or the text has no relative phrase."""
    if saved is None:
        return None
    found = [f for f in find_dates(text, saved) if f.kind == RELATIVE]
    if not found:
        return None
    out = text
    for f in reversed(found):  # from the end: earlier spans stay valid
        out = out[:f.start] + f.iso + out[f.end:]
    return found, out
