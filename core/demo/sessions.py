"""The conversations of the demo state.db: a fixed story (the sessions that wrote the memory
entries, compression chains, hidden sources, the benchmark anchors) plus the ordinary sessions,
each one of the hand-written dialogues (core.demo.dialogues) with the agent's tool work around it;
a database bigger than the dialogues go (the benchmarks') is filled from the intents past them.

`SessionPlanner.plan()` decides every session (ids, sources, languages, times, message counts) and
renders the story; `generate(plan)` yields lists of message rows in `core.demo.build._MESSAGE_COLS`
order. Every session draws from its own `random.Random`, so output depends only on the seed.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Iterator

from core.demo import content as C
from core.demo import conversations as V
from core.demo.dialogues import DIALOGUES
from core.demo.intents import INTENTS
from core.demo.story_talk import STORY_TALK, SUMMARIES
from core.hermes import memory as hermes_memory
from core.hermes import scan as hermes_scan
from core.hermes.release import KNOWN

RARE_TERM = "zanzibarquux"
BIG_SESSION_ID = "20261001_080000_b16b16"
SMALL_SESSION_ID = "20261003_091500_5a5a11"
SMALL_SESSION_MESSAGES = 100
APPROVAL_ON_DAYS = 22
STORY_RELEASE = next(r for r in KNOWN if r.version == (0, 22, 2))  # the release whose tool the story calls
_CHUNK = 20_000
_LIMITS = {"memory": 2200, "user": 1375}
DELIMITER = "\n§\n"

_SOURCES = (("cli", 42), ("telegram", 22), ("discord", 14), ("cron", 16), ("kanban", 2),
            ("subagent", 2), ("tool", 2))
_LANGS = {"cli": (("en", 62), ("fr", 30), ("it", 4), ("es", 4)),
          "telegram": (("fr", 55), ("en", 25), ("it", 10), ("es", 10)),
          "discord": (("en", 35), ("ru", 20), ("zh", 20), ("es", 15), ("it", 10))}
_PROJECTS = {"cli": (("tideway", 50), ("harbor-web", 35), ("lighthouse-bot", 15)),
             "telegram": (("lighthouse-bot", 40), ("tideway", 35), ("harbor-web", 25)),
             "discord": (("tideway", 40), ("harbor-web", 40), ("lighthouse-bot", 20))}
_MODELS = {"cli": (("anthropic/claude-sonnet-4.5", 60), ("openai/gpt-5.1", 25), ("nousresearch/hermes-4-405b", 15)),
           "gateway": (("google/gemini-2.5-flash", 50), ("anthropic/claude-sonnet-4.5", 50))}
_PRICES = {"anthropic/claude-sonnet-4.5": (3.0, 15.0), "openai/gpt-5.1": (1.25, 10.0),
           "nousresearch/hermes-4-405b": (1.0, 3.0), "google/gemini-2.5-flash": (0.3, 2.5)}
_DISCORD_USERS = {"en": ("ines.m", "304118275731210241"), "ru": ("dmitri.k", "311409582236180482"),
                  "zh": ("li.wei", "318220931846504449"), "es": ("sofia.r", "322903417765691393"),
                  "it": ("marco.b", "327781206634250240")}
_TELEGRAM_USER = ("Inès Moreau", "5839201746")
_END = {"cli": ("user_exit", "new_session"), "telegram": ("idle", "session_reset"),
        "discord": ("idle", "session_reset"), "cron": ("completed",), "kanban": ("completed",),
        "subagent": ("completed",), "tool": ("completed",)}


def _weighted(r: random.Random, pairs) -> str:
    total = sum(w for _, w in pairs)
    x = r.random() * total
    for value, w in pairs:
        x -= w
        if x < 0:
            return value
    return pairs[-1][0]


def _sid(start: float, source: str, r: random.Random) -> str:
    stamp = datetime.fromtimestamp(start, tz=timezone.utc).strftime("%Y%m%d_%H%M%S")
    return f"{stamp}_{r.getrandbits(32):08x}" if source in ("telegram", "discord", "cron") \
        else f"{stamp}_{r.getrandbits(24):06x}"


def _start_of(sid: str) -> float:
    return datetime.strptime(sid[:15], "%Y%m%d_%H%M%S").replace(tzinfo=timezone.utc).timestamp()


@dataclass
class Plan:
    """One session: what it is, and (after generation) its aggregate columns."""

    sid: str
    source: str
    lang: str
    project: str
    start: float
    n: int
    kind: str = "generic"  # talk (a dialogue) | generic | cron | kanban | subagent | tool | big | story
    title: str | None = None
    parent: str | None = None
    end_reason: str | None = None
    cron: tuple | None = None
    rows: list = field(default_factory=list)  # story sessions are rendered at plan time
    stats: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)

    def session_row(self) -> tuple:
        s, m = self.stats, self.extra
        model = m["model"]
        pin, pout = _PRICES[model]
        cost = round((s["input"] * pin + s["output"] * pout) / 1e6, 4)
        config = {"provider": "openrouter", "max_tokens": 8192, "temperature": 0.4}
        if self.source == "subagent" and self.parent:
            config["_delegate_from"] = self.parent
        # in core.demo.build._SESSION_COLS order; a title is the title generator's ("llm")
        return (self.sid, self.source, self.source, m.get("user_id"), m.get("session_key"), m.get("chat_id"),
                m.get("chat_type"), m.get("display_name"), model, json.dumps(config), None, self.parent,
                self.start, None if m.get("open") else round(s["last"] + 4.0, 3),
                None if m.get("open") else self.end_reason, s["count"], s["calls"],
                s["input"], s["output"], s["input"] // 3, s["reasoning"], m.get("cwd"),
                m.get("branch"), cost, self.title, "llm" if self.title else None, round(s["last"], 3),
                s["api"], "default", m.get("archived", 0), m.get("pinned", 0), m.get("hidden", 0))


class _Conv:
    """Appends message rows for one session, keeping time and the session's aggregates."""

    def __init__(self, plan: Plan, r: random.Random, pace: float = 1.0):
        self.p, self.r, self.pace, self.t = plan, r, pace, plan.start
        self.rows: list[tuple] = []
        self.count = 0
        self.ctx = 0
        self.exchanges: list[int] = []  # row index where each exchange starts (this chunk)
        self.talk: Iterator[tuple[str, str]] = iter(())  # a story session's exchanges (STORY_TALK), in order
        self.key = ""  # a story session's key
        self.last_step = -1  # the index in WORK of the tool work made last
        plan.stats = {"count": 0, "calls": 0, "input": 0, "output": 0, "reasoning": 0, "api": 0,
                      "last": plan.start}

    def add(self, role: str, content: str, gap: float, *, call_id=None, calls=None, tool=None,
            finish=None, reasoning=None, active=1, compacted=0, kind=None) -> None:
        self.t += gap * self.pace
        tokens = len(content) // 4 + 1
        s = self.p.stats
        if role == "assistant":
            s["api"] += 1
            s["input"] += self.ctx
            s["output"] += tokens
            if reasoning:
                s["reasoning"] += len(reasoning) // 4 + 1
        self.ctx = min(self.ctx + tokens, 180_000)
        s["count"] += 1
        s["last"] = self.t
        self.count += 1
        self.rows.append((self.p.sid, role, content, call_id, calls, tool, round(self.t, 3), tokens,
                          finish, reasoning, active, compacted, kind))

    def call(self, name: str, args: dict, preface: str = "", *, active: int = 1) -> str:
        return self.calls([(name, args)], preface, active=active)[0]

    def calls(self, steps: list[tuple[str, dict]], preface: str = "", *, active: int = 1) -> list[str]:
        """One assistant message calling each (tool, arguments) of `steps`; their call ids."""
        cids = [f"call_{self.r.getrandbits(96):024x}" for _ in steps]
        calls = json.dumps([{"id": cid, "type": "function", "function": {
            "name": name, "arguments": json.dumps(args, ensure_ascii=False)}}
            for cid, (name, args) in zip(cids, steps)], ensure_ascii=False)
        self.add("assistant", preface, 2 + self.r.random() * 10, calls=calls, finish="tool_calls", active=active)
        self.p.stats["calls"] += len(steps)
        return cids

    def take(self) -> list[tuple]:
        rows, self.rows, self.exchanges = self.rows, [], []
        return rows


class SessionPlanner:
    """Plans and renders the sessions of one state.db; see the module docstring."""

    def __init__(self, *, seed: int, today: date):
        self.seed, self.today = seed, today
        self.day0 = datetime(today.year, today.month, today.day, tzinfo=timezone.utc).timestamp()
        self.ids: set[str] = set()
        self.entries = {k: t for k, t, _ in C.memory_entries(today) + C.user_entries(today)}

    # ---------------------------------------------------------------------------- planning
    def plan(self, *, sessions: int, messages: int, big: int = 0) -> list[Plan]:
        story = self._story()
        left_sessions = sessions - len(story)
        left_messages = messages - sum(p.n for p in story)
        if left_sessions < 0 or left_messages < 2 * max(left_sessions, 0) \
                or (left_sessions == 0 and left_messages):
            raise ValueError(f"sessions={sessions}, messages={messages} is too small: the demo story "
                             f"alone has {len(story)} sessions and {sum(p.n for p in story)} messages")
        plans = story + self._generic(left_sessions, left_messages)
        if big:
            r = random.Random(f"{self.seed}:big")
            p = Plan(BIG_SESSION_ID, "cli", "en", "tideway", _start_of(BIG_SESSION_ID), big, "big",
                     title="Long-running refactor of the billing module", end_reason="user_exit")
            self._meta(p, r)
            self.ids.add(p.sid)
            plans.append(p)
        plans.sort(key=lambda p: (p.start, p.sid))
        memory = {"memory": (), "user": ()}
        for p in plans:  # a session loads the memory the story's sessions before it left
            if p.kind == "story":
                memory = p.extra["after"]
            else:
                p.extra["loaded"] = memory
        last_cli = None
        for p in plans:  # a subagent run belongs to the latest interactive session before it
            if p.kind == "subagent" and p.parent is None:
                p.parent = last_cli
            if p.source == "cli":
                last_cli = p.sid
        return plans

    def _new_id(self, start: float, source: str, r: random.Random) -> str:
        sid = _sid(start, source, r)
        while sid in self.ids:
            sid = _sid(start, source, r)
        self.ids.add(sid)
        return sid

    def _generic(self, count: int, messages: int) -> list[Plan]:
        r = random.Random(f"{self.seed}:plan")
        plans: list[Plan] = []
        for i in range(count):
            source = "cli" if i == 0 else _weighted(r, _SOURCES)
            lang = _weighted(r, _LANGS[source]) if source in _LANGS else "en"
            project = _weighted(r, _PROJECTS[source]) if source in _PROJECTS else r.choice(V.PROJECTS)
            days = 1 + int((r.random() ** 1.4) * 119)
            day = self.day0 - days * 86400
            cron = None
            if source == "cron":
                cron = V.CRON_JOBS[(0, 1, 1, 2, 2, 2)[int(r.random() * 6)]]
                start = day + cron[2] * 3600 + cron[3] * 60 + r.random() * 20
            else:
                start = day + (6 + r.random() * 14) * 3600
            plans.append(Plan("", source, "fr" if cron and cron[0] == "weekly" else lang, project,
                              start, 0, source if source in ("cron", "kanban", "subagent", "tool") else "generic",
                              cron=cron))
        order = list(range(len(DIALOGUES)))
        r.shuffle(order)
        for p, i in zip([p for p in plans if p.kind == "generic"], order):
            p.project, p.lang, p.source, p.title, _ = DIALOGUES[i]
            p.kind, p.extra["dialogue"] = "talk", i
        handed = {"kanban": 2, "subagent": 1}  # the story's kanban cards and subagent task come first
        for p in plans:
            if p.kind in handed:
                p.extra["task"], handed[p.kind] = handed[p.kind], handed[p.kind] + 1
        fixed = {"kanban": (2, 6), "tool": (2, 4), "subagent": (6, 16)}
        free = [p for p in plans if p.kind in ("talk", "generic")]
        for p in plans:
            if p.kind == "cron":
                p.n = 2 + 2 * len(p.cron[6])
            elif p.kind in fixed:
                lo, hi = fixed[p.kind]
                p.n = lo + 2 * int(r.random() * ((hi - lo) // 2 + 1))
        rest = messages - sum(p.n for p in plans)
        if rest < 2 * len(free):  # tiny builds: shrink the fixed-size sessions first
            for p in plans:
                if p.kind in ("cron", *fixed) and rest < 2 * len(free):
                    rest += p.n - 2
                    p.n = 2
        # a dialogue gets at least its own turns, and tool work in proportion to them
        least = [len(DIALOGUES[p.extra["dialogue"]][4]) if p.kind == "talk" else 2 for p in free]
        if rest < sum(least):  # tiny builds: dialogues are cut short
            least = [2] * len(free)
        weights = [r.lognormvariate(0, 0.9 if p.kind == "generic" else 0.5) * (n // 2)
                   for p, n in zip(free, least)]
        scale = (rest - sum(least)) / sum(weights) if free else 0
        for p, w, n in zip(free, weights, least):
            p.n = n + int(w * scale)
        diff = rest - sum(p.n for p in free)
        i = 0
        while diff > 0 and free:
            free[i % len(free)].n += 1
            diff -= 1
            i += 1
        for p in plans:
            sec_per_msg = 45 if p.kind in ("talk", "generic") else 20
            p.start = min(p.start, self.day0 - p.n * sec_per_msg - 3600)
            p.start = round(p.start, 3)
            p.sid = self._new_id(p.start, p.source, r)
            self._meta(p, r)
        return plans

    def _meta(self, p: Plan, r: random.Random) -> None:
        m = p.extra
        m["model"] = _weighted(r, _MODELS["cli" if p.source in ("cli", "subagent", "tool", "kanban") else "gateway"])
        if p.source == "cron":
            m["model"] = "google/gemini-2.5-flash"
        if p.source == "telegram":
            m["display_name"], m["user_id"] = _TELEGRAM_USER
            m["chat_id"], m["chat_type"] = m["user_id"], "dm"
        elif p.source == "discord":
            m["display_name"], m["user_id"] = _DISCORD_USERS.get(p.lang, _DISCORD_USERS["en"])
            m["chat_id"], m["chat_type"] = "1290364471258681404", "group"
        if "chat_id" in m:
            m["session_key"] = f"{p.source}:{m['chat_type']}:{m['chat_id']}"
        if p.source == "cli":
            m["cwd"] = f"/home/ines/code/{p.project}"
            m["branch"] = V.BRANCHES[int(r.random() * len(V.BRANCHES))]
        elif p.source in ("cron", "tool", "kanban", "subagent"):
            m["cwd"] = "/home/ines"
        x = r.random()
        m["archived"], m["pinned"], m["hidden"] = int(x < 0.03), int(0.03 <= x < 0.05), int(0.05 <= x < 0.06)
        if p.end_reason is None:
            p.end_reason = _END[p.source][int(r.random() * len(_END[p.source]))]

    # ---------------------------------------------------------------------------- content
    def _slots(self, r: random.Random, project: str, day: float) -> dict:
        def pick(seq):
            return seq[int(r.random() * len(seq))]

        test = pick(V.TESTS)
        testfile, testname = test.split("::")
        line = 20 + int(r.random() * 220)
        major, minor = 1 + int(r.random() * 15), int(r.random() * 9)
        when = datetime.fromtimestamp(day, tz=timezone.utc)
        prev = when - timedelta(days=3 + int(r.random() * 40))
        alert = pick(V.ALERTS)
        pr = 120 + int(r.random() * 300)
        return {
            "test": test, "testfile": testfile, "testname": testname, "err": pick(V.ERRORS),
            "file": pick(V.FILES[project]), "line": line, "line1": line + 1, "line2": line + 2,
            "line3": line + 3, "line4": line + 4, "line5": line + 5, "line6": line + 6,
            "n": 40 + int(r.random() * 560), "secs": f"{1 + r.random() * 40:.2f}",
            "branch": pick(V.BRANCHES), "rev": f"{r.getrandbits(48):012x}", "prevrev": f"{r.getrandbits(48):012x}",
            "table": pick(V.TABLES), "col": pick(V.COLUMNS), "count": 2 + int(r.random() * 90),
            "pkg": pick(V.PACKAGES), "old": f"{major}.{minor}.{int(r.random() * 9)}", "new": f"{major}.{minor + 1}.0",
            "run": 11_000_000_000 + int(r.random() * 900_000_000), "job": pick(V.JOBS), "project": project,
            "endpoint": pick(V.ENDPOINTS), "ms": 400 + int(r.random() * 5000), "ms2": 12 + int(r.random() * 90),
            "alert": alert, "alertkey": alert.split()[0].lower(), "time": f"{6 + int(r.random() * 14):02d}:{int(r.random() * 60):02d}",
            "date": when.strftime("%Y-%m-%d"), "recall": pick(V.RECALL), "prevdate": prev.strftime("%Y-%m-%d"),
            "prevsid": prev.strftime("%Y%m%d_%H%M%S") + f"_{r.getrandbits(24):06x}",
            "pr": pr, "pr1": pr + 3, "pr2": pr + 7, "topic": pick(V.TOPICS),
        }

    def _intents(self, project: str) -> list[dict]:
        return [i for i in INTENTS if project in i["projects"]]

    def _exchange(self, conv: _Conv, intent: dict, slots: dict, room: int, *, active: int = 1) -> None:
        """user -> [assistant tool call -> tool result]* -> assistant, within `room` messages."""
        r, lang = conv.r, conv.p.lang
        conv.exchanges.append(len(conv.rows))
        users = intent["user"].get(lang) or intent["user"]["en"]
        v = int(r.random() * len(users))  # variant: the question, tool output and answer go together
        gap = 20 + r.random() * 380 if conv.count else 0.0
        conv.add("user", users[v].format_map(slots), gap, active=active)
        steps = intent["tools"][: int(r.random() * (len(intent["tools"]) + 1))]
        steps = steps[: max(0, (room - 2) // 2)]
        for name, args, outputs in steps:
            prefaces = V.PREFACE[lang]
            cid = conv.call(name, {k: t.format_map(slots) for k, t in args.items()},
                            prefaces[int(r.random() * len(prefaces))])
            if active == 0:
                conv.rows[-1] = conv.rows[-1][:10] + (0,) + conv.rows[-1][11:]
            out = outputs[v] if v < len(outputs) else outputs[int(r.random() * len(outputs))]
            conv.add("tool", out.format_map(slots), 0.2 + r.random() * 8, call_id=cid, tool=name, active=active)
        if room >= 2:
            answers = intent["answer"].get(lang) or intent["answer"]["en"]
            reasoning = V.REASONING[int(r.random() * len(V.REASONING))] if r.random() < 0.3 else None
            conv.add("assistant", answers[v % len(answers)].format_map(slots),
                     3 + r.random() * 22, finish="stop", reasoning=reasoning, active=active)

    def _fill(self, conv: _Conv, target: int, *, stream: bool = False, active: int = 1) -> Iterator[list]:
        """Exchanges until the session holds `target` messages (yields chunks when streaming)."""
        intents = self._intents(conv.p.project)
        weights = [(i, i["weight"]) for i in intents]
        while conv.count < target:
            intent = _weighted(conv.r, weights)
            slots = self._slots(conv.r, conv.p.project, conv.t)
            self._exchange(conv, intent, slots, target - conv.count, active=active)
            if conv.p.title is None and conv.p.kind == "generic":
                titles = intent["title"].get(conv.p.lang) or intent["title"]["en"]
                conv.p.title = titles[int(conv.r.random() * len(titles))].format_map(slots)
            if stream and len(conv.rows) >= _CHUNK:
                yield conv.take()

    def generate(self, plan: Plan) -> Iterator[list[tuple]]:
        """The message rows of one session, in chunks."""
        if plan.kind == "story":
            yield plan.rows
            return
        r = random.Random(f"{self.seed}:{plan.sid}")
        if plan.kind == "big":
            conv = _Conv(plan, r, pace=0.02)
            yield from self._fill(conv, plan.n // 2, stream=True)
            self._plant(conv, "user", room=plan.n - conv.count)
            yield from self._fill(conv, plan.n, stream=True)
            yield conv.take()
            return
        conv = _Conv(plan, r)
        if plan.kind == "cron":
            self._cron(conv)
        elif plan.kind in ("kanban", "tool", "subagent"):
            self._background(conv)
        else:
            compact = plan.n >= 30 and r.random() < 0.08
            if plan.kind == "talk":
                turns = DIALOGUES[plan.extra["dialogue"]][4]
                self._talk(conv, list(zip(turns[::2], turns[1::2])), plan.n - compact)
            else:
                list(self._fill(conv, plan.n - compact))
            if plan.n >= 8 and r.random() < 0.05 and len(conv.exchanges) > 2:
                self._rewind(conv, conv.exchanges[1], conv.exchanges[2])
            if compact:
                self._compact(conv, conv.exchanges[len(conv.exchanges) // 2])
            if r.random() < 0.15:
                plan.title = None  # untitled sessions exist too
        yield conv.take()

    def _background(self, conv: _Conv) -> None:
        """A kanban card, a `hermes tool` run or a subagent's task: the task, tool work, the result.
        Each session of a kind has its own task while there are tasks left (`_generic`)."""
        p, r = conv.p, conv.r
        if p.kind == "tool":
            day = datetime.fromtimestamp(p.start, tz=timezone.utc) - timedelta(days=1)
            payouts = 380 + int(r.random() * 80)
            title, result = V.tool_session(day.strftime("%Y-%m-%d"), payouts, int(r.random() < 0.2) * 2)
            task = title
        else:
            tasks = V.KANBAN_TASKS if p.kind == "kanban" else V.SUBAGENT_TASKS
            if p.kind == "subagent":  # a subagent's session has no title of its own
                title, (task, result) = None, tasks[p.extra["task"] % len(tasks)]
            else:
                title, task, result = tasks[p.extra["task"] % len(tasks)]
        p.title = title
        conv.add("user", task, 0.0)
        self._work(conv, p.n - 2)
        conv.add("assistant", result, 5.0, finish="stop")

    def _talk(self, conv: _Conv, exchanges: list[tuple[str, str]], target: int, *, active: int = 1) -> None:
        """`exchanges` (user, assistant) with the agent's tool work before each answer, until the
        session holds exactly `target` messages (the exchanges that don't fit are left out)."""
        r = conv.r
        room = target - conv.count
        if room <= 0:
            return
        k = max(1, min(len(exchanges), room // 2))
        rest = room - 2 * k
        if rest == 1 and k > 1:
            k, rest = k - 1, 3
        if rest == 1:  # three messages for one exchange: the answer never came
            sizes = [2]
        else:
            sizes = [3] * (rest % 2) + [2] * ((rest - 3 * (rest % 2)) // 2)
        where = [[] for _ in range(k)]
        for size in sizes:
            where[int(r.random() * k)].append(size)
        for (user, answer), pads in zip(exchanges[:k], where):
            conv.exchanges.append(len(conv.rows))
            conv.add("user", user, 20 + r.random() * 380 if conv.count else 0.0, active=active)
            for size in pads:
                self._step(conv, size - 1, active)
            if conv.count < target:
                reasoning = V.TALK_REASONING[int(r.random() * len(V.TALK_REASONING))] if r.random() < 0.2 \
                    else None
                conv.add("assistant", answer, 3 + r.random() * 22, finish="stop", reasoning=reasoning,
                         active=active)

    def _work(self, conv: _Conv, room: int) -> None:
        """Tool work of exactly `room` messages (0 or at least 2): calls and their results."""
        while room > 0:
            size = 3 if room == 3 or (room > 4 and conv.r.random() < 0.15) else 2
            self._step(conv, size - 1)
            room -= size

    def _step(self, conv: _Conv, calls: int, active: int = 1) -> None:
        """One assistant message making `calls` tool calls (the project's WORK), then their results."""
        r, pool = conv.r, V.WORK[conv.p.project]
        slots = self._slots(r, conv.p.project, conv.t)
        first = int(r.random() * (len(pool) - 1))
        first += first >= conv.last_step  # not the step just made again
        steps = [pool[(first + i) % len(pool)] for i in range(calls)]
        conv.last_step = (first + calls - 1) % len(pool)
        prefaces = V.PREFACE[conv.p.lang]
        cids = conv.calls([(name, {k: v.format_map(slots) for k, v in args.items()}) for name, args, _ in steps],
                          prefaces[int(r.random() * len(prefaces))], active=active)
        for cid, (name, _, outputs) in zip(cids, steps):
            conv.add("tool", outputs[int(r.random() * len(outputs))].format_map(slots), 0.2 + r.random() * 8,
                     call_id=cid, tool=name, active=active)

    def _cron(self, conv: _Conv) -> None:
        p, r = conv.p, conv.r
        key, title, _, _, _, prompt, steps, reports = p.cron
        p.title = title
        slots = self._slots(r, "tideway", conv.t)
        conv.add("user", prompt, 0.0)
        for name, args, outputs in steps[: (p.n - 2) // 2]:
            cid = conv.call(name, {k: v.format_map(slots) for k, v in args.items()})
            conv.add("tool", outputs[int(r.random() * len(outputs))].format_map(slots), 1 + r.random() * 5,
                     call_id=cid, tool=name)
        if conv.count < p.n:
            conv.add("assistant", reports[int(r.random() * len(reports))].format_map(slots), 4 + r.random() * 10,
                     finish="stop")

    @staticmethod
    def _set(conv: _Conv, i: int, active: int, compacted: int) -> None:
        row = conv.rows[i]
        conv.rows[i] = row[:10] + (active, compacted) + row[12:]

    def _rewind(self, conv: _Conv, lo: int, hi: int) -> None:
        for i in range(lo, hi):  # the user rewound this exchange: hidden, not compacted
            self._set(conv, i, 0, 0)

    def _compact(self, conv: _Conv, at: int) -> None:
        """Compact rows before `at` in place and insert the hidden summary the model saw instead."""
        for i in range(at):
            self._set(conv, i, 0, 1)
        ts = conv.rows[at - 1][6] + 1.5
        ask = next(row[2] for row in conv.rows if row[1] == "user")
        text = V.COMPACTION_SUMMARY.format(ask=ask, calls=sum(row[1] == "tool" for row in conv.rows[:at]))
        conv.rows.insert(at, (conv.p.sid, "user", text, None, None, None, round(ts, 3), len(text) // 4 + 1,
                              None, None, 1, 0, "hidden"))
        conv.count += 1
        conv.p.stats["count"] += 1

    def _plant(self, conv: _Conv, role: str, room: int = 2) -> None:
        lang = "fr" if conv.p.lang == "fr" and role == "user" else "en"
        texts = V.PLANT[(role, lang)]  # each place says it its own way
        done = self.plants.get((role, lang), 0)
        text = texts[done % len(texts)].format(term=RARE_TERM)
        self.plants[(role, lang)] = done + 1
        conv.add(role, text, 30 + conv.r.random() * 60, finish="stop" if role == "assistant" else None)
        if role == "user" and room >= 2:
            conv.add("assistant", V.PLANT_ACK[lang], 6.0, finish="stop")

    # ---------------------------------------------------------------------------- the story
    def _story(self) -> list[Plan]:
        """The fixed sessions (see STORY below), rendered in chronological order."""
        self.sim = {"memory": [], "user": []}  # the stores as the agent's writes leave them
        self.hand = {"memory": [], "user": []}  # and what the user typed into the files by hand
        self.staged: dict[str, tuple[str, dict]] = {}  # a staged write's pending id -> (target, arguments)
        self.reviews: list[tuple[float, str]] = []  # the background review's memory writes: (time, session)
        self.plants: dict[tuple[str, str], int] = {}  # the rare term's plants so far, per (role, language)
        approval_on = self.day0 - APPROVAL_ON_DAYS * 86400
        out: list[Plan] = []
        by_key: dict[str, Plan] = {}
        for key, when, source, lang, project, title, script, opts in sorted(STORY, key=self._story_start):
            r = random.Random(f"{self.seed}:story:{key}")
            if "after" in opts:  # a compression child starts right after its parent ended
                start = round(by_key[opts["after"]].stats["last"] + 5.0, 3)
            else:
                start = self._story_start((key, when))
            if "tool_run" in opts:  # `hermes tool` reconciling the day before: the command is its title
                day = datetime.fromtimestamp(start, tz=timezone.utc) - timedelta(days=1)
                title, result = V.tool_session(day.strftime("%Y-%m-%d"), *opts["tool_run"])
                script = [("say", "user", title), ("say", "assistant", result)]
            sid = when if isinstance(when, str) else self._new_id(start, source, r)
            if isinstance(when, str):
                self.ids.add(sid)
            p = Plan(sid, source, lang, project, start, 0, "story", title=title,
                     parent=by_key[opts["parent"]].sid if "parent" in opts else None,
                     end_reason=opts.get("end"))
            self._meta(p, r)
            p.extra["open"] = opts.get("open", False)
            p.extra["loaded"] = self._files()  # memory as the session started
            conv = _Conv(p, r)
            conv.talk, conv.key = iter(STORY_TALK.get(key, ())), key
            for op in script:
                # write approval: the interactive CLI asks inline (approved: the write lands), every
                # other surface stages it
                self._story_op(conv, op, staged=start >= approval_on and source != "cli")
            p.rows, p.n = conv.take(), conv.count
            p.extra["after"] = self._files()
            out.append(p)
            by_key[key] = p
        return out

    def _files(self) -> dict[str, tuple[str, ...]]:
        """The stores as the files hold them now: the agent's writes, then the user's own additions."""
        return {t: tuple(self.sim[t]) + tuple(self.hand[t]) for t in self.sim}

    def _story_start(self, spec: tuple) -> float:
        when = spec[1]
        if isinstance(when, str):
            return _start_of(when)
        days, hh, mm = when
        return self.day0 - days * 86400 + hh * 3600 + mm * 60

    def _story_op(self, conv: _Conv, op: tuple, *, staged: bool) -> None:
        kind, r, lang = op[0], conv.r, conv.p.lang
        if kind == "fill":  # the session's next exchanges, with tool work (active=0: the user rewound them)
            for _ in range(op[1]):
                self._talk(conv, [next(conv.talk)], conv.count + 2 + 2 * int(r.random() * 3),
                           active=op[2] if len(op) > 2 else 1)
        elif kind == "fillto":  # (kind, message count to reach, exchanges to take)
            self._talk(conv, [next(conv.talk) for _ in range(op[2])], op[1])
        elif kind == "work":  # tool work only (a subagent's): (kind, messages)
            self._work(conv, op[1])
        elif kind == "say":
            role, text = op[1], V.STORY_LINES.get(op[2], op[2])
            conv.add(role, text, (20 + r.random() * 100) if conv.count else 0.0,
                     finish="stop" if role == "assistant" else None)
        elif kind == "plant":
            self._plant(conv, op[1])
        elif kind == "summary":
            conv.add("user", SUMMARIES[conv.key], 0.0 if not conv.count else 2.0, kind="hidden")
        elif kind == "compact":
            for i in range(len(conv.rows)):
                self._set(conv, i, 0, 1)
        elif kind == "tool":  # (kind, tool name, arguments, output)
            cid = conv.call(op[1], op[2], V.PREFACE[lang][2])
            conv.add("tool", op[3], 1 + r.random() * 20, call_id=cid, tool=op[1])
        elif kind == "longlog":
            cid = conv.call("terminal", {"command": "tail -n 160 logs/export.log"}, "Let me look at the log.")
            conv.add("tool", _long_log(r), 0.8, call_id=cid, tool="terminal")
        elif kind == "mem":
            self._memory_write(conv, op, staged)
        elif kind == "hand":  # the user adds the entry by hand after the session: (kind, target, key)
            self.hand[op[1]].append(self._text(op[2]))
        elif kind == "later":  # the chat goes on days later: (kind, days ago, hour, minute)
            conv.t = max(conv.t, self.day0 - op[1] * 86400 + op[2] * 3600 + op[3] * 60)
        elif kind == "review":  # the background review adds an entry: no tool rows, a line in agent.log
            text = self._text(op[2])
            if text not in self.sim[op[1]]:
                self.sim[op[1]].append(text)
            conv.t += 35 + r.random() * 20
            self.reviews.append((round(conv.t, 3), conv.p.sid))
        elif kind == "approve":  # `/memory approve <id>` in the chat: applied, the record deleted; no rows
            target, args = self.staged.pop(op[1])
            assert self._apply(target, args)["success"] is True

    def _text(self, key: str) -> str:
        if key in C.STORY_TEXTS:
            return C.STORY_TEXTS[key].format(d6=(self.today - timedelta(days=6)).isoformat())
        return self.entries[key]

    def _memory_write(self, conv: _Conv, op: tuple, staged: bool) -> None:
        """One assistant message calling the memory tool (once per write), then the tool's results,
        shaped and decided as 0.22.2's memory tool does (core.hermes.memory holds its rules): the
        scanner refuses, patch edits one span, exact re-adds, all-or-nothing batches, staging under
        write approval. `op` = ("mem", ack, writes[, options]); a write is (action, target, key,
        old_text) or ("batch", target, [(action, key, old_text), ...], None); a patch's key names its
        new span (STORY_TEXTS). Options: "close" (a STORY_LINES key for the closing message),
        "pending" (the id a staged write gets: a demo pending record)."""
        r, lang = conv.r, conv.p.lang
        ack, writes = op[1], op[2]
        opts = op[3] if len(op) > 3 else {}
        calls, results, landed = [], [], 0
        for action, target, key, old_text in writes:
            if action == "batch":
                ops = []
                for a, k, old in key:
                    o = {"action": a}
                    if k:
                        o["content"] = self._text(k)
                    if old:
                        o["old_text"] = old
                    ops.append(o)
                args = {"target": target, "operations": ops}
            else:
                args = {"action": action, "target": target}
                if key:
                    args["content"] = self._text(key)
                if old_text:
                    args["old_text"] = old_text
            cid = f"call_{r.getrandbits(96):024x}"
            calls.append({"id": cid, "type": "function",
                          "function": {"name": "memory", "arguments": json.dumps(args, ensure_ascii=False)}})
            if staged:
                pid = opts.get("pending") or f"{r.getrandbits(32):08x}"
                self.staged[pid] = (target, args)
                result = {"success": True, "staged": True, "pending_id": pid,
                          "message": "Staged for approval (memory.write_approval is on). Not yet saved — "
                                     "review with /memory pending."}
            else:
                result = self._apply(target, args)
            landed += result["success"] is True
            results.append((cid, json.dumps(result, ensure_ascii=False)))
        conv.add("assistant", V.STORY_LINES.get(ack, "") if ack else "", 4 + r.random() * 10,
                 calls=json.dumps(calls, ensure_ascii=False), finish="tool_calls")
        conv.p.stats["calls"] += len(calls)
        for cid, result in results:
            conv.add("tool", result, 0.05 + r.random() * 0.3, call_id=cid, tool="memory")
        if not landed:  # every call failed: the agent retries in its next message
            return
        close = V.STORY_LINES.get(opts["close"]) if "close" in opts else \
            (V.STAGED if staged else V.SAVED).get(lang, V.SAVED["en"])
        conv.add("assistant", close, 2 + r.random() * 3, finish="stop")

    def _apply(self, target: str, args: dict) -> dict:
        """0.22.2's result for one call on the simulated store (which it updates on success). The
        story only makes calls that land or fail the ordinary ways (scanner, no match); anything else
        is a mistake in the story and raises ValueError."""
        store, limit = self.sim[target], _LIMITS[target]
        ops = args.get("operations") or [args]
        for i, o in enumerate(ops):
            blocked = o["action"] == "add" and hermes_scan.refusal(o.get("content") or "", STORY_RELEASE)
            if blocked:
                return {"success": False, "error": f"Operation {i + 1}: {blocked}" if "operations" in args else blocked}
        try:
            planned = hermes_memory.plan(store, [hermes_memory.op_from_call(o, STORY_RELEASE) for o in ops], limit,
                                         release=STORY_RELEASE, batch="operations" in args)
        except hermes_memory.OpError as exc:
            if "operations" in args or exc.kind != "no_match":
                raise ValueError(f"the demo story's call {args} doesn't apply: {exc}") from None
            old = args["old_text"]
            closest = hermes_memory.closest_entries(store, old)
            return {"success": False, "error": str(exc), **({"closest_entries": closest} if closest else {}),
                    "current_entries": list(store)}
        before, store[:] = list(store), list(planned.after)
        extra: dict = {}
        if "operations" in args:
            extra = self._batch_fields(before, ops)
        elif args["action"] == "patch":
            (i,) = [i for i, (x, y) in enumerate(zip(before, store)) if x != y]
            extra = {"patched_entry_before": before[i], "patched_entry_after": store[i]}
        elif args["action"] == "remove":
            (gone,) = [e for e in before if e not in store]
            extra = {"removed_entry": gone}
        return self._ok(target, planned.messages[0], extra)

    @staticmethod
    def _batch_fields(before: list[str], ops: list[dict]) -> dict:
        """0.22.2's record of what a batch's patches and removes selected: 1-based op index -> the entry
        before, and for patches the entry after."""
        work, patched, after, removed = list(before), {}, {}, {}
        for n, o in enumerate(ops, 1):
            op = hermes_memory.op_from_call(o, STORY_RELEASE)
            if op.action == "add":
                work, _ = hermes_memory.apply_op(work, op, STORY_RELEASE, batch_pos=f"Operation {n} (add)",
                                                 person=False)
                continue
            i = hermes_memory.locate(work, op.old_text, None, STORY_RELEASE, op.action, person=False)
            (patched if op.action == "patch" else removed)[n] = work[i]
            work, _ = hermes_memory.apply_op(work, op, STORY_RELEASE, batch_pos=f"Operation {n} ({op.action})",
                                             person=False)
            if op.action == "patch":
                after[n] = work[i]
        out: dict = {}
        if patched:
            out["patched_entries"], out["patched_entries_after"] = patched, after
        if removed:
            out["removed_entries"] = removed
        return out

    def _ok(self, target: str, message: str, extra: dict | None = None) -> dict:
        store, limit = self.sim[target], _LIMITS[target]
        current = len(DELIMITER.join(store)) if store else 0
        return {"success": True, "done": True, "target": target,
                "usage": f"{min(100, int(current / limit * 100))}% — {current:,}/{limit:,} chars",
                "entry_count": len(store), "message": message, **(extra or {}),
                "note": "Write saved. This update is complete — do not repeat it."}


def system_prompt(plan: Plan) -> str:
    """The session's system prompt as 0.22.2 builds it around the memory it loaded (its persona and
    tool guidance shortened): the MEMORY and USER blocks in the volatile tier, then the profile line
    and the start time (HERMES-FORMATS.md §8)."""
    started = datetime.fromtimestamp(plan.start, tz=timezone.utc)
    blocks = [b for b in (hermes_memory.prompt_block(t, list(plan.extra["loaded"][t]), _LIMITS[t], STORY_RELEASE)
                          for t in ("memory", "user")) if b]
    return "\n\n".join([V.PERSONA, *blocks,
                         "Active Hermes profile: default. Other profiles (if any) live under ~/.hermes/profiles/<name>/.",
                         f"Conversation started: {started:%A, %B %d, %Y} (UTC, UTC+00:00)\n"
                         f"Model: {plan.extra['model']}\nPlatform: {plan.source}"])


def _long_log(r: random.Random) -> str:
    """A ~12,000-char export log with ANSI colours and markup-looking text (tool content > 8,192)."""
    lines = []
    for i in range(160):
        level = ("INFO", "INFO", "INFO", "\x1b[33mWARN\x1b[0m", "\x1b[31mERROR\x1b[0m")[int(r.random() * 5)]
        lines.append(f"2026-11-06T07:{i // 60:02d}:{i % 60:02d}Z {level} export batch {i:03d}: "
                     f"{int(r.random() * 50)} invoices, company=[bold]ACME {i}[/] ok")
    return "\n".join(lines)


# The story: (key, when, source, lang, project, title, script, options). `when` is (days before
# today, hh, mm) in UTC, or a fixed session id. Memory writes: (action, target, text key, old_text),
# see SessionPlanner._memory_write. Replayed with the release's rules, the writes that landed give
# the demo's MEMORY.md and USER.md except two entries the user added by hand after the release's
# scanner refused the agent's write (`ssh`: ~/.ssh, s08; `emoji`: U+200D in the emoji, s11).
def _w(*keys, target="memory"):
    return [("add", target, k, None) for k in keys]


STORY = [
    ("s01", (118, 8, 10), "cli", "en", "tideway", "Getting tideway running",
     [("say", "user", "hello"), ("mem", "hello_ack", _w("name", "timezone", "languages", target="user")),
      ("say", "user", "setup"),
      ("tool", "terminal", {"command": "cd ~/code/tideway && uv sync && uv run alembic upgrade head"},
       "Resolved 84 packages in 1.21s\nInstalled 84 packages in 2.03s\nINFO  [alembic.runtime.migration] "
       "Running upgrade  -> 5f1c2a9e0b7d, initial schema\n(37 migrations applied)"),
      ("mem", "setup_done", [("batch", "memory", [("add", "stale", None), ("add", "machine_old", None),
                                                   ("add", "tideway", None), ("add", "docker_sudo", None)], None)]),
      ("fill", 2)], {}),
    ("s02", (104, 13, 30), "cli", "en", "harbor-web", "harbor-web dev setup",
     [("fill", 1), ("say", "user", "pnpm"), ("mem", "pnpm_ack", _w("pnpm_a", "harbor")), ("fill", 1),
      ("plant", "assistant"), ("fill", 1)], {}),
    ("s03", (95, 9, 5), "cli", "en", "tideway", "Paylane invoice export",
     [("fill", 1), ("say", "user", "rate"), ("mem", "rate_ack", _w("rate_100", "weasyprint")), ("fill", 2)], {}),
    ("s04", (88, 15, 20), "cli", "fr", "tideway", "Tests async ignorés",
     [("fill", 1, 0), ("fill", 1), ("say", "user", "pitfall"), ("mem", "pitfall_ack", _w("pitfall")), ("fill", 1)], {}),
    ("s05", (80, 18, 40), "telegram", "fr", "tideway", "Préférences de réponse",
     [("say", "user", "style"), ("mem", "style_ack", _w("style", "peeves", target="user")), ("fill", 1)], {}),
    ("c1", (72, 9, 30), "cli", "en", "tideway", "Invoice export refactor",
     [("fill", 4)], {"end": "compression"}),
    ("c1b", (72, 9, 30), "cli", "en", "tideway", "Invoice export refactor #2",
     [("summary",), ("fill", 2)], {"after": "c1", "parent": "c1"}),
    ("s06", (70, 10, 15), "telegram", "fr", "harbor-web", "Doc utilisateur en français",
     [("fill", 1), ("say", "user", "french_docs"), ("mem", "french_docs_ack", _w("french")), ("plant", "user"),
      ("fill", 1)], {}),
    ("s07", (66, 14, 0), "cli", "en", "tideway", "Docker without sudo",
     [("say", "user", "docker"),
      ("mem", "docker_ack", [("remove", "memory", None, "needs sudo"), *_w("docker")]), ("fill", 1)], {}),
    ("s08", (60, 16, 10), "cli", "en", "tideway", "How to release tideway",
     [("say", "user", "release"), ("mem", "release_ack", _w("release", "ssh"), {"close": "release_close"}),
      ("fill", 1), ("hand", "memory", "ssh")], {}),
    ("s09", (55, 12, 45), "discord", "en", "tideway", "Branch protection",
     [("fill", 1), ("say", "user", "main"), ("mem", "main_ack", _w("main_branch")), ("plant", "user"),
      ("fill", 1)], {}),
    ("s10", (48, 10, 0), "cli", "en", "harbor-web", "harbor-web lint setup",
     [("fill", 1), ("say", "user", "pnpm_again"), ("mem", "pnpm_again_ack", _w("pnpm_a", "pnpm_b")), ("fill", 1)], {}),
    ("s11", (45, 19, 30), "telegram", "en", "lighthouse-bot", "Signature emoji",
     [("say", "user", "signature"),
      ("mem", "signature_ack", _w("emoji", "chat_langs", target="user"), {"close": "signature_close"}),
      ("fill", 1), ("hand", "user", "emoji")], {}),
    ("small", SMALL_SESSION_ID, "cli", "en", "tideway", "Trace slow /invoices endpoint",
     [("fillto", 49, 3), ("plant", "user"), ("fillto", SMALL_SESSION_MESSAGES, 3)], {}),
    ("k40", (40, 8, 45), "cli", "en", "tideway", "Export backfill",
     [("fill", 3), ("compact",), ("summary",), ("fill", 2)], {}),
    ("c2", (33, 17, 20), "telegram", "fr", "lighthouse-bot", "Alertes disque",
     [("fill", 3)], {"end": "compression"}),
    ("c2b", (33, 17, 20), "telegram", "fr", "lighthouse-bot", "Alertes disque #2",
     [("summary",), ("fill", 2)], {"after": "c2", "parent": "c2"}),
    ("s12", (30, 11, 10), "cli", "en", "tideway", "Paylane limit raised",
     [("say", "user", "rate_up"), ("mem", "rate_up_ack", _w("rate_1000")), ("fill", 1)], {}),
    ("sa1", (30, 11, 40), "subagent", "en", "tideway", None,
     [("say", "user", V.SUBAGENT_TASK), ("work", 4), ("say", "assistant", V.SUBAGENT_RESULT)],
     {"parent": "s12", "kind": "subagent", "end": "completed"}),
    # a gateway chat never resets by itself (0.22): still open, last used two days ago, on the memory
    # it loaded 25 days ago
    ("s13", (25, 7, 50), "telegram", "fr", "lighthouse-bot", "lighthouse-bot",
     [("say", "user", "lighthouse"), ("mem", "lighthouse_ack", _w("lighthouse")), ("later", 2, 18, 30),
      ("fill", 1)], {"open": True}),
    ("kb1", (22, 9, 0), "kanban", "en", "tideway", V.KANBAN_TASKS[0][0],
     [("say", "user", V.KANBAN_TASKS[0][1]), ("say", "assistant", V.KANBAN_TASKS[0][2])], {"end": "completed"}),
    ("s14", (23, 20, 10), "discord", "en", "harbor-web", "Intro",
     [("say", "user", "side"), ("mem", "side_ack", _w("laptops", target="user")), ("fill", 1)], {}),
    ("t1", (18, 5, 30), "tool", "en", "tideway", None, [], {"end": "completed", "tool_run": (412, 0)}),
    ("s15", (15, 9, 0), "cli", "en", "tideway", "Node 22",
     [("say", "user", "node"), ("mem", "node_try", [("patch", "memory", "node_22", "Node 20.11")]),
      ("mem", "node_ack", [("patch", "memory", "node_22", "Node 20")]),
      ("fill", 1), ("later", 1, 9, 30), ("fill", 1)], {"open": True}),  # resumed (`hermes -r`) yesterday
    # write approval on: the Discord chat stages the write, and the user approves it there an hour later
    ("s15d", (14, 11, 5), "discord", "en", "harbor-web", "Side project",
     [("say", "user", "side_again"), ("mem", "side_again_ack", _w("vague", target="user"),
                                      {"pending": C.APPROVED_IN_HERMES_ID}),
      ("later", 14, 12, 10), ("approve", C.APPROVED_IN_HERMES_ID), ("say", "assistant", "side_approved")], {}),
    ("s16", (12, 14, 30), "cli", "en", "harbor-web", "Vite migration follow-up",
     [("fill", 1), ("say", "user", "vite"), ("say", "assistant", "vite_ack"), ("review", "memory", "relative"),
      ("plant", "assistant"), ("fill", 1)], {}),
    ("sa2", (12, 15, 0), "subagent", "en", "harbor-web", None,
     [("say", "user", "Subtask: list the Webpack-only plugins still referenced in harbor-web."), ("work", 4),
      ("say", "assistant", "Two left: `svgr-loader` (replace with vite-plugin-svgr) and `webpack-bundle-analyzer`.")],
     {"parent": "s16", "kind": "subagent", "end": "completed"}),
    ("s17", (9, 10, 20), "cli", "en", "tideway", "Escaping Rich markup",
     [("say", "user", "markup_q"), ("longlog",), ("say", "assistant", "markup_a"), ("say", "user", "Details?"),
      ("say", "assistant", V.LONG_ANSWER), ("mem", "markup_ack", _w("markup")), ("fill", 1)], {}),
    ("kb2", (8, 9, 0), "kanban", "en", "tideway", V.KANBAN_TASKS[1][0],
     [("say", "user", V.KANBAN_TASKS[1][1]), ("say", "assistant", V.KANBAN_TASKS[1][2])], {"end": "completed"}),
    ("s19", (5, 16, 20), "cli", "it", "harbor-web", "Certificato TLS",
     [("say", "user", "tls_cert"), ("say", "assistant", "tls_cert_ack"), ("fill", 1)], {}),
    ("s18", (3, 15, 44), "telegram", "fr", "tideway", "Limite Paylane et sandbox",
     [("say", "user", "sandbox"),
      ("mem", "sandbox_ack", [("batch", "memory", [("patch", "batch_rate", C.PENDING_BATCH_PATCH[0]),
                                                   ("add", "batch_add", None)], None)],
       {"pending": C.PENDING_IDS["batch"]}), ("fill", 1)], {}),
]
