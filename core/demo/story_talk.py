"""The rest of what is said in the story's sessions (core.demo.sessions.STORY): the exchanges around
the scripted memory writes, hand-written for each session and about what its title says.

STORY_TALK maps a story session's key to its exchanges (user, assistant), taken in order by the
script's "fill" and "fillto" steps; the agent's tool work between them is added when the session is
built (conversations.WORK). The same rules as dialogues.py hold: no line shared with another
session, no secret, no memory promise or request (the story's own are its scripted lines).
"""

from __future__ import annotations

STORY_TALK: dict[str, list[tuple[str, str]]] = {
    "s01": [
        ("Now run the test suite so we know the setup is complete.",
         "412 passed, 9 skipped in 48 s. The skipped ones need the Paylane sandbox credentials, which "
         "aren't in `.env.example`."),
        ("Where do I get the sandbox credentials for tideway?",
         "From the Paylane dashboard, under Developers > Sandbox. Put them in `.env` as "
         "`PAYLANE_SANDBOX_KEY`; the nine skipped tests will then run."),
    ],
    "s02": [
        ("I just cloned harbor-web. What's the fastest way to get the dev server running?",
         "Install the dependencies, copy `.env.example` to `.env.local` and start the dev server; it "
         "proxies `/api` to tideway on port 8000."),
        ("The dev server starts but every API call is a 404.",
         "The proxy target in `.env.local` was `localhost:8080`, the old port. With 8000 the invoices "
         "page loads."),
        ("Hot reload is slow, a few seconds per change. Normal for this setup?",
         "No: the watcher polls because the repo sits in a synced folder. Outside the synced folder "
         "a change shows in under 200 ms."),
    ],
    "s03": [
        ("Accounting wants the invoice export from Paylane as CSV, one line per invoice.",
         "The Paylane invoice endpoint pages by 100. I wrote the export to walk the pages and write "
         "one CSV row per invoice with number, customer, amount, currency and status."),
        ("Can it also produce the PDF of each invoice?",
         "Yes, with weasyprint from the same HTML template as the customer emails: 1.2 s per invoice "
         "on this laptop."),
        ("Run the export for October as a test.",
         "October: 2,418 invoices in 49 pages of Paylane calls, CSV written in 3 min 10 s. Totals "
         "match the Paylane dashboard to the cent."),
    ],
    "s04": [
        ("Lance les tests de tideway avec la sortie détaillée.",
         "418 passés, 23 ignorés. Les 23 ignorés sont tous des tests `async def`."),
        ("Quels tests sont ignorés exactement ?",
         "Tous ceux de `tests/api/` et `tests/billing/` qui sont des coroutines : pytest les collecte "
         "mais ne sait pas les exécuter sans plugin asyncio configuré."),
        ("Relance la suite complète maintenant.",
         "441 passés, 0 ignoré, en 52 s. Deux tests async échouaient en silence depuis des mois ; je "
         "les ai corrigés dans le même commit."),
    ],
    "s05": [
        ("Essayons avec ces préférences : comment je vois les logs du conteneur de l'API ?",
         "`docker compose logs -f api`\n- `-f` suit les nouvelles lignes\n- `--since 10m` pour les "
         "dix dernières minutes"),
    ],
    "c1": [
        ("The invoice export module is 1,400 lines in one file. Let's split it.",
         "Proposed split: `export/fetch.py` (Paylane paging), `export/rows.py` (invoice to row), "
         "`export/csv_writer.py` and `export/pdf.py`. The public function stays in `export/__init__.py`."),
        ("Go ahead, one module at a time, tests green after each step.",
         "`fetch.py` and `rows.py` are out; the tests pass after each move, and `rows.py` now has its "
         "own unit tests that don't need the Paylane mock."),
        ("The PDF part has a lot of duplicated layout code.",
         "Three templates shared 80% of their HTML. They now extend one base template, and the invoice "
         "PDFs are byte-identical to before for the fixtures."),
        ("What's left of the old export file?",
         "A 40-line `__init__.py` that wires the pieces. I'd keep it until the accounting script "
         "stops importing the private helpers from it."),
    ],
    "c1b": [
        ("Where were we with the export refactor?",
         "All four modules are split out; what's left is the accounting script that imports "
         "`_format_amount` from the old module."),
        ("Move that helper to a public place and update the script.",
         "`format_amount` is public in `export/rows.py`, the script imports it from there, and the "
         "old name raises a clear ImportError pointing at the new one."),
    ],
    "s06": [
        ("On a une page d'aide sur les exports dans harbor-web, tu peux la relire ?",
         "Elle mélange vouvoiement et tutoiement, et deux captures montrent l'ancien menu. Je propose "
         "une version plus courte, en tutoyant partout."),
        ("Vas-y, réécris la page sur les exports.",
         "Nouvelle version : trois étapes, une capture à jour, et un encadré sur les formats CSV et "
         "Excel. 240 mots au lieu de 610."),
    ],
    "s07": [
        ("Start the local stack with docker compose and check the API answers.",
         "`docker compose up -d`: postgres, redis and api are up; `curl localhost:8000/health` "
         "answers `{\"status\": \"ok\"}`."),
    ],
    "s08": [
        ("How long does a tideway release usually take end to end?",
         "About 25 minutes: 8 for CI on the tag, 5 to build and push the image, the rest is the "
         "rolling deploy and the smoke tests."),
    ],
    "s09": [
        ("Did you just push the typo fix straight to main in tideway? The CI is running on main.",
         "Yes, I pushed it to main: the branch isn't protected on that repo, so nothing stopped it. The CI "
         "run on it passed."),
        ("Turn on branch protection for main: PRs only, one review, CI green.",
         "Branch protection is on for main in tideway and harbor-web: PR required, one approval, "
         "the CI checks required, no force pushes."),
    ],
    "s10": [
        ("Set up linting for harbor-web: ESLint, Prettier, and a pre-commit hook.",
         "ESLint and Prettier are configured with the same rules as the UI kit; a lint-staged hook "
         "runs both on the changed files."),
        ("Run the lint on the whole repo once.",
         "412 files checked: 31 formatting fixes applied automatically, 4 unused imports removed, no "
         "other errors."),
    ],
    "s11": [
        ("Does lighthouse-bot handle emoji in alert names? Someone put 🔥 in one.",
         "Yes, names are plain UTF-8 all the way to Telegram; the 🔥 alert posted correctly last night."),
    ],
    "small": [
        ("GET /invoices takes 2-3 seconds for big customers. Help me trace where the time goes.",
         "I'd start with the request timing middleware and an `EXPLAIN ANALYZE` of the list query, "
         "then look at serialisation."),
        ("The middleware says 2.4 s total. How much of that is the database?",
         "1.9 s in the database: the query sorts by `due_date` and there's no index on "
         "`(customer_id, due_date)`, so Postgres sorts 80,000 rows for a page of 50."),
        ("And the remaining half second?",
         "Serialisation: each invoice loads its customer lazily, 50 extra queries per page. "
         "`selectinload(Invoice.customer)` makes it one query."),
        ("Add the index and the eager load, then measure again.",
         "With both: 180 ms for the same customer, 35 ms of it in the database. The index is a "
         "concurrent migration."),
        ("Does the export job benefit too?",
         "Yes, it uses the same query: last night's export took 14 minutes, a run on the staging copy "
         "with the index takes 6."),
        ("Add a test that fails if the list query goes back to N+1.",
         "The test counts queries with an event listener: one for the page, one for the customers. "
         "It fails with 51 on the old code."),
    ],
    "k40": [
        ("The export backfill for 2024 has to regenerate 30,000 invoice rows. Plan it with me.",
         "Batches of 500 by invoice id, each batch in its own transaction, progress written to a "
         "table so a restart continues where it stopped."),
        ("Start with January only as a test.",
         "January 2024: 2,611 invoices in 6 batches, 4 min 20 s, no errors. Spot checks of 20 rows "
         "match the old export."),
        ("Then run the rest of 2024 overnight.",
         "Scheduled for 23:00 with a limit of 200 Paylane calls a minute so the live traffic keeps "
         "its share."),
        ("How did the overnight backfill go?",
         "Done at 02:47: 30,214 rows regenerated, 3 invoices skipped because Paylane no longer has "
         "them (deleted test accounts)."),
        ("Write the three skipped invoice numbers in the ticket and close it.",
         "Ticket updated with INV-1877, INV-1902 and INV-2004 and the reason, then closed."),
    ],
    "c2": [
        ("Le bot a envoyé douze alertes disque cette nuit pour le même serveur.",
         "Le disque de tideway-prod oscille autour de 85 % à cause des journaux qui tournent : chaque "
         "passage au-dessus du seuil déclenche une alerte."),
        ("Qu'est-ce qui remplit le disque de la prod ?",
         "Les journaux de Postgres : 41 Go, dont 30 de requêtes lentes journalisées en entier depuis "
         "un changement de config en septembre."),
        ("Réduis ça sans perdre les requêtes lentes.",
         "Seuil des requêtes lentes à 500 ms au lieu de 100, paramètres tronqués à 1 000 caractères, "
         "et rotation quotidienne avec compression. Le disque est à 61 %."),
    ],
    "c2b": [
        ("On en était où avec les alertes disque ?",
         "Le disque est redescendu à 61 % ; il reste à éviter que l'alerte se déclenche dix fois de "
         "suite quand on oscille autour du seuil."),
        ("Ajoute un délai avant de renvoyer la même alerte.",
         "Une alerte disque ne repart qu'après être redescendue sous 80 % ou après 6 heures. Testé "
         "avec les valeurs de cette nuit : une seule alerte au lieu de douze."),
    ],
    "s12": [
        ("With the new Paylane limit, can the export run its pages in parallel?",
         "Four pages at a time stays well under the limit: the October export goes from 3 min 10 s "
         "to 55 s."),
    ],
    "s13": [
        ("Tu peux me montrer les crons de lighthouse-bot et leur prochaine exécution ?",
         "Trois crons : le rapport hebdomadaire lundi 7 h, l'audit des dépendances chaque nuit à "
         "3 h 30, la réconciliation Paylane chaque jour à 6 h (heure de Paris)."),
    ],
    "s14": [
        ("Anyway, that's my intro: I'll be around this Discord for the harbor-web work.",
         "Welcome! The harbor-web channel has the release notes pinned; the preview deploys post "
         "their links there too."),
    ],
    "s15": [
        ("Run the harbor-web and tideway test suites on Node 22 to be sure nothing broke.",
         "harbor-web: 318 tests pass on Node 22.11. tideway only uses Node for the docs build, which "
         "also passes."),
        ("The CI still uses Node 20. Move it too.",
         "The CI image and `.nvmrc` files are on Node 22 now; the CI run on the branch is green."),
    ],
    "s16": [
        ("The Vite build of harbor-web is green on CI. Anything left before we merge the switch?",
         "Nothing blocking: the build and the 318 tests pass with Vite, and the production bundle is 12% "
         "smaller. The embedded widget still builds with Webpack until the release."),
        ("After the Vite switch, the dev server doesn't pick up `.env.local` changes.",
         "Vite reads env files at startup only; a restart is needed. I added a small plugin that "
         "restarts the dev server when an env file changes."),
    ],
    "s17": [
        ("Open the PR on fix/escape-markup then.",
         "The PR is open: `escape()` on the five logging calls that print customer fields, the "
         "`safe_text()` helper and the test that feeds markup and ANSI codes through every renderer."),
    ],
    "s18": [
        ("Et la suite e2e, elle tourne à quelle heure en ce moment ?",
         "Chaque nuit à 3 h UTC, y compris le dimanche. Je l'ai décalée à 4 h 30 le dimanche."),
    ],
    "s19": [
        ("Quale autorità ha emesso il certificato attuale di harbor-web?",
         "Un'autorità commerciale, con validità di un anno: per questo il rinnovo automatico di Let's "
         "Encrypt non lo gestisce."),
    ],
}

# The hidden summary a compressed session starts from (the story's "summary" step), per session.
SUMMARIES = {
    "c1b": ("[Context summary] Earlier in this session: the 1,400-line invoice export module is being split "
            "into fetch, rows, csv_writer and pdf modules. fetch and rows are done with their own tests, and "
            "the three PDF templates now extend one base. Left: the accounting script still imports private "
            "helpers from the old module."),
    "k40": ("[Context summary] Earlier in this session: the 2024 export backfill runs in batches of 500 "
            "invoices with its progress kept in a table. January ran as a test (2,611 invoices, no errors); "
            "the rest of 2024 is scheduled overnight under 200 Paylane calls a minute."),
    "c2b": ("[Context summary] Plus tôt dans cette session : le disque de tideway-prod oscillait autour de "
            "85 % à cause des journaux de Postgres (41 Go). Seuil des requêtes lentes relevé à 500 ms, "
            "rotation quotidienne avec compression : le disque est à 61 %. Reste à éviter les alertes "
            "répétées autour du seuil."),
}
