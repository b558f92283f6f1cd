"""The hand-written conversations of the demo's ordinary sessions (core.demo.sessions): one per
session, each about one thing, in the language its writer uses.

A dialogue is (project, language, source, title, turns): the turns alternate user and assistant,
starting with the user; the title is what Hermes's title generator would call the first exchange.
Inès Moreau writes on the CLI and Telegram in English or French; her teammates write on the team
Discord: ines.m (en), dmitri.k (ru), li.wei (zh), sofia.r (es), marco.b (it). The agent's tool work
between a question and its answer is added when the session is built (conversations.WORK).

Rules for every line here: written for its dialogue (no line is shared with another), no secret,
and no memory promise or request ("remember…", "noted", "retiens…": core.sessions.promises would
read one, and the demo's promises are its story's). tests/core/test_demo_variety.py checks them.
"""

from __future__ import annotations

T, H, L = "tideway", "harbor-web", "lighthouse-bot"

DIALOGUES: list[tuple[str, str, str, str, tuple[str, ...]]] = [
    # ------------------------------------------------------------------ English, tideway
    (T, "en", "cli", "Retry Paylane 502s in the payout sync", (
        "The payout sync died on a Paylane 502 at 3am again. Can it retry instead of giving up?",
        "It only retried on 429. I added 502, 503 and 504 to the retryable statuses with the same "
        "exponential backoff (3 tries, capped at 30 s) and a test that fakes two 502s and then a 200.",
        "Log the attempt number too, otherwise the on-call person can't tell what happened.",
        "Each retry now logs `payout_sync retry 2/3 after 502 (sleep 4.0s)` at WARNING.")),
    (T, "en", "cli", "Duplicate invoice numbers after the import", (
        "After importing the October CSV we have two invoices numbered INV-2291. How is that even possible?",
        "The importer assigns numbers in Python before the insert, so two workers read the same "
        "`max(number)`. The unique constraint exists on staging but the prod table predates it.",
        "So prod has no constraint at all?",
        "Right: `invoices_number_key` was added in a migration that was marked as applied by hand on "
        "prod. I wrote a check query: 3 duplicate pairs in prod, all from the import on the 2nd.",
        "Fix the numbering to use the sequence and give me the SQL to renumber the three.",
        "Numbers now come from `invoice_number_seq` inside the insert. The renumbering SQL is in "
        "`scripts/renumber_2291.sql`, wrapped in a transaction, with the three old and new numbers in a comment.")),
    (T, "en", "cli", "Webhook signature fails on replayed events", (
        "Replaying a Paylane event from the dashboard gives `signature mismatch`, live events are fine.",
        "A replay keeps the original `Paylane-Timestamp`, so it falls outside our 300 s tolerance and "
        "the error message is misleading: it's the timestamp check, not the HMAC.",
        "Can we accept replays without weakening the check?",
        "Paylane sends `Paylane-Replay: true` plus a fresh `Paylane-Replay-Timestamp`, covered by the "
        "same webhook signature. I verify against that header when it's present and keep 300 s for both.")),
    (T, "en", "cli", "Explain the dunning levels", (
        "I'm new to the dunning code. What do dunning_level 0 to 3 actually mean?",
        "0 is no reminder sent, 1 a friendly email at due+3 days, 2 a second email at due+10 with the "
        "PDF attached, 3 means the account is suspended and support gets a ticket. The levels only go "
        "up, in `tideway/billing/dunning.py::escalate`.",
        "And who resets it when the customer pays?",
        "The `invoice.paid` webhook handler sets it back to 0, but only for that invoice; the account "
        "suspension is lifted by a separate job that runs every 15 minutes.")),
    (T, "en", "cli", "Slow customer search on staging", (
        "`/customers/search?q=dupont` takes 4 seconds on staging. Prod is fine. Why?",
        "Staging is missing the trigram index on `customers.name`: the last restore from the prod "
        "dump skipped extensions, so `pg_trgm` isn't installed and the index creation failed silently.",
        "Great. How do we stop that happening on the next restore?",
        "The restore script now runs `CREATE EXTENSION IF NOT EXISTS pg_trgm` before `pg_restore` and "
        "fails if any index is missing afterwards. Search on staging is back to 40 ms.")),
    (T, "en", "cli", "Pin the Python version for tideway", (
        "Docker image uses Python 3.12.7 but my laptop has 3.13. Should we pin it somewhere?",
        "Yes: `.python-version` with 3.12 for uv, `requires-python = \">=3.12,<3.13\"` in pyproject, "
        "and the Dockerfile's base image tag. Three places, but uv checks the first two for you.",
        "Why not just move to 3.13?",
        "asyncpg has wheels for 3.13, but weasyprint's pango bindings crash on it in our image. I'd wait "
        "for the next weasyprint release and move everything at once.")),
    (T, "en", "telegram", "Is the invoice PDF timezone bug fixed", (
        "Quick one from my phone: is the timezone bug on invoice PDFs fixed and deployed? The one with the "
        "wrong due date.",
        "It's merged (PR 318) but not deployed: the last prod deploy was Tuesday, the merge was Wednesday.",
        "Ok, it can wait for the Friday deploy.",
        "Then it goes out Friday with the CSV export changes; nothing else touches the PDF template.")),
    (T, "en", "cli", "Cursor pagination for /invoices", (
        "Offset pagination on /invoices gets slow past page 200. Let's switch to cursors.",
        "I'd use a keyset cursor on `(created_at, id)`: it's stable when new invoices arrive and uses "
        "the existing index. The cursor is base64 of both values; `?after=` replaces `?page=`.",
        "Keep `?page=` working for the accountants' spreadsheet, it's hard-coded there.",
        "`?page=` still works and logs a deprecation line with the client id, so we can see who still "
        "uses it before removing it. Tests cover both.")),
    (T, "en", "cli", "Backfill paid_at from Paylane", (
        "About 900 old invoices have status paid but no paid_at. Can we fill it from Paylane's API?",
        "Yes, `GET /v2/payments?invoice_ref=` returns `settled_at`. At 1000 requests a minute that's "
        "under a minute of calls; I'd still run it in batches of 100 with a dry-run first.",
        "Do the dry run.",
        "Dry run: 912 invoices, 907 found in Paylane, 5 not found (all from the 2023 test account). "
        "Nothing was written. The real run is `--apply`.")),
    (T, "en", "cli", "Why is the test database so slow", (
        "The test suite takes 6 minutes now. It was 2 in the summer.",
        "Most of it is the database: every test recreates the schema with `create_all`. Running the "
        "tests inside a transaction that rolls back, and creating the schema once per session, brings "
        "it to 1 min 50 on my run.",
        "Any tests that break with the rollback approach?",
        "Four tests commit on purpose (they check isolation). I marked them `@pytest.mark.real_commit` "
        "and they get a fresh database; everything else shares one.")),
    (T, "en", "discord", "Currency rounding in the CSV export", (
        "Accounting found a currency rounding difference: the CSV export shows 10.005 EUR as 10.00 but the "
        "PDF says 10.01. Which one is right?",
        "The PDF: amounts are half-up to the cent per our invoicing rules. The CSV goes through "
        "`float` and Python's round-half-even. I switched the export to `Decimal.quantize(ROUND_HALF_UP)`.",
        "Are older exports wrong too?",
        "Only rows where the third decimal is exactly 5: 14 rows since January. I listed them for "
        "accounting in the thread.")),
    (T, "en", "cli", "Postgres 16 upgrade plan for staging", (
        "Let's plan moving staging from Postgres 14 to 16 before we touch prod.",
        "Plan: snapshot, `pg_upgrade --link` on a copy, run the test suite and the slow-query report "
        "against it, then switch staging over on a Monday morning. Rollback is the snapshot.",
        "What could break for us?",
        "Two things I found: `pg_stat_statements` needs a reset after the upgrade, and our "
        "`to_char` in the monthly report relies on a locale that 16's image doesn't ship.")),
    (T, "en", "cli", "Refund endpoint design", (
        "We need a partial refund endpoint. What should the API look like?",
        "`POST /invoices/{id}/refunds` with `amount` and `reason`; it creates a refund row, calls "
        "Paylane, and returns 202 until the refund webhook confirms it. Idempotency key required.",
        "Why 202 and not 201?",
        "Because the refund isn't real until Paylane says so, and that can take minutes. 201 would "
        "tell clients it exists when it may still fail.")),
    (T, "en", "cli", "Structured logging with structlog", (
        "Our logs are a mix of f-strings and dicts. Can we move tideway to structlog?",
        "Yes. I'd configure structlog to render JSON in prod and key=value locally, and bind "
        "`request_id` and `customer_id` in a middleware so every line carries them.",
        "Will the Paylane client logs follow?",
        "They use the stdlib logger, so they go through structlog's `ProcessorFormatter` and come out "
        "in the same JSON; no change needed in that module.")),
    (T, "en", "cli", "Alembic heads conflict after merge", (
        "`alembic upgrade head` says there are multiple heads after I merged main into my branch.",
        "Your branch and main both added a migration on top of `4c1e9a`. `alembic merge heads -m "
        "\"merge export and dunning\"` creates an empty merge revision; nothing to rewrite.",
        "Is it safe to just merge like that?",
        "Here, yes: the two migrations touch different tables (`invoices` and `dunning_events`). If "
        "they had touched the same column I'd have reordered them instead.")),
    (T, "en", "telegram", "Paylane outage status", (
        "Paylane's status page shows degraded. Are we losing webhooks?",
        "No: webhooks that fail on their side are queued and retried for 72 hours. Our last received "
        "event was 4 minutes ago, so they're still flowing, just late.",
        "Should we pause the dunning job?",
        "Yes, for today: a late `invoice.paid` could suspend an account that already paid. I can "
        "disable the job until tomorrow 8:00.")),
    (T, "en", "cli", "Export job memory usage", (
        "The nightly export got OOM-killed at 2 GB. It only writes a CSV.",
        "It loads all invoices with `.all()` before writing. With `yield_per(1000)` and a streaming "
        "CSV writer the peak is 180 MB on the same data.",
        "Did the output change at all?",
        "Byte-identical: I diffed last night's file against the new run, same ordering thanks to the "
        "`ORDER BY id`.")),
    (T, "en", "cli", "FastAPI lifespan instead of startup events", (
        "FastAPI warns that on_event is deprecated. What's the replacement?",
        "A `lifespan` async context manager passed to `FastAPI(lifespan=...)`: code before `yield` "
        "runs at startup, after it at shutdown. I moved the DB pool and the Paylane client there.",
        "And the tests that used TestClient?",
        "TestClient runs the lifespan when used as a context manager; the conftest already does "
        "`with TestClient(app) as client`, so nothing else changed.")),
    (T, "en", "discord", "Who owns the reconciliation alerts", (
        "Honest question: who owns the reconciliation alerts? When it finds a mismatch at 5am, who is "
        "supposed to act?",
        "Today nobody explicitly: it posts to #ops and whoever reads it first. The runbook says "
        "backend on-call, but the alert doesn't page.",
        "Let's make it page only if the mismatch is still there at 9.",
        "I drafted that: the cron rechecks at 9:00 Paris time and pages backend on-call if any "
        "mismatch remains. It's a PR for you to review.")),
    (T, "en", "cli", "Type errors after the pydantic upgrade", (
        "mypy shows 40 new errors after bumping pydantic to 2.10.",
        "Almost all are the same thing: `Field(default=None)` on a non-optional type. Pydantic's "
        "plugin got stricter. 37 are fixed by making the annotation `X | None`.",
        "And the other three?",
        "Real bugs: three response models said `int` for fields Paylane sends as strings. I changed "
        "them to `str` and added a test with a real payload.")),
    (T, "en", "cli", "Deploy tideway from a tag", (
        "Can the tideway deploy script deploy from a git tag instead of always deploying main?",
        "Yes: `./deploy.sh v2026.11.2` now checks out the tag in a clean worktree, builds the image "
        "with the tag as its label and refuses a tag that isn't on main's history.",
        "What does it do without an argument?",
        "It prints the last five tags and exits. Deploying main by accident was the whole point.")),
    # ------------------------------------------------------------------ English, harbor-web
    (H, "en", "cli", "Dark mode for the payouts table", (
        "The payouts table is unreadable in dark mode: grey on grey.",
        "The table uses hard-coded `text-gray-500`. I replaced it with the `muted-foreground` token "
        "so both themes use their own colour; contrast is 7.1:1 in dark and 5.4:1 in light.",
        "Check the status badges too.",
        "Two badges (pending and failed) were below 4.5:1 in dark mode. Fixed with the theme's badge "
        "variants.")),
    (H, "en", "cli", "Flaky e2e test on the login page", (
        "The Playwright login test fails one run in ten on CI.",
        "It clicks 'Sign in' before the form is hydrated; the click does nothing. Waiting for "
        "`button:enabled` instead of a fixed timeout fixes it: 50 runs in a loop, no failure.",
        "Are other tests doing the same fixed wait?",
        "Six more use `waitForTimeout`. I replaced all of them with web-first assertions.")),
    (H, "en", "cli", "Bundle size jumped after adding charts", (
        "The main bundle went from 180 kB to 410 kB. I only added one chart.",
        "The chart library is imported from its root, which pulls every chart type and d3. Importing "
        "`LineChart` from its own path and lazy-loading the reports page brings the main bundle to 190 kB.",
        "Can CI fail if it grows again?",
        "Added `size-limit` with a 200 kB budget on the main chunk; the check runs after the build job.")),
    (H, "en", "cli", "Form validation with zod", (
        "The new customer form validates by hand in three places. Can we use zod?",
        "One schema in `src/lib/schemas/customer.ts`, used by the form resolver and by the API route, "
        "so client and server agree. VAT numbers get a refine for the EU format.",
        "What about error messages in French?",
        "The schema's messages are keys; the form translates them with the same i18n files as the "
        "rest of the UI.")),
    (H, "en", "discord", "Upgrade to React 19", (
        "Is it worth the upgrade to React 19 for harbor-web now?",
        "The app itself is ready: I ran the codemod and the tests pass. The blocker is the date "
        "picker, which still uses `findDOMNode` and breaks in 19.",
        "Alternatives for the date picker?",
        "The headless one from our UI kit covers our two uses (single date and range). Swapping is "
        "about a day with tests.")),
    (H, "en", "cli", "Broken images on the invoice page", (
        "Customer logos don't show on the invoice page in production, only locally.",
        "Production's Content-Security-Policy allows images from our domain only; the logos come "
        "from the CDN. Adding the CDN host to `img-src` fixes it.",
        "Anything else blocked by that header?",
        "The browser console showed one more: the fonts stylesheet. Both are in the header now, and "
        "I added a CSP report endpoint so we see the next one.")),
    (H, "en", "cli", "TanStack Query cache after logout", (
        "After logging out and in as another user, I briefly see the previous user's invoices.",
        "The query cache survives logout. Calling `queryClient.clear()` in the logout handler fixes "
        "it; I also keyed the invoice queries by user id.",
        "Isn't that a security problem?",
        "Only on a shared browser, and the data comes from the cache, not the API; still worth the "
        "fix. The API itself always checks the session.")),
    (H, "en", "cli", "Storybook stories for the billing forms", (
        "Can you add Storybook stories for the billing forms? Designers keep asking for screenshots.",
        "Added stories for the address form, the VAT form and the payment method picker, each with "
        "empty, filled, error and loading states. Storybook runs with `pnpm storybook`.",
        "And a deployed version for the designers?",
        "The CI builds Storybook on main and publishes it to the internal pages site; the link is in "
        "the README.")),
    (H, "en", "cli", "Date formatting in invoices list", (
        "The invoices list shows 11/03/2026 and nobody knows if that's March or November.",
        "It uses `toLocaleDateString()` with the browser's locale. I switched to `Intl.DateTimeFormat` "
        "with `dateStyle: 'medium'` in the user's profile language: '3 Nov 2026' or '3 nov. 2026'.",
        "Sorting still works?",
        "Sorting uses the ISO value from the API, not the displayed text, so yes.")),
    (H, "en", "telegram", "Preview deploy is down", (
        "The preview deploy for the payouts PR returns 500. Can you check from here?",
        "The preview build has no `API_BASE_URL`: preview environments got their own variables last "
        "week and this one was created before. I copied the value from staging and redeployed.",
        "It works now, thanks.",
        "The preview template now includes it, so new PRs get it automatically.")),
    (H, "en", "cli", "Accessible modal dialogs", (
        "Our modal dialogs aren't accessible: they don't trap focus and Escape doesn't close them. Fix?",
        "I moved them to the UI kit's Dialog, which traps focus, restores it on close, closes on "
        "Escape and labels itself from its title. Eleven modals changed, same look.",
        "Does the screen reader say anything useful now?",
        "VoiceOver reads 'Delete invoice, dialog' and the description; before, it read nothing at all.")),
    (H, "en", "cli", "ESLint flat config migration", (
        "ESLint 9 dropped .eslintrc. How much work is the flat config?",
        "Less than it looks: `eslint.config.js` with the three plugins we use. The import-order rule "
        "needs its new name. `pnpm lint` gives the same 0 errors as before.",
        "Prettier conflicts?",
        "`eslint-config-prettier` has a flat export; it's last in the array, so formatting rules stay "
        "off.")),
    (H, "en", "discord", "CSV download in Safari", (
        "Someone on the team says the CSV download button does nothing in Safari.",
        "Safari ignores `download` on a blob URL created after an await in some versions. Creating "
        "the link before the fetch and revoking the URL later makes it work in Safari 17 and 18.",
        "Can we test Safari in CI?",
        "Playwright's WebKit is close enough for this: I added the download test to the WebKit "
        "project.")),
    (H, "en", "cli", "Server components for the reports page", (
        "The reports page fetches five endpoints on the client. Would server components help?",
        "Yes: the page becomes a server component that fetches in parallel, and only the filters stay "
        "on the client. First paint goes from 1.8 s to 0.6 s on the preview.",
        "What about the loading spinner?",
        "Each section has its own Suspense fallback, so a slow endpoint only delays its own chart.")),
    (H, "en", "cli", "Vitest coverage thresholds", (
        "Coverage went down to 61% and nobody noticed. Can CI enforce a floor?",
        "Vitest's coverage config takes thresholds; I set 65% lines globally and 80% for `src/lib`, "
        "and wrote tests for the two files that pulled the number down.",
        "Won't that block urgent fixes?",
        "A fix that lowers coverage by a fraction still passes: the floor is 65 and we're at 68 now.")),
    # ------------------------------------------------------------------ English, lighthouse-bot
    (L, "en", "cli", "Mute alerts during maintenance", (
        "Can the bot stop posting alerts while we do planned maintenance?",
        "A `/mute 2h reason` command: alerts still get logged but aren't posted, and the bot posts "
        "one line when the mute ends with how many it held back.",
        "Who can use it?",
        "Only members of the ops chat admins list; anyone else gets a short refusal.")),
    (L, "en", "cli", "Heartbeat check false positives", (
        "The 'heartbeat missing' alert fired three times last night and the bot was fine.",
        "The check runs every minute with a 60 s threshold, so a heartbeat that's two seconds late "
        "triggers it. With a 150 s threshold there would have been no alert.",
        "And if the bot really dies?",
        "You'd know within 2.5 minutes instead of 1. For a chat bot that's fine.")),
    (L, "en", "telegram", "Bot answers twice", (
        "The bot answers twice: it answered my /status two times just now.",
        "Two instances were polling Telegram: the old one from before this morning's deploy wasn't "
        "stopped. I stopped it; `systemctl status` shows one process.",
        "How did the deploy miss it?",
        "The unit file was renamed, so the deploy stopped the new name and started it, while the old "
        "unit kept running. The old unit file is removed.")),
    (L, "en", "cli", "Disk usage alert threshold", (
        "The disk alert fires at 85% but our volume is 2 TB. That's 300 GB free.",
        "A percentage is a poor fit for big volumes. I changed it to fire when free space drops below "
        "50 GB or when usage grows more than 5% in an hour.",
        "Test it without filling a disk please.",
        "The check reads from an injected `disk_usage` function; the tests feed it numbers.")),
    (L, "en", "cli", "Weekly report formatting", (
        "The weekly report in #ops is a wall of text on mobile.",
        "Telegram renders Markdown but not tables. I rewrote it as short sections with bold headings "
        "and one line per item, and moved the full CI list behind a link.",
        "Show me a preview.",
        "I posted a preview to the test chat: 14 lines instead of 46.")),
    (L, "en", "cli", "Upgrade python-telegram-bot to v21", (
        "We're on python-telegram-bot 13. What breaks if we go to 21?",
        "Everything is async since v20: handlers become `async def`, `Updater` is replaced by "
        "`Application`. Our bot is small, so about 200 lines change.",
        "Do it on a branch and run it against the test chat.",
        "Branch `chore/ptb-21` is running against the test chat; all eight commands answer.")),
    (L, "en", "discord", "Status command shows stale data", (
        "/status in the bot says the last deploy was 3 days ago but we deployed this morning.",
        "The bot reads the deploy time from a cache it refreshes every 6 hours. I lowered it to 5 "
        "minutes and made deploys call the bot's refresh hook.",
        "Is the hook authenticated?",
        "Yes, a shared token in the environment; the endpoint answers 403 without it.")),
    # ------------------------------------------------------------------ English, other
    (T, "en", "cli", "Explain Postgres advisory locks", (
        "I've seen pg_advisory_lock in the cron code. What is it and why do we use it?",
        "It's a lock on an arbitrary number, not a row: two processes that ask for the same number "
        "wait for each other. The crons use it so two instances never run the same job at once.",
        "What happens if the process dies holding it?",
        "Session-level locks are released when the connection closes, so a crash frees it. The risk "
        "is a hung process that keeps its connection open.")),
    (H, "en", "cli", "Git bisect the broken layout", (
        "The sidebar layout is broken on narrow screens: it overlaps the content. It was fine two weeks ago.",
        "I ran `git bisect` with a Playwright screenshot check: the first bad commit is the Tailwind "
        "upgrade, which changed the default of `min-width` on flex children.",
        "Fix it where it broke, not everywhere.",
        "One class, `min-w-0`, on the content column. The screenshot test is now part of the suite.")),
    (T, "en", "cli", "Rotate the Paylane webhook secret", (
        "Paylane asks us to rotate the webhook secret this quarter. How do we do it without downtime?",
        "Paylane lets two secrets be active for 24 hours. The verifier accepts a list: the new "
        "secret first, the old one second. Deploy that, rotate in Paylane, and drop the old one tomorrow.",
        "Where does the secret live?",
        "In the environment of the API service, read at startup; rotating is an env change and a "
        "restart, no code after the first deploy.")),
    (L, "en", "cli", "Systemd restart loop", (
        "lighthouse-bot keeps restarting every few seconds on the new server.",
        "The journal shows `ModuleNotFoundError: dotenv`: the unit runs the system Python, not the "
        "virtualenv. `ExecStart` now points at the venv's python.",
        "Why didn't systemd give up?",
        "`Restart=always` with no `StartLimitBurst`; I added a limit of 5 restarts in 60 s so a broken "
        "deploy stops and alerts instead of looping.")),
    (H, "en", "cli", "Translate the onboarding emails", (
        "The onboarding emails are English only. Can harbor-web send them in French too?",
        "The templates were string literals; I moved them to the i18n files with the same keys as "
        "the UI and the email language follows the account's language setting.",
        "Who translates?",
        "I wrote first French versions in the same tone as the app, tutoiement included. Marie should "
        "review them before release.")),
    (T, "en", "discord", "Podman instead of Docker on the CI runner", (
        "The new CI runner only has podman. Will our compose file work?",
        "`podman compose` reads the same file. Two changes: the healthcheck uses `CMD-SHELL` syntax "
        "podman accepts, and the volume for Postgres needs `:Z` for SELinux on that host.",
        "Any difference for developers on docker?",
        "None; docker ignores `:Z` on macOS and Linux without SELinux.")),
    (T, "en", "cli", "Rate limit on the public API", (
        "Someone scraped /customers/search last night. Can we add a rate limit on our side?",
        "A per-token limit of 60 requests a minute with a Redis counter, answering 429 with "
        "`Retry-After`. Internal tokens are exempt.",
        "Will the accounting export hit it?",
        "It uses an internal token, so no. I checked last week's logs: no external client went above "
        "20 a minute except last night's.")),
    (H, "en", "cli", "Next.js image optimization costs", (
        "Our hosting bill shows 40k image optimizations. We have maybe 50 images.",
        "Customer logos are requested with a width taken from the window size, so every screen width "
        "is a new optimization. I fixed the widths to 64 and 128 with `sizes`.",
        "How do we check it worked?",
        "The optimizer's cache hit rate is in the hosting dashboard; I'll post tomorrow's number in "
        "the PR.")),
    (L, "en", "cli", "Alert when a cron job doesn't run", (
        "If the reconciliation cron silently doesn't run, nobody notices. Can the bot catch that?",
        "Each cron pings the bot at the end of a run. The bot knows each job's schedule and alerts "
        "if a ping is more than 30 minutes late.",
        "What about jobs that fail halfway?",
        "They ping with `status=failed` and the last log line, which the bot posts as is.")),
    (T, "en", "cli", "Idempotency keys for payment requests", (
        "We charged a customer twice when a request timed out and the client retried.",
        "The payment endpoint now requires `Idempotency-Key`; a repeat with the same key within 24 h "
        "returns the first response instead of charging again. Keys are stored with a unique index.",
        "And the double charge?",
        "Refunded through Paylane this morning; the refund webhook arrived at 10:42.")),
    # ------------------------------------------------------------------ French, tideway
    (T, "fr", "cli", "Timeout sur l'API Paylane en préprod", (
        "En préprod, les appels à Paylane partent en timeout au bout de 10 s, mais seulement le matin.",
        "Le matin, la sandbox Paylane est lente : leurs logs montrent des temps de réponse de 8 à 14 s "
        "entre 7 h et 9 h UTC. On n'y est pour rien.",
        "On peut augmenter le timeout juste en préprod ?",
        "Oui, `PAYLANE_TIMEOUT=20` dans l'environnement de préprod ; la prod reste à 10 s.")),
    (T, "fr", "cli", "Factures en double dans l'export comptable", (
        "Le cabinet comptable voit certaines factures deux fois dans l'export de septembre.",
        "L'export joint les factures aux paiements : une facture payée en deux fois sort sur deux "
        "lignes. J'ai regroupé par facture avec la somme des paiements.",
        "Ça change le format du fichier ?",
        "Une colonne en plus, `nb_paiements`, en dernière position, pour ne pas casser leur import.")),
    (T, "fr", "cli", "Comprendre le calcul de la TVA", (
        "Aide-moi à comprendre le calcul de la TVA dans tideway pour un client belge.",
        "Pour un client professionnel avec un numéro de TVA valide, autoliquidation : 0 % et la "
        "mention obligatoire sur la facture. Pour un particulier, le taux belge de 21 % depuis le "
        "guichet unique OSS.",
        "Et si le numéro de TVA est invalide ?",
        "On le traite comme un particulier et on met une alerte sur la fiche client ; la validation "
        "VIES est refaite chaque nuit.")),
    (T, "fr", "telegram", "Relance de paiement partie deux fois", (
        "Un client m'écrit qu'il a reçu deux relances ce matin. Tu peux regarder ?",
        "Le job de relance a tourné deux fois à 8 h : deux conteneurs après le déploiement d'hier "
        "soir. Le verrou Postgres n'était pas pris sur ce job-là.",
        "Tu corriges ?",
        "C'est fait : le job prend le même verrou que les autres crons. J'ai préparé un mot d'excuse "
        "pour le client si tu veux l'envoyer.")),
    (T, "fr", "cli", "Migration Alembic qui verrouille la table", (
        "La migration qui ajoute un index sur invoices a bloqué la prod 40 secondes hier.",
        "`CREATE INDEX` sans `CONCURRENTLY` verrouille la table en écriture. Dans Alembic il faut "
        "`postgresql_concurrently=True` et sortir la migration de la transaction.",
        "Comment on évite que ça se reproduise ?",
        "Un test parcourt les migrations et échoue sur tout `create_index` non concurrent sur une "
        "table de plus de 10 000 lignes en préprod.")),
    (T, "fr", "cli", "Réécrire le client Paylane en httpx", (
        "Le client Paylane utilise encore requests. On passe à httpx ?",
        "Oui : un `httpx.AsyncClient` partagé, créé au démarrage, avec les mêmes timeouts. Les appels "
        "deviennent `await`, ce qui supprime les trois `run_in_executor`.",
        "Les tests avec responses ?",
        "Remplacés par `respx`, qui mocke httpx de la même manière. 46 tests modifiés, tous verts.")),
    (T, "fr", "cli", "Pourquoi le déploiement a échoué vendredi", (
        "Le déploiement de vendredi a échoué, je n'étais pas là. Qu'est-ce qui s'est passé ?",
        "L'image s'est construite, mais le healthcheck n'a jamais répondu : la nouvelle variable "
        "`EXPORT_BUCKET` manquait en prod, et l'application refuse de démarrer sans elle.",
        "Et le rollback ?",
        "Automatique après 5 minutes, l'ancienne version a repris. La variable est ajoutée ; on peut "
        "redéployer lundi.")),
    (T, "fr", "cli", "Nettoyer les anciennes factures brouillon", (
        "On a 12 000 factures en brouillon de plus d'un an. On peut les supprimer ?",
        "Les brouillons n'ont pas de numéro et ne sont envoyés à personne, donc légalement oui. 41 "
        "sont liés à un avoir, ceux-là je les garderais.",
        "Fais un script avec un mode simulation.",
        "`tideway admin purge-drafts --older-than 365 --dry-run` liste ce qui partirait. Sans "
        "`--dry-run` il supprime par lots de 500.")),
    (T, "fr", "cli", "Requête lente sur les paiements", (
        "La requête des paiements d'un gros client est lente : la page met 9 secondes. C'est quoi le problème ?",
        "Un `ORDER BY paid_at` sans index sur `(customer_id, paid_at)` : Postgres trie 300 000 lignes. "
        "Avec l'index, 35 ms.",
        "Ajoute l'index.",
        "Migration prête, avec `CONCURRENTLY`. L'`EXPLAIN ANALYZE` avant et après est dans la PR.")),
    (T, "fr", "cli", "Format des numéros de facture", (
        "Le client veut des numéros de facture du type 2026-0001 qui repartent à 1 chaque année.",
        "Une séquence par année, créée par une migration le 1er janvier, ou un compteur dans une "
        "table avec `SELECT … FOR UPDATE`. Je préfère le compteur : pas de migration annuelle.",
        "Et les anciens numéros ?",
        "Ils restent tels quels ; le nouveau format s'applique aux factures émises à partir du "
        "1er janvier.")),
    (T, "fr", "telegram", "Webhooks Paylane en retard", (
        "Les webhooks Paylane arrivent avec 20 minutes de retard depuis ce matin, c'est nous ?",
        "Non : notre endpoint répond en 40 ms et la file est vide. Paylane annonce un incident sur "
        "leur page de statut depuis 9 h 12.",
        "Ok, on attend alors.",
        "Oui ; la réconciliation de demain matin rattrapera ce qui manquerait.")),
    (T, "fr", "cli", "Tests de charge sur l'export", (
        "Avant la campagne de fin d'année, j'aimerais des tests de charge : combien d'exports simultanés on tient ?",
        "Avec locust contre la préprod : jusqu'à 8 exports en parallèle, le temps reste sous 30 s ; "
        "à 12, la base sature en IO et tout ralentit.",
        "Donc il faut une file ?",
        "Une file avec 6 workers suffit ; au-delà les demandes attendent leur tour et l'utilisateur "
        "voit sa position.")),
    (T, "fr", "cli", "Variables d'environnement mal nommées", (
        "On a DATABASE_URL, DB_URL et POSTGRES_URL selon les services : des variables d'environnement mal "
        "nommées. On harmonise ?",
        "Je propose `DATABASE_URL` partout, c'est ce que lisent SQLAlchemy et Alembic. Les deux "
        "autres restent lus pendant un mois avec un avertissement au démarrage.",
        "Tu fais la liste des endroits ?",
        "Sept fichiers : trois compose, deux unités systemd, le CI et le script de restauration. "
        "Tout est dans la PR.")),
    (T, "fr", "cli", "Erreur 422 sur la création de client", (
        "Le front reçoit une 422 quand on crée un client sans téléphone, alors que c'est facultatif.",
        "Le schéma Pydantic a `phone: str = \"\"` mais le front envoie `null`. J'ai mis `str | None` "
        "et la base accepte déjà NULL.",
        "D'autres champs dans le même cas ?",
        "`company` et `vat_number`. Corrigés aussi, avec un test qui envoie `null` partout.")),
    (T, "fr", "cli", "Sauvegardes de la base de prod", (
        "On est sûrs que les sauvegardes de la base de prod fonctionnent ?",
        "Les sauvegardes tournent chaque nuit, mais personne n'a testé de restauration depuis mai. "
        "J'ai restauré celle de cette nuit sur une machine jetable : 11 minutes, données cohérentes.",
        "On peut automatiser ce test ?",
        "Un cron hebdomadaire restaure la dernière sauvegarde et lance trois requêtes de contrôle ; "
        "lighthouse-bot poste le résultat.")),
    # ------------------------------------------------------------------ French, harbor-web
    (H, "fr", "cli", "Traduction de la page de facturation", (
        "Il reste des textes en anglais sur la page de facturation, tu peux les trouver ?",
        "Neuf chaînes en dur, surtout dans les messages d'erreur et les info-bulles. Je les ai "
        "passées dans les fichiers de traduction, en tutoyant comme le reste de l'interface.",
        "Comment on évite d'en oublier à l'avenir ?",
        "Une règle ESLint signale le texte en dur dans le JSX ; elle est en avertissement pour "
        "l'instant.")),
    (H, "fr", "cli", "Le formulaire d'adresse perd la saisie", (
        "Quand on change de pays dans le formulaire d'adresse, tout ce qu'on a tapé disparaît.",
        "Le changement de pays remonte un nouveau composant (la clé dépend du pays), donc l'état est "
        "perdu. J'ai gardé le composant et seul le format du code postal change.",
        "Le code postal déjà tapé ?",
        "Il reste, et il est revalidé avec les règles du nouveau pays.")),
    (H, "fr", "cli", "Passer à pnpm workspaces", (
        "On a le front et la lib de composants dans deux dépôts. On pourrait faire un monorepo ?",
        "Avec pnpm workspaces : `apps/web` et `packages/ui`, un seul lockfile, et la lib est liée "
        "sans publication. L'historique des deux dépôts peut être conservé.",
        "Et le CI ?",
        "Un seul pipeline qui ne reconstruit que ce qui a changé, avec `pnpm --filter`.")),
    (H, "fr", "cli", "Tableau des paiements trop lent", (
        "Le tableau des paiements rame dès qu'il y a plus de 2 000 lignes.",
        "Il rend toutes les lignes. Avec la virtualisation, seules les 30 visibles sont dans le DOM ; "
        "le défilement reste fluide à 20 000 lignes.",
        "La recherche dans la page du navigateur ne marchera plus ?",
        "Exact, Ctrl+F ne trouve que les lignes visibles ; il y a déjà un filtre dans l'en-tête, "
        "que j'ai rendu plus visible.")),
    (H, "fr", "telegram", "Le site de préprod affiche une page blanche", (
        "Le site de préprod affiche une page blanche, je suis dans le train, tu peux regarder ?",
        "La console montre une erreur de chargement de chunk : le CDN sert encore l'ancien "
        "`index.html` qui pointe vers des fichiers supprimés. J'ai purgé le cache du CDN.",
        "Ça remarche, merci.",
        "Pour la suite, le déploiement purge le cache de `index.html` à chaque fois.")),
    (H, "fr", "cli", "Messages d'erreur plus clairs", (
        "Quand le paiement échoue, on affiche « Erreur 402 ». Les clients ne comprennent pas.",
        "Paylane renvoie un code de refus précis. J'ai fait correspondre les huit codes les plus "
        "fréquents à des phrases claires, par exemple « Ta banque a refusé le paiement ».",
        "Et pour les autres codes ?",
        "Un message générique avec un lien vers le support et le code entre parenthèses.")),
    (H, "fr", "cli", "Mise à jour de Next.js 15", (
        "On est en Next.js 14. Le passage à la 15 est compliqué ?",
        "Le plus gros changement : les requêtes `fetch` ne sont plus mises en cache par défaut. Nos "
        "pages de rapport en dépendaient, j'ai mis le cache explicitement là où il faut.",
        "Autre chose ?",
        "`cookies()` et `headers()` deviennent asynchrones : 14 appels à modifier, le codemod en a "
        "fait 12.")),
    (H, "fr", "cli", "Icônes floues sur écran Retina", (
        "Les icônes du menu sont floues sur mon MacBook.",
        "Ce sont des PNG en 1x. Je les ai remplacées par les SVG du kit d'icônes, nettes à toutes "
        "les tailles, et le paquet est plus léger de 40 ko.",
        "Les couleurs suivent le thème ?",
        "Oui, elles utilisent `currentColor`.")),
    (H, "fr", "cli", "Favicon manquant en production", (
        "Le favicon n'apparaît pas en production, seulement en local.",
        "Le fichier est dans `public/` mais la config du CDN ne sert que `/assets/*`. J'ai ajouté une "
        "règle pour les fichiers à la racine.",
        "Tu as vérifié les autres fichiers à la racine ?",
        "`robots.txt` avait le même problème. Les deux répondent maintenant en 200.")),
    (H, "fr", "cli", "Double authentification des comptes admin", (
        "Les comptes admin doivent passer en double authentification avant la fin du mois.",
        "TOTP avec une appli d'authentification : l'écran d'activation montre un QR code et demande "
        "un premier code. Dix codes de secours à usage unique sont générés.",
        "Et si un admin perd son téléphone ?",
        "Un autre admin peut réinitialiser sa double authentification ; l'action est journalisée.")),
    (H, "fr", "discord", "Relecture du design des factures", (
        "Le nouveau design des factures est prêt côté maquettes. Tu peux dire ce qui manque ?",
        "Il manque deux mentions obligatoires : l'indemnité forfaitaire de recouvrement et les "
        "pénalités de retard. Et le numéro de TVA du client n'apparaît que s'il existe.",
        "C'est tout ?",
        "Le total en lettres n'est pas obligatoire ; je le retirerais, il prend trois lignes.")),
    # ------------------------------------------------------------------ French, lighthouse-bot
    (L, "fr", "telegram", "Le bot ne répond plus", (
        "lighthouse-bot ne répond plus à /status depuis une heure.",
        "Le processus tourne mais il est bloqué sur une requête vers l'API de monitoring, sans "
        "timeout. Je l'ai redémarré et ajouté un timeout de 10 s.",
        "Pourquoi aucune alerte ?",
        "Le heartbeat est envoyé par un autre thread, qui lui marchait. Il vérifie maintenant que la "
        "boucle principale a avancé.")),
    (L, "fr", "cli", "Alertes en double sur Telegram", (
        "Les alertes disque arrivent en double sur Telegram, dans #ops.",
        "Deux règles se recouvrent : l'ancienne à 85 % et la nouvelle sur l'espace libre. J'ai "
        "supprimé l'ancienne.",
        "Il y a d'autres doublons ?",
        "Non, j'ai comparé toutes les règles deux à deux ; c'était la seule.")),
    (L, "fr", "cli", "Résumé quotidien des erreurs", (
        "J'aimerais un résumé des erreurs 5xx de tideway chaque matin dans #ops.",
        "Le bot interroge les logs à 7 h, groupe les 5xx par endpoint et poste les cinq premiers "
        "avec le nombre et un exemple d'identifiant de requête.",
        "Et s'il n'y en a aucune ?",
        "Une ligne « Aucune erreur 5xx hier », pour qu'on sache que le résumé a tourné.")),
    (L, "fr", "cli", "Déployer le bot sans coupure", (
        "À chaque déploiement, le bot rate les messages pendant 20 secondes. On peut déployer sans coupure ?",
        "Il s'arrête avant que le nouveau démarre. Avec les webhooks Telegram au lieu du polling, "
        "les messages attendent chez Telegram et arrivent au redémarrage.",
        "Il faut une URL publique pour ça ?",
        "Oui, derrière le même proxy que l'API, sur un chemin avec un jeton secret.")),
    (L, "fr", "cli", "Commande pour relancer un job", (
        "Ce serait pratique de relancer la réconciliation depuis Telegram.",
        "`/rerun recon` : le bot vérifie que le job ne tourne pas déjà, le lance et poste le "
        "résultat. Seuls les admins du chat peuvent l'utiliser.",
        "Et pour les autres jobs ?",
        "La liste des jobs relançables est dans la config ; j'y ai mis la réconciliation et l'audit "
        "des dépendances.")),
    (L, "fr", "telegram", "Certificat expiré sur le monitoring", (
        "Le bot dit que le certificat du monitoring expire dans 3 jours. Il n'était pas automatique ?",
        "Si, mais le renouvellement échoue depuis un mois : le challenge HTTP est bloqué par une "
        "règle du pare-feu ajoutée en octobre. J'ai ouvert le port 80 pour le challenge seulement.",
        "Le certificat est renouvelé ?",
        "Oui, valable jusqu'en février. Le bot alertera aussi si un renouvellement échoue.")),
    # ------------------------------------------------------------------ French, other
    (T, "fr", "telegram", "Question sur les index partiels", (
        "Petite question de culture : c'est quoi un index partiel dans Postgres ?",
        "Un index avec un `WHERE` : il ne contient que les lignes qui respectent la condition. Par "
        "exemple un index sur les factures impayées seulement, bien plus petit.",
        "On en a déjà ?",
        "Un seul, sur `webhook_events` non traités. Les factures impayées seraient un bon candidat.")),
    (H, "fr", "cli", "Refaire le README du front", (
        "Le README du front (harbor-web) date de deux ans. Tu peux le refaire ?",
        "Nouvelle version : installation avec pnpm, variables d'environnement, commandes utiles, "
        "structure des dossiers et comment lancer les tests e2e. Une page au lieu de quatre.",
        "Garde la section sur le proxy, elle sert encore.",
        "Gardée, mise à jour avec le nouveau port.")),
    (T, "fr", "cli", "Revue de la PR sur les avoirs", (
        "Tu peux faire la revue de la PR de Karim sur les avoirs ?",
        "Trois remarques : le montant de l'avoir n'est pas borné par celui de la facture, le numéro "
        "d'avoir utilise la séquence des factures, et il manque un test pour l'avoir partiel.",
        "Le premier point est bloquant ?",
        "Oui : on pourrait émettre un avoir plus grand que la facture. Les deux autres peuvent "
        "attendre une seconde PR.")),
    (L, "fr", "cli", "Journaux du bot trop bavards", (
        "Les journaux du bot sont trop bavards : 2 Go par semaine.",
        "Chaque mise à jour Telegram est journalisée en entier, au niveau INFO. Je l'ai passée en "
        "DEBUG et ajouté une rotation à 100 Mo.",
        "On perd quelque chose d'utile ?",
        "Les commandes et les erreurs restent en INFO ; seuls les messages bruts passent en DEBUG.")),
    (H, "fr", "cli", "Pages d'erreur personnalisées", (
        "Nos pages d'erreur 404 et 500 sont celles par défaut de Next.js. On peut avoir des pages "
        "personnalisées ?",
        "Deux pages dans le style du site, avec un lien vers le tableau de bord et, pour la 500, "
        "l'identifiant de la requête à donner au support.",
        "Le texte ?",
        "« Cette page n'existe pas » et « Quelque chose s'est mal passé de notre côté », tutoiement "
        "compris.")),
    (T, "fr", "cli", "Monter de version SQLAlchemy", (
        "SQLAlchemy 2.1 est sorti. Ça vaut le coup de monter ?",
        "Rien ne casse dans nos tests. Le gain principal pour nous : le nouveau typage des "
        "`relationship`, qui supprime une vingtaine de `# type: ignore`.",
        "On le fait maintenant ou après la campagne ?",
        "Après : ça touche tous les modèles et on ne gagne rien de visible pour les clients.")),
    (T, "fr", "cli", "Journal d'audit des actions admin", (
        "Il faut tracer qui modifie une facture depuis l'admin.",
        "Une table `audit_log` : qui, quand, quelle facture, les champs avant et après en JSON. "
        "Écrite dans la même transaction que la modification.",
        "Et pour la consulter ?",
        "Un onglet « Historique » sur la fiche facture, en lecture seule.")),
    (H, "fr", "cli", "Impression des factures depuis le navigateur", (
        "Quand on imprime une facture depuis le navigateur, le menu et les boutons sortent aussi.",
        "J'ai ajouté une feuille de style d'impression : navigation masquée, marges A4, et le tableau "
        "ne se coupe plus au milieu d'une ligne.",
        "Le logo sort en couleur ?",
        "Oui, avec `print-color-adjust: exact`.")),
    (T, "fr", "telegram", "Combien de clients actifs", (
        "Tu peux me dire combien de clients ont eu au moins une facture ce mois-ci ?",
        "1 284 clients, contre 1 207 le mois dernier. La requête est dans le carnet d'analyse si tu "
        "veux la relancer.",
        "Et combien en retard de paiement ?",
        "96 avec au moins une facture échue, dont 11 au niveau de relance 3.")),
    (L, "fr", "cli", "Tester le bot sans Telegram", (
        "Pour tester une commande du bot je dois l'essayer dans le vrai chat. Pas mieux ?",
        "Un faux client Telegram en mémoire pour les tests : on lui envoie `/status` et on lit les "
        "réponses. Les huit commandes ont maintenant un test.",
        "Et pour essayer à la main ?",
        "`python -m bot.console` ouvre une invite où on tape les commandes comme dans le chat.")),
    (T, "fr", "cli", "Contrainte sur les montants négatifs", (
        "J'ai trouvé une facture avec un montant négatif en base. Comment des montants négatifs passent ?",
        "L'API refuse, mais l'import CSV passe directement par le modèle sans validation. Une "
        "contrainte `CHECK (amount >= 0)` en base bloque tous les chemins.",
        "La facture négative ?",
        "C'était un avoir importé comme facture ; je l'ai converti en avoir avec la même référence.")),
    (H, "fr", "telegram", "Le bouton payer est grisé", (
        "Un client dit que le bouton « Payer » reste grisé sur son téléphone.",
        "Il a un bloqueur de publicités qui bloque le script de Paylane, donc le formulaire ne se "
        "charge pas. On affiche maintenant un message quand le script ne se charge pas.",
        "Ça arrive souvent ?",
        "Environ 2 % des sessions de paiement d'après les journaux d'erreurs du front.")),
    # ------------------------------------------------------------------ Spanish (Discord)
    (T, "es", "discord", "Error de zona horaria en los vencimientos", (
        "¿Hay un error de zona horaria en los vencimientos? Las facturas de clientes en México vencen un "
        "día antes de lo que dice el PDF.",
        "Guardamos la fecha de vencimiento a medianoche UTC y el PDF la muestra en la zona del "
        "cliente: en Ciudad de México es todavía el día anterior. Ahora guardamos una fecha sin hora.",
        "¿Hay que corregir las facturas antiguas?",
        "Las pendientes, sí: 37 facturas. Las pagadas no cambian nada.")),
    (H, "es", "discord", "Traducción al español del panel", (
        "¿Cuánto costaría tener el panel de harbor-web en español?",
        "Hay unas 640 cadenas. El sistema de traducción ya soporta varios idiomas, así que el "
        "trabajo es traducir y revisar; el código solo necesita el selector de idioma.",
        "¿Puedo traducirlo yo?",
        "Claro: te preparé `es.json` con las claves y el texto en inglés al lado. ¿Te viene bien "
        "revisarlo por secciones?")),
    (T, "es", "discord", "Staging no arranca tras la migración", (
        "El entorno de staging no arranca desde la migración de esta mañana. ¿Qué pasa?",
        "La migración añade una columna NOT NULL sin valor por defecto y staging tiene filas en "
        "`payouts`. En local la tabla estaba vacía, por eso pasó.",
        "¿Cómo lo arreglamos sin perder datos?",
        "Añadir la columna como nullable, rellenarla y después poner NOT NULL, en tres pasos. "
        "Staging vuelve a arrancar con esa versión.")),
    (L, "es", "discord", "Alertas del bot en español", (
        "¿El bot puede mandarme las alertas en español a mí?",
        "Sí: cada usuario puede elegir idioma con `/lang es`. Las alertas del canal siguen en inglés "
        "y los mensajes privados usan tu idioma.",
        "¿Y los nombres de los servidores?",
        "Esos no se traducen: `tideway-prod` sigue siendo `tideway-prod`.")),
    (H, "es", "discord", "Rendimiento de la página de inicio", (
        "¿Por qué la página de inicio tarda tanto en móvil?",
        "Carga tres fuentes completas y una imagen de 2 MB. Con las fuentes reducidas a los "
        "caracteres que usamos y la imagen en AVIF, pasa de 4,1 s a 1,3 s en 4G.",
        "¿Se nota la diferencia de calidad?",
        "A simple vista no; comparé capturas en el mismo móvil.")),
    (T, "es", "discord", "Límite de peticiones de Paylane", (
        "¿Cuántas peticiones por minuto podemos hacer a Paylane ahora?",
        "Mil por minuto con nuestra clave. La exportación nocturna usa unas 200, así que hay margen "
        "de sobra.",
        "¿Y si lanzamos dos exportaciones a la vez?",
        "Seguiríamos por debajo, pero el cliente reintenta con espera exponencial si recibe un 429.")),
    (T, "es", "discord", "Informe de facturación trimestral", (
        "¿Me puedes sacar un informe de la facturación trimestral? El tercer trimestre, por país.",
        "Francia 61 %, Bélgica 14 %, España 11 %, Italia 8 %, resto 6 %. Total: 1,92 millones de "
        "euros, un 9 % más que el trimestre anterior.",
        "¿España ha crecido?",
        "Sí, del 8 % al 11 %, sobre todo por tres clientes nuevos en septiembre.")),
    (H, "es", "discord", "Formato de números en el panel", (
        "En el panel el formato de números no es el nuestro: los importes salen como 1,234.50 € y en "
        "España escribimos 1.234,50 €.",
        "Los importes se formatean siempre en inglés. Ahora usan el idioma del usuario con "
        "`Intl.NumberFormat`, así que verás 1.234,50 €.",
        "¿Las exportaciones CSV también?",
        "No, el CSV sigue con punto decimal para que Excel y la contabilidad lo lean igual.")),
    (T, "es", "discord", "Conciliación con diferencias", (
        "La conciliación de hoy marca dos diferencias. ¿Son reales?",
        "Sí: dos pagos llegaron a Paylane pero no recibimos el webhook porque el servicio se "
        "reinició a las 4:58. Ya los sincronicé a mano.",
        "¿Puede volver a pasar?",
        "Paylane reintenta los webhooks, pero solo durante una hora para esos eventos; ahora el "
        "reinicio espera a que termine la petición en curso.")),
    # ------------------------------------------------------------------ Italian (Discord)
    (H, "it", "discord", "Traduzione italiana del pannello", (
        "Marco qui: posso aiutare con la traduzione italiana di harbor-web?",
        "Volentieri: c'è già la struttura per le lingue. Ti ho preparato `it.json` con le chiavi e "
        "il testo inglese accanto, sono circa 640 stringhe.",
        "Dammi tu o Lei all'utente?",
        "Come per il francese, del tu: il tono è diretto e senza formule di cortesia.")),
    (T, "it", "discord", "Fatturazione elettronica per l'Italia", (
        "I clienti italiani chiedono la fattura elettronica. È un lavoro grosso?",
        "Sì, abbastanza: serve il formato XML FatturaPA e l'invio tramite il Sistema di Interscambio, "
        "di solito con un intermediario. Il PDF non basta più per loro.",
        "Quanto tempo?",
        "Con un intermediario che espone un'API, due o tre settimane, compresi i test con il loro "
        "ambiente di prova.")),
    (L, "it", "discord", "Il bot è lento a rispondere", (
        "Il bot è lento a rispondere: /status arriva dopo dieci secondi. È normale?",
        "No: interroga cinque servizi uno dopo l'altro. Ora le richieste partono in parallelo e la "
        "risposta arriva in meno di due secondi.",
        "E se un servizio non risponde?",
        "Dopo tre secondi viene segnato come 'non raggiungibile' e gli altri vengono mostrati lo stesso.")),
    (T, "it", "discord", "Arrotondamento dell'IVA", (
        "Problema di arrotondamento: un centesimo di differenza tra il totale IVA della fattura e la somma "
        "delle righe.",
        "Calcoliamo l'IVA riga per riga e la arrotondiamo ogni volta. La normativa italiana accetta "
        "il calcolo sul totale: ora l'IVA è calcolata sull'imponibile complessivo.",
        "Cambia qualcosa per gli altri paesi?",
        "No, per Francia e Belgio resta il calcolo per riga, come chiede il commercialista.")),
    (H, "it", "discord", "Errore nel modulo di registrazione", (
        "Un cliente non riesce a registrarsi: il modulo di registrazione dà errore sulla partita IVA, ma è giusta.",
        "La validazione controllava il formato francese anche per l'Italia. Ho aggiunto le regole "
        "italiane, undici cifre con la cifra di controllo.",
        "Ci sono altri paesi con lo stesso problema?",
        "Spagna e Belgio usavano già il loro formato; ora ci sono test per tutti e quattro.")),
    (T, "it", "discord", "Esportazione per il commercialista", (
        "Il commercialista vuole un file Excel, non il CSV. Si può fare?",
        "Sì, l'esportazione può generare anche un file `.xlsx` con le stesse colonne, gli importi "
        "come numeri e le date come date, così non deve convertire niente.",
        "Il CSV resta?",
        "Resta: il formato si sceglie con un menu accanto al pulsante di esportazione.")),
    (L, "it", "discord", "Notifiche di notte", (
        "Il bot mi manda notifiche alle tre di notte per cose non urgenti.",
        "Ora ogni allerta ha una priorità: di notte arrivano solo quelle critiche, le altre vengono "
        "raccolte e inviate alle 8.",
        "Chi decide cosa è critico?",
        "È nella configurazione delle regole; per ora solo 'prod giù' e 'pagamenti bloccati'.")),
    (H, "it", "discord", "Accessibilità dei colori", (
        "Il verde dei pulsanti è difficile da distinguere dal rosso per me, sono daltonico.",
        "Grazie di dirlo: gli stati ora hanno anche un'icona e un testo, non solo il colore, e il "
        "verde è più scuro per aumentare il contrasto.",
        "Anche nei grafici?",
        "Sì, i grafici usano una palette adatta al daltonismo e motivi diversi per ogni serie.")),
    (T, "it", "discord", "Deploy del venerdì", (
        "Facciamo il deploy anche di venerdì pomeriggio?",
        "Di solito no: il vostro runbook dice niente deploy dopo le 15 di venerdì, salvo correzioni "
        "urgenti. Quello di oggi può aspettare lunedì.",
        "E se è urgente davvero?",
        "Allora serve l'ok di chi è di turno nel fine settimana, scritto nel canale #ops.")),
    # ------------------------------------------------------------------ Chinese (Discord)
    (T, "zh", "discord", "数据库连接池耗尽", (
        "今天中午 tideway 报了好几次数据库连接超时，是连接池不够吗？",
        "连接池上限是 20，中午有一个导出任务占用了 12 个连接很久没有释放。我把导出任务改成用单独的连接池，上限 4 个。",
        "需要调大数据库的最大连接数吗？",
        "暂时不需要，数据库现在最多用到 60 个连接，上限是 200。")),
    (H, "zh", "discord", "前端中文翻译", (
        "harbor-web 的前端有计划支持中文翻译吗？我可以帮忙。",
        "多语言框架已经有了，加中文只需要翻译文件。我给你准备了 `zh.json`，英文原文放在旁边，一共大约 640 条。",
        "日期格式怎么处理？",
        "日期和金额都用浏览器的 `Intl` 按语言格式化，中文会显示成 2026年11月3日 这样的格式。")),
    (T, "zh", "discord", "数据库备份恢复演练", (
        "我们上次做数据库恢复演练是什么时候？",
        "五月，之后没有再做过。我刚才把昨晚的数据库备份恢复到一台临时机器上，用时 11 分钟，数据检查都通过了。",
        "可以每周自动做一次吗？",
        "可以，已经加了一个每周的定时任务，恢复完成后由 lighthouse-bot 在 #ops 里发结果。")),
    (L, "zh", "discord", "机器人告警太多", (
        "机器人告警太多了：lighthouse-bot 一天发了五十多条，大部分都没什么用。",
        "我统计了一下，八成是磁盘和心跳的重复告警。现在同一条告警一小时内只发一次，恢复时再发一条。",
        "会不会漏掉重要的？",
        "不会，严重级别的告警不受这个限制。")),
    (T, "zh", "discord", "数据库迁移失败回滚", (
        "昨天的数据库迁移在生产环境执行了一半就失败了，现在是什么状态？",
        "Postgres 的迁移在一个事务里执行，失败后整个迁移都回滚了，表结构和迁移前一样。失败原因是新的唯一约束和已有的重复数据冲突。",
        "重复数据怎么处理？",
        "一共三对重复的发票号，我写了一个修复脚本，先在预发布环境跑通了，再重新执行迁移。")),
    (H, "zh", "discord", "页面加载慢", (
        "在国内打开 harbor-web 很慢，要十几秒。",
        "主要是字体从国外的字体服务加载，被拦住后一直等到超时。现在字体放在我们自己的服务器上，加载时间降到两秒左右。",
        "还有别的外部资源吗？",
        "还有一个统计脚本，我给它加了异步加载，不会再阻塞页面。")),
    (T, "zh", "discord", "数据库慢查询分析", (
        "能帮我做一下数据库慢查询分析吗？想看看最慢的几条。",
        "根据 pg_stat_statements，最慢的是按客户查付款记录的查询，平均 900 毫秒，缺少 `(customer_id, paid_at)` 索引。第二是发票全文搜索。",
        "先处理哪一个？",
        "先加付款记录的索引，影响面最大，而且可以用 CONCURRENTLY 在线创建。")),
    (L, "zh", "discord", "告警消息的时区", (
        "机器人发的告警时间是 UTC，我在上海看着很不方便。",
        "现在每个人可以用 `/tz Asia/Shanghai` 设置自己的时区，私信里的时间会按你的时区显示，频道里仍然用 UTC。",
        "频道里能同时显示两个时间吗？",
        "可以在频道设置里打开，会显示成 08:00 UTC（16:00 上海）。")),
    (H, "zh", "discord", "表格导出乱码", (
        "从页面表格导出的 CSV 用 Excel 打开，中文客户名全是乱码。",
        "Excel 默认不按 UTF-8 读取没有 BOM 的 CSV。导出时加上 BOM 以后，Excel 就能正确显示中文了。",
        "其他软件会受影响吗？",
        "Numbers 和 LibreOffice 都能正常处理带 BOM 的文件，我都试过了。")),
    # ------------------------------------------------------------------ Russian (Discord)
    (T, "ru", "discord", "Миграция упала на проде", (
        "Миграция на проде упала с ошибкой про блокировку. Что случилось?",
        "Миграция ждала блокировку таблицы `invoices` дольше `lock_timeout`: в это время шёл ночной "
        "экспорт. Ничего не применилось, транзакция откатилась.",
        "Когда можно повторить?",
        "После 6:00, когда экспорт заканчивается. Я добавил в миграцию проверку, чтобы она не "
        "запускалась во время экспорта.")),
    (T, "ru", "discord", "Как откатить миграцию", (
        "Как откатить последнюю миграцию на стейджинге, если что-то пойдёт не так?",
        "`alembic downgrade -1` откатывает одну миграцию. Новая миграция умеет `downgrade`, я "
        "проверил его на копии стейджинга: таблица возвращается в прежнее состояние.",
        "А данные, которые успели записать в новую колонку?",
        "Они пропадут вместе с колонкой. Если они важны, сначала сделай выгрузку этой колонки.")),
    (L, "ru", "discord", "Бот не видит новый сервер", (
        "Добавил новый сервер, но бот не присылает по нему никаких алертов.",
        "Сервер не попал в список наблюдения: бот читает его из файла конфигурации при запуске. "
        "Я добавил сервер и перезапустил бота, он уже в `/status`.",
        "Можно без перезапуска?",
        "Теперь да: команда `/reload` перечитывает конфигурацию.")),
    (H, "ru", "discord", "Перевод интерфейса на русский", (
        "Если я переведу интерфейс harbor-web на русский, его добавят?",
        "Да, система переводов это поддерживает. Я подготовил `ru.json` с ключами и английским "
        "текстом. Учти склонения: для чисел есть формы один, несколько и много.",
        "Как это сделано в коде?",
        "Через `Intl.PluralRules`: в файле перевода у строки три варианта, выбирается нужный по числу.")),
    (T, "ru", "discord", "Миграцию нужно разбить", (
        "Ревьюер просит разбить мою миграцию на две. Зачем?",
        "Сейчас миграция и добавляет колонку, и заполняет данные для 2 млн строк. Заполнение держит "
        "транзакцию несколько минут. Если миграцию разбить, схема применится сразу, а данные заполнятся скриптом "
        "по частям.",
        "Скрипт запускать вручную?",
        "Его запускает деплой после миграций, и он продолжает с места остановки, если его прервать.")),
    (T, "ru", "discord", "Ошибка подписи вебхука", (
        "Вебхуки Paylane на стейджинге все падают: ошибка подписи вебхука.",
        "На стейджинге стоит секрет от продакшена: после вчерашней настройки окружения их перепутали. "
        "С правильным секретом подпись проходит.",
        "Как не допустить такого снова?",
        "При запуске сервис сверяет окружение с префиксом секрета: у тестовых секретов он `whsec_test`.")),
    (L, "ru", "discord", "Графики алертов в недельном отчёте", (
        "В недельном отчёте не хватает графиков. Можно добавить графики алертов по дням?",
        "Бот рисует небольшой график в PNG и прикрепляет к отчёту: столбцы по дням, цвет по важности.",
        "На телефоне видно?",
        "Да, я проверил в Telegram на телефоне: подписи крупные, семь столбцов помещаются.")),
    (H, "ru", "discord", "Медленная сборка фронтенда", (
        "Сборка фронтенда в CI идёт восемь минут. Раньше было три.",
        "Кэш pnpm перестал работать: ключ кэша зависит от файла, который переименовали. С исправленным "
        "ключом установка снова занимает 20 секунд, сборка — две с половиной минуты.",
        "Это единственная причина?",
        "Ещё проверка типов запускалась дважды, в сборке и отдельно. Оставил отдельную.")),
    (T, "ru", "discord", "Миграции и тесты в CI", (
        "Почему в CI не ловятся ошибки в миграциях? Вчера сломанная миграция прошла все проверки.",
        "Тесты создают схему напрямую из моделей и миграции не запускают. Я добавил шаг: применить "
        "все миграции к пустой базе и сравнить схему с моделями.",
        "Это долго?",
        "Около 40 секунд. Шаг идёт параллельно с тестами, так что общее время почти не выросло.")),
]
