"""Conversation material for the demo's state.db (core.demo.sessions): the slot pools (projects,
files, errors…), tool-call prefaces, cron jobs, the hidden-by-default sources, the scripted story
lines around memory writes, reasoning and long answers. The intents themselves are in intents.py.

Everything here is data (see core/demo/content.py for the rules that hold for all of it).
"""

from __future__ import annotations

# ------------------------------------------------------------------------------------------
# Conversation material: slot pools (language-independent technical strings)

PROJECTS = ("tideway", "harbor-web", "lighthouse-bot")

FILES = {
    "tideway": ("tideway/billing/webhooks.py", "tideway/api/invoices.py",
                "tideway/models/invoice.py", "tideway/services/export.py", "tideway/db/session.py"),
    "harbor-web": ("src/app/invoices/page.tsx", "src/lib/api.ts", "vite.config.ts",
                   "src/components/PayoutsTable.tsx", "src/app/layout.tsx"),
    "lighthouse-bot": ("bot/alerts.py", "bot/handlers/status.py", "systemd/lighthouse-bot.service",
                       "bot/telegram_client.py"),
}
TESTS = ("tests/api/test_invoices.py::test_list_paginates",
         "tests/billing/test_webhooks.py::test_signature_tolerance",
         "tests/billing/test_rate_limit.py::test_backoff_on_429",
         "tests/services/test_export.py::test_csv_headers",
         "tests/models/test_invoice.py::test_due_date_timezone")
ERRORS = ("AssertionError: assert 429 == 200",
          "sqlalchemy.exc.IntegrityError: duplicate key value violates unique constraint "
          "\"invoices_number_key\"",
          "TimeoutError: Paylane sandbox did not answer within 10s",
          "KeyError: 'customer_id'",
          "TypeError: can't compare offset-naive and offset-aware datetimes")
BRANCHES = ("main", "feat/invoice-export", "fix/webhook-tolerance", "chore/deps-november",
            "feat/vite-migration", "fix/payouts-contrast")
COLUMNS = ("due_date", "currency", "paid_at", "external_ref", "dunning_level")
TABLES = ("invoices", "customers", "payouts", "webhook_events")
PACKAGES = ("next", "@tanstack/react-query", "zod", "vitest", "tailwindcss", "eslint")
JOBS = ("test (3.12)", "lint", "build", "e2e", "deploy")
ENDPOINTS = ("/invoices", "/payouts", "/webhooks/paylane", "/customers/search", "/exports/csv")
ALERTS = ("disk usage > 85% on tideway-prod", "Paylane webhook backlog > 500",
          "TLS certificate expires in 7 days", "5xx rate above 2% on tideway",
          "lighthouse-bot heartbeat missing")
TOPICS = ("FastAPI lifespan events", "Vite 6", "SQLAlchemy 2.1", "Next.js 15 caching",
          "Postgres 17 logical replication", "pnpm catalogs")
RECALL = ("the invoice export format", "webhook retries", "the Vite migration",
          "Paylane rate limiting", "the staging database upgrade")

# Short tool-call prefaces per language ("" is common: a bare tool call).
PREFACE = {
    "en": ("", "", "Let me check.", "Looking at it now.", "I'll run it first."),
    "fr": ("", "", "Je regarde.", "Je vérifie d'abord.", "Je lance ça."),
    "es": ("", "", "Lo miro.", "Primero lo compruebo.", "Lo ejecuto."),
    "it": ("", "", "Controllo.", "Prima verifico.", "Lo lancio."),
    "ru": ("", "", "Сейчас посмотрю.", "Сначала проверю.", "Запускаю."),
    "zh": ("", "", "我先看一下。", "我先检查一下。", "我先运行一下。"),
}


# ------------------------------------------------------------------------------------------
# Cron jobs: (key, title, UTC hour, minute, every n days, prompt, tool steps, reports)

CRON_JOBS = [
    ("weekly", "Cron: rapport ops hebdomadaire", 6, 0, 7,
     "Rapport ops hebdomadaire : résume les alertes lighthouse-bot, les runs CI en échec et la "
     "réconciliation Paylane des 7 derniers jours. Publie-le dans #ops.",
     [("terminal", {"command": "journalctl -u lighthouse-bot --since '7 days ago' | grep ALERT"},
       ("{date}T{time}:00 lighthouse-bot[812]: [bold]ALERT[/] {alert}\n"
        "{date}T{time}:00 lighthouse-bot[812]: [bold]ALERT[/] TLS certificate expires in 7 days",)),
      ("terminal", {"command": "gh run list --status failure --limit 10"},
       ("completed\tfailure\tfeat: CSV export\t{job}\tfeat/invoice-export\tpush\t{run}\t3m12s",))],
     ("**Semaine du {prevdate}**\n- Alertes : {count} (dont « {alert} »)\n- CI : 1 run en échec "
      "({job}), corrigé\n- Paylane : réconciliation OK, aucun écart\nRien d'autre à signaler.",
      "**Semaine du {prevdate}**\n- Alertes : {count}, toutes résolues\n- CI : vert partout\n"
      "- Paylane : 2 écarts corrigés par re-synchronisation")),
    ("audit", "Cron: nightly dependency audit", 2, 30, 1,
     "Nightly dependency audit: run `pnpm audit` in harbor-web and `uv pip list --outdated` in "
     "tideway; report only high or critical findings.",
     [("terminal", {"command": "cd ~/code/harbor-web && pnpm audit --audit-level high"},
       ("No known vulnerabilities found",
        "┌─────────────────────┬────────────────────────────────────┐\n"
        "│ high                │ Prototype pollution in {pkg}        │\n"
        "│ Patched versions    │ >={new}                             │\n"
        "└─────────────────────┴────────────────────────────────────┘\n1 vulnerabilities found"))],
     ("No high or critical advisories tonight. {count} outdated packages in tideway, none "
      "security-relevant.",
      "1 high advisory: {pkg} < {new} (prototype pollution). Fix: `pnpm up {pkg}@{new}` in "
      "harbor-web.")),
    ("recon", "Cron: daily Paylane reconciliation", 5, 0, 1,
     "Daily Paylane reconciliation: compare yesterday's Paylane payouts with tideway invoices and "
     "list mismatches.",
     [("terminal", {"command": "uv run python -m tideway.tools.reconcile --day yesterday"},
       ("payouts: {count}12\ninvoices matched: {count}12\nmismatches: 0",
        "payouts: {count}12\ninvoices matched: {count}10\nmismatches: 2 (INV-{pr}, INV-{pr1})"))],
     ("{count}12 payouts, all matched - no mismatches.",
      "2 mismatches: INV-{pr} and INV-{pr1} are paid in Paylane but still open in tideway "
      "(webhook missed). Re-sync queued.")),
]

# ------------------------------------------------------------------------------------------
# The hidden-by-default sources (kanban, subagent, tool) and the compaction summary

KANBAN_TASKS = (
    ("Kanban #142: triage webhook retries",
     "Card #142 (In progress): Paylane retries webhooks up to 8 times. Decide whether tideway "
     "should return 200 for events it already processed.",
     "Triage note: yes - return 200 for known event ids, log at INFO. Moved #142 to Review."),
    ("Kanban #157: invoice CSV export columns",
     "Card #157 (To do): the accounting team wants `external_ref` and `paid_at` in the CSV export.",
     "Estimated at 2 points; depends on the `invoices.external_ref` migration. Moved to Ready."),
    ("Kanban #118: flaky payout sync test",
     "Card #118 (To do): `test_payout_sync_resumes` fails about once a week on CI. Find out why.",
     "It relies on wall-clock time crossing a minute boundary. Proposed fix: freeze time in the test. "
     "Moved to Ready, 1 point."),
    ("Kanban #131: dunning email wording",
     "Card #131 (Review): support says the second dunning email sounds threatening. Suggest wording.",
     "Draft attached to the card: softer subject line, the amount and due date first, the link to pay "
     "before any mention of suspension. Back to Review."),
    ("Kanban #149: archive old webhook events",
     "Card #149 (To do): `webhook_events` has 9 million rows. Decide what to keep.",
     "Keep 90 days in the table, move older rows to a monthly Parquet file in the archive bucket. "
     "Estimated at 3 points."),
    ("Kanban #163: harbor-web preview cleanup",
     "Card #163 (In progress): preview deploys of merged PRs are never deleted. Clean them up.",
     "A nightly job deletes previews whose PR is closed for more than 2 days; 64 old previews removed. "
     "Moved to Done."),
)
SUBAGENT_TASKS = (
    ("Subtask: list every call site of `verify_signature` in tideway and report which ones pass the "
     "raw request body.",
     "3 call sites: `tideway/billing/webhooks.py:88` (raw body, OK), `tideway/billing/replay.py:41` "
     "(re-serialised JSON - signature will fail), `tests/billing/test_webhooks.py:17` (raw body, OK)."),
    ("Subtask: find every place in tideway that formats an amount with `float`.",
     "4 places: the CSV export, the dunning email, the admin invoice list and one test helper. The "
     "PDF already uses `Decimal`."),
    ("Subtask: list the environment variables harbor-web reads and whether each one is documented.",
     "17 variables; 14 documented in `.env.example`. Missing there: `SENTRY_RELEASE`, "
     "`PREVIEW_BASIC_AUTH` and `FEATURE_REPORTS_V2`."),
    ("Subtask: check which lighthouse-bot commands have no test.",
     "`/mute`, `/rerun` and `/lang` have no test; the other five commands each have at least one."),
)
SUBAGENT_TASK, SUBAGENT_RESULT = SUBAGENT_TASKS[0]


def tool_session(day: str, payouts: int, missing: int) -> tuple[str, str]:
    """A `hermes tool` run of the reconciliation: its title (the command) and its output."""
    matched = payouts - missing
    return (f"Tool run: tideway.tools.reconcile --day {day}",
            f"reconcile {day}: {payouts} payouts, {matched} invoices matched, {missing} mismatches")

COMPACTION_SUMMARY = ("[Context summary] Earlier in this session the user asked: {ask} The agent worked "
                      "on it with {calls} tool calls and answered; the conversation goes on from there.")

# ------------------------------------------------------------------------------------------
# The agent's tool work between a question and its answer in the hand-written sessions
# (dialogues.py, story_talk.py): (tool, arguments, outputs) per project, with the slots above.
# Outputs are as long as the real ones (a listing, a test run's summary), so a search for a word
# finds the people's sentences before the tool traffic that happens to hold it.

_PYTEST = ("============================= test session starts ==============================\n"
           "platform linux -- Python 3.12.7, pytest-8.3.3, pluggy-1.5.0\n"
           "rootdir: /home/ines/code/{project}\nconfigfile: pyproject.toml\n"
           "plugins: asyncio-0.24.0, respx-0.21.1, cov-6.0.0\ncollected {n} items\n\n"
           "tests/api ........................................................ [ 31%]\n"
           "tests/billing .................................................... [ 58%]\n"
           "tests/models ...................................... [ 77%]\n"
           "tests/services ......................................... [100%]\n\n"
           "============================= {n} passed in {secs}s =============================")
_LISTING = ("{line}\t    async with session.begin():\n{line1}\t        row = await session.get(Model, key)\n"
            "{line2}\t        if row is None:\n{line3}\t            raise NotFound(key)\n"
            "{line4}\t        row.updated_at = utcnow()\n{line5}\t    log.info(\"updated\", key=key)\n"
            "{line6}\t    return row")
_VITEST = (" RUN  v2.1.5 /home/ines/code/harbor-web\n\n ✓ src/lib/format.test.ts ({ms2} tests)\n"
           " ✓ src/lib/schemas.test.ts (14 tests)\n ✓ src/components/Table.test.tsx (9 tests)\n"
           " ✓ src/app/page.test.tsx (6 tests)\n\n Test Files  {count} passed ({count})\n"
           "      Tests  {n} passed ({n})\n   Start at  {time}:12\n   Duration  {secs}s")

WORK = {
    "tideway": (
        ("read_file", {"path": "{file}", "offset": "{line}", "limit": "40"}, (_LISTING,)),
        ("terminal", {"command": "uv run pytest -q -p no:randomly"}, (_PYTEST,)),
        ("terminal", {"command": "uv run ruff check . && uv run mypy tideway"},
         ("All checks passed!\nSuccess: no issues found in {count} source files",)),
        ("terminal", {"command": "uv run alembic history -r-3:"},
         ("{prevrev} -> {rev} (head), {count} rows check\n{ms2}a1c0e3 -> {prevrev}, index on "
          "customer_id and paid_at\n5f1c2a9e0b7d -> {ms2}a1c0e3, initial schema",)),
        ("terminal", {"command": "git diff --stat HEAD~1"},
         (" {file}                     | {count} ++++++++++++-----\n tests/conftest.py          "
          "         |  6 ++++--\n tests/fixtures/paylane_payloads.json  | {ms2} +++++++++\n CHANGELOG.md        "
          "                  |  2 +\n docs/operations.md                    |  4 ++--\n 5 files changed, "
          "{n} insertions(+), 9 deletions(-)",)),
    ),
    "harbor-web": (
        ("read_file", {"path": "{file}", "offset": "{line}", "limit": "40"},
         ("{line}\texport function Section({{ title, children }}: Props) {{\n{line1}\t  const id = useId()\n"
          "{line2}\t  return (\n{line3}\t    <section aria-labelledby={{id}}>\n{line4}\t      <h2 id={{id}}>"
          "{{title}}</h2>\n{line5}\t      {{children}}\n{line6}\t    </section>",)),
        ("terminal", {"command": "pnpm vitest run --reporter=verbose"}, (_VITEST,)),
        ("terminal", {"command": "pnpm typecheck && pnpm eslint . --max-warnings 0"},
         ("> harbor-web@0.1.0 typecheck /home/ines/code/harbor-web\n> tsc --noEmit\n\n"
          "> harbor-web@0.1.0 eslint /home/ines/code/harbor-web\n> eslint . --max-warnings 0",)),
        ("terminal", {"command": "pnpm next build --no-lint"},
         ("   ▲ Next.js 15.0.3\n   Creating an optimized production build ...\n ✓ Compiled successfully\n"
          " ✓ Collecting page data\n ✓ Generating static pages ({count}/{count})\n\nRoute (app)  Size  "
          "First Load JS\n┌ ○ /  {ms2} kB  1{ms2} kB\n└ ƒ /reports  {count} kB  1{count} kB",)),
    ),
    "lighthouse-bot": (
        ("read_file", {"path": "{file}", "offset": "{line}", "limit": "40"}, (_LISTING,)),
        ("terminal", {"command": "systemctl status lighthouse-bot --no-pager -n 5"},
         ("● lighthouse-bot.service - lighthouse ops bot\n     Loaded: loaded (/etc/systemd/system/"
          "lighthouse-bot.service; enabled)\n     Active: active (running) since {date} {time}:00 UTC\n"
          "   Main PID: 812 (python)\n      Tasks: 4 (limit: 4915)\n     Memory: {ms2}.4M",)),
        ("terminal", {"command": "uv run pytest -q"},
         ("============================= test session starts ==============================\n"
          "platform linux -- Python 3.12.7, pytest-8.3.3, pluggy-1.5.0\nrootdir: /home/ines/code/lighthouse-bot\n"
          "collected {count} items\n\ntests/test_alerts.py ....................... [ 41%]\n"
          "tests/test_commands.py .......................... [ 88%]\ntests/test_schedule.py ...... [100%]\n\n"
          "============================= {count} passed in {secs}s =============================",)),
    ),
}

# ------------------------------------------------------------------------------------------
# Story lines: the scripted messages around memory writes (per language)

STORY_LINES = {
    "hello": ("Hi! I'm Inès Moreau, backend engineer on the Paylane integrations at a small "
              "fintech - mostly Python and TypeScript. I'm in Paris. I speak French and English: "
              "answer in the language I write in, but code, commits and comments stay in English. "
              "First job: get tideway running on this laptop."),
    "hello_ack": "Nice to meet you, Inès. Let me note the basics so I don't ask again.",
    "setup": ("tideway lives in ~/code/tideway. Set it up and run the tests. FYI staging is on Postgres 14 "
              "(staging-db.internal:5433), prod on 16; and docker still needs sudo on this laptop."),
    "setup_done": ("tideway runs: `uv sync` installed 84 packages, `uv run alembic upgrade head` "
                   "applied 37 migrations and the API answers on :8000. Let me save the project "
                   "layout and this machine's toolchain."),
    "pnpm": "Use pnpm, not npm, please. For every JS project.",
    "pnpm_ack": "Got it - switching to pnpm and saving that.",
    "pnpm_again": "Again: pnpm, not npm! In harbor-web and in the docs site.",
    "pnpm_again_ack": "Sorry - saving it so it sticks.",
    "rate": ("Paylane support says our key is limited to 100 requests a minute. Keep the invoice "
             "export under that."),
    "rate_ack": "Noted. I'll batch the export in chunks of 50 and remember the limit.",
    "pitfall": ("Les tests async de tideway ne tournent pas du tout chez moi, pytest dit juste "
                "'skipped'. Pourquoi ?"),
    "pitfall_ack": ("Il manque `asyncio_mode = \"auto\"` dans la config pytest : sans ça, pytest-"
                    "asyncio ignore les tests async. Je l'ajoute et je le note en mémoire."),
    "style": ("Petit point sur la forme : réponses courtes, listes à puces, la commande d'abord et "
              "l'explication après. Et pas de sudo docker, pas de longs préambules ni d'excuses."),
    "style_ack": "Compris, je le note.",
    "french_docs": ("Pour la doc utilisateur de harbor-web : en français, tutoiement, ton direct, "
                    "pas de superlatifs."),
    "french_docs_ack": "Entendu, je garde ça en mémoire pour la doc.",
    "docker": "Reminder: I'm in the docker group, never use sudo. And it's `docker compose` now.",
    "docker_ack": "Right - saving both so I stop doing that.",
    "release": "Walk me through cutting a tideway release, and remember the steps.",
    "release_ack": "Here are the steps; I'm saving them too, with the deploy key.",
    "release_close": ("Saved the release steps. Hermes refused the deploy-key note (its scanner blocks "
                      "anything mentioning ~/.ssh): add it to MEMORY.md by hand if you want it kept."),
    "main": "Please don't push to main directly again. Always a PR from a branch.",
    "main_ack": "Sorry about that - noted for every repo.",
    "signature": ("btw the 👩\u200d💻 at the end of my messages is just my signature. And here on "
                  "Telegram I'd rather chat in French; English is for the team Discord 👩\u200d💻"),
    "signature_ack": "Understood - I'll read it as a signature.",
    "signature_close": ("Saved the chat languages. The signature note was refused: the emoji contains an "
                        "invisible joiner (U+200D), which Hermes's scanner blocks."),
    "rate_up": ("Good news: Paylane raised our limit to 1000 req/min. Retries on 429 should back off "
                "exponentially though."),
    "rate_up_ack": "Nice. Saving the new limit and the backoff rule.",
    "lighthouse": ("lighthouse-bot, c'est le bot Telegram d'ops ; ses crons postent dans #ops à "
                   "7 h, heure de Paris."),
    "lighthouse_ack": "Noté, je le retiens.",
    "side": "I've got a side project going, might mention it sometimes. Also: ThinkPad at home, MacBook at the office.",
    "side_ack": "Noted the laptops.",
    "side_again": "Also remember that I have a side project, I'll bring it up now and then.",
    "side_again_ack": "Proposing a note about it.",
    "side_approved": "Approved - the note about your side project is saved.",
    "node": "I upgraded fnm to Node 22 this morning - update your notes.",
    "node_try": "Updating the machine note.",
    "node_ack": "",
    "vite": ("The Webpack to Vite switch for harbor-web is merged. The old config stays in "
             "legacy/webpack.config.js until the release."),
    "vite_ack": "Great - noting that the migration happened.",
    "markup_q": ("Why does my log show [bold red]ERROR[/] literally instead of in red? See "
                 "[link=https://rich.readthedocs.io]the docs[/link]."),
    "markup_a": ("Because the text comes from a user-controlled field and you print it with "
                 "markup enabled: `[bold red]` is parsed as a tag when it's well-formed and shown "
                 "raw when it isn't. Escape untrusted text with `rich.markup.escape()` first."),
    "markup_ack": "I'll remember the escaping rule.",
    "sandbox": ("Ta mémoire dit encore 100 req/min pour Paylane : c'est 1000 maintenant. Et la sandbox "
                "Paylane est remise à zéro chaque dimanche à 3 h UTC, pas de tests e2e à ce moment-là."),
    "sandbox_ack": "Je corrige l'ancienne limite et j'ajoute la sandbox.",
    # a promise with no memory call behind it (small models do this): `hmc why` and the review find it
    "tls_cert": ("Ricorda che il certificato TLS di harbor-web scade il 3 marzo: va rinnovato a mano, "
                 "il rinnovo automatico non funziona con quel dominio."),
    "tls_cert_ack": "Perfetto, me lo ricorderò!",
}

# Closing lines after a memory write (direct, then staged once write approval was switched on).
SAVED = {"en": "Saved to memory.", "fr": "C'est noté en mémoire.", "es": "Guardado en memoria.",
         "it": "Salvato in memoria.", "ru": "Сохранил в память.", "zh": "已保存到记忆。"}
STAGED = {"en": "Staged for your approval (write approval is on): see /memory pending.",
          "fr": "C'est en attente de ta validation (write approval activé) : /memory pending.",
          "es": "Pendiente de tu aprobación: /memory pending.",
          "it": "In attesa della tua approvazione: /memory pending.",
          "ru": "Ждёт твоего подтверждения: /memory pending.",
          "zh": "已提交，等待你批准：/memory pending。"}

# Where the rare benchmark term is planted ({term} is core.demo.build.RARE_TERM).
PLANT = {
    ("user", "en"): ("Let's call the export batch job {term} in the logs, so it's easy to grep.",
                     "While we're at it: tag the slow-query log lines with {term} too, same as the export job."),
    ("user", "fr"): ("On appelle le job d'export {term} dans les logs, c'est facile à grepper.",),
    ("assistant", "en"): ("Done - every log line of the export job now carries the tag {term}.",
                          "The Vite build's log lines now carry {term} as well, like the export job's."),
}
PLANT_ACK = {"en": "Sounds good, I'll use that tag.", "fr": "Ça marche, j'utilise ce tag."}

REASONING = (
    "The user wants the failure explained, not just fixed. Run the test first, then read the code "
    "around the assertion.",
    "Check the obvious first: clock, config, then code. Keep the answer short - the user prefers "
    "the command first.",
    "There may be an earlier session about this; the answer should cite it rather than guess.",
    "Two options; the cheaper one keeps the migration fast. Mention the backfill separately.",
)

# The reasoning a model shows before some answers of the hand-written sessions (about any subject).
TALK_REASONING = (
    "Answer the question asked first; details after, and only those that change what the user does next.",
    "Look before answering: read the code or run the command rather than guess from the names.",
    "Keep it short, the user reads this between other things. Say what changed and how it was checked.",
)

LONG_ANSWER = (
    "Short answer: never print untrusted text with markup enabled.\n\n"
    "Longer answer, because this bites in three places in tideway:\n\n"
    "1. **The export log.** `export.py` logs the customer's company name, which is free text typed "
    "by the customer. A company called `[bold]ACME[/]` renders bold; one called `ACME [/]` raises "
    "`MarkupError: closing tag '[/]' at position 5 has nothing to close` and the whole export "
    "job dies - that was the crash on the 3rd.\n\n"
    "2. **The CLI tables.** `tideway admin list-customers` builds a `rich.table.Table` from "
    "database rows. Cells that are plain `str` are parsed as markup. Wrap them in `Text(value)` "
    "(no markup) or pass `markup=False` to the columns you fill from data.\n\n"
    "3. **Terminal escapes.** Paylane error messages sometimes contain ANSI colour codes (their "
    "sandbox logs with colours on). `Text.from_ansi()` turns them into styles; if you want them "
    "shown literally, strip or escape the ESC character yourself before building the `Text`.\n\n"
    "What I'd change:\n"
    "- `log.info(\"exported %s\", escape(company))` everywhere a user field reaches Rich;\n"
    "- a `safe_text()` helper in `tideway/cli/render.py` that returns `Text(value)`;\n"
    "- a test that feeds `[bold]`, `[/]`, `[link=https://example.com]x[/link]` and `\\x1b[31m` "
    "through every renderer and asserts the output contains them verbatim.\n\n"
    "Why not just strip brackets? Because they are legitimate in the data: invoice references like "
    "`[INV-2041]`, Markdown links in customer notes, and JSON fragments in Paylane errors all use "
    "them, and accounting reads those logs. Escaping keeps every character and only changes how Rich "
    "interprets it; stripping would silently change what the log says.\n\n"
    "And why not turn markup off globally? We do use it on purpose in two places (the coloured "
    "status column and the summary line at the end of an export), so a global switch would make "
    "those uglier without making anything safer. The rule is simpler: *data* never goes through the "
    "markup parser, *our own literals* may.\n\n"
    "None of this needs a new dependency. Want me to open the PR on a `fix/escape-markup` branch?"
)


# The opening of every demo session's system prompt (0.22.2's identity and guidance, shortened).
PERSONA = ("You are Hermes, a helpful assistant with persistent memory. You remember what matters across "
           "sessions through the memory tool, and you say so when you save something.")
