"""The ten intents the demo's conversations are generated from (core.demo.sessions), in six
languages, and the tool outputs they share.

Everything here is data (see core/demo/content.py for the rules that hold for all of it).
"""

from __future__ import annotations

# ------------------------------------------------------------------------------------------
# Tool outputs (shared by intents)

PYTEST_FAIL = (
    "F.....................................................................  [100%]\n"
    "=================================== FAILURES ===================================\n"
    "______________________________ {testname} ______________________________\n\n"
    "    def {testname}(client, paylane_mock):\n"
    ">       assert response.status_code == 200\n"
    "E       {err}\n\n"
    "{testfile}:{line}: AssertionError\n"
    "=========================== short test summary info ============================\n"
    "FAILED {test} - {err}\n"
    "1 failed, {n} passed in {secs}s",
    "\x1b[1m============================= test session starts ==============================\x1b[0m\n"
    "collected {n} items\n\n"
    "{testfile} \x1b[31mF\x1b[0m\x1b[32m..........\x1b[0m\n\n"
    "\x1b[31m\x1b[1m_______________________ {testname} _______________________\x1b[0m\n"
    "\x1b[31mE       {err}\x1b[0m\n\n"
    "\x1b[31mFAILED\x1b[0m {test}\n"
    "\x1b[31m========================= \x1b[1m1 failed\x1b[0m, \x1b[32m{n} passed\x1b[0m\x1b[31m in "
    "{secs}s =========================\x1b[0m",
)
CODE_SNIPPET = (
    "{line}\tdef verify_signature(payload: bytes, header: str, secret: str) -> None:\n"
    "{line1}\t    ts, sig = parse_header(header)\n"
    "{line2}\t    if abs(time.time() - ts) > TOLERANCE_SECONDS:\n"
    "{line3}\t        raise InvalidSignature(\"timestamp outside tolerance\")\n"
    "{line4}\t    expected = hmac.new(secret.encode(), f\"{{ts}}.\".encode() + payload, sha256)\n"
    "{line5}\t    if not hmac.compare_digest(expected.hexdigest(), sig):\n"
    "{line6}\t        raise InvalidSignature(\"signature mismatch\")",
    "{line}\tasync def list_invoices(session: AsyncSession, customer_id: int, limit: int = 50):\n"
    "{line1}\t    stmt = select(Invoice).where(Invoice.customer_id == customer_id)\n"
    "{line2}\t    stmt = stmt.order_by(Invoice.{col}.desc()).limit(limit)\n"
    "{line3}\t    rows = (await session.execute(stmt)).scalars().all()\n"
    "{line4}\t    return [InvoiceOut.model_validate(r) for r in rows]",
)

INTENTS: list[dict] = [
    {
        "key": "test_fail", "projects": ("tideway",), "weight": 4,
        "tools": [("terminal", {"command": "uv run pytest {test} -q"}, PYTEST_FAIL),
                  ("read_file", {"path": "{file}"}, CODE_SNIPPET)],
        "title": {"en": ("Fix failing {testname}", "Debug red CI on {branch}"),
                  "fr": ("Corriger {testname}",), "es": ("Arreglar {testname}",),
                  "it": ("Sistemare {testname}",), "ru": ("Починить {testname}",),
                  "zh": ("修复 {testname}",)},
        "user": {
            "en": ("`{test}` fails on {branch} with `{err}`. Can you take a look?",
                   "CI is red on {branch}: {test} → {err}. Any idea what changed?",
                   "Why does {testname} keep failing locally? I get `{err}` every time."),
            "fr": ("`{test}` plante sur {branch} avec `{err}`. Tu peux regarder ?",
                   "La CI est rouge sur {branch} : {testname} échoue ({err}). Une idée ?"),
            "es": ("`{test}` falla en {branch} con `{err}`. ¿Puedes echarle un vistazo?",
                   "La CI está en rojo en {branch}: {testname} da {err}. ¿Qué ha cambiado?"),
            "it": ("`{test}` fallisce su {branch} con `{err}`. Puoi darci un'occhiata?",
                   "La CI è rossa su {branch}: {testname} dà {err}. Cosa è cambiato?"),
            "ru": ("`{test}` падает на {branch} с ошибкой `{err}`. Посмотришь?",
                   "CI красный на {branch}: {testname} → {err}. Что изменилось?"),
            "zh": ("`{test}` 在 {branch} 上失败了，报错 `{err}`。能帮我看看吗？",
                   "{branch} 的 CI 又红了：{testname} 报 {err}。是哪里改坏了？"),
        },
        "answer": {
            "en": ("Found it: `{file}` line {line} compared a naive datetime with an aware one. I "
                   "made both UTC-aware; the suite is green again ({n} passed in {secs}s). Nothing "
                   "committed yet.",
                   "The fixture in `{testfile}` reused a database session the previous test had "
                   "already closed. I made it function-scoped and {n} tests pass now.",
                   "It was flaky, not broken: the test depended on the key order of the Paylane "
                   "mock's payload. I sort the payload before comparing; 20 reruns, no failure."),
            "fr": ("Trouvé : `{file}` ligne {line} compare une date naïve avec une date UTC. J'ai "
                   "tout passé en UTC, la suite repasse au vert ({n} tests OK en {secs} s). Rien "
                   "n'est commité.",
                   "La fixture de `{testfile}` réutilisait une session déjà fermée par le test "
                   "précédent. Je l'ai passée en scope fonction : {n} tests passent."),
            "es": ("Lo encontré: en `{file}`, línea {line}, se comparaba una fecha sin zona horaria "
                   "con una en UTC. Ya está corregido y pasan {n} tests en {secs} s.",
                   "El fixture de `{testfile}` reutilizaba una sesión ya cerrada. Lo cambié a "
                   "scope de función y ahora pasan {n} tests."),
            "it": ("Trovato: in `{file}` alla riga {line} si confrontava una data senza fuso con "
                   "una in UTC. Ho corretto e ora passano {n} test in {secs} s.",
                   "La fixture in `{testfile}` riusava una sessione già chiusa. L'ho resa a "
                   "livello di funzione: {n} test passano."),
            "ru": ("Нашёл: в `{file}`, строка {line}, наивная дата сравнивалась с датой в UTC. "
                   "Исправил, теперь проходит {n} тестов за {secs} с.",
                   "Фикстура в `{testfile}` использовала уже закрытую сессию. Сделал её с "
                   "областью function — {n} тестов проходят."),
            "zh": ("找到了：`{file}` 第 {line} 行把不带时区的时间和 UTC 时间做了比较。已改成统一使用 "
                   "UTC，现在 {n} 个测试全部通过，用时 {secs} 秒。",
                   "`{testfile}` 里的 fixture 复用了一个已经关闭的数据库会话。改成函数级作用域后，"
                   "{n} 个测试都通过了。"),
        },
    },
    {
        "key": "migration", "projects": ("tideway",), "weight": 3,
        "tools": [("terminal", {"command": "uv run alembic revision --autogenerate -m \"add {table}.{col}\""},
                   ("INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.\n"
                    "INFO  [alembic.runtime.migration] Will assume transactional DDL.\n"
                    "INFO  [alembic.autogenerate.compare] Detected added column '{table}.{col}'\n"
                    "  Generating /home/ines/code/tideway/migrations/versions/{rev}_add_{table}_{col}.py ...  done",)),
                  ("terminal", {"command": "uv run alembic upgrade head"},
                   ("INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.\n"
                    "INFO  [alembic.runtime.migration] Running upgrade {prevrev} -> {rev}, add {table}.{col}",))],
        "title": {"en": ("Add {table}.{col} column", "Migration for {table}.{col}"),
                  "fr": ("Migration {table}.{col}",), "es": ("Migración {table}.{col}",),
                  "it": ("Migrazione {table}.{col}",), "ru": ("Миграция {table}.{col}",),
                  "zh": ("数据库迁移：{table}.{col}",)},
        "user": {
            "en": ("Add a nullable `{col}` column to `{table}` and generate the Alembic migration.",
                   "We need `{table}.{col}` for the export. Can you write the migration?",
                   "Please add `{col}` to the `{table}` model, with a migration and a backfill."),
            "fr": ("Ajoute une colonne `{col}` nullable à `{table}` et génère la migration Alembic.",
                   "Il nous faut `{table}.{col}` pour l'export. Tu peux écrire la migration ?"),
            "es": ("Añade una columna `{col}` a `{table}` y genera la migración de Alembic.",
                   "Necesitamos `{table}.{col}` para la exportación. ¿Escribes la migración?"),
            "it": ("Aggiungi una colonna `{col}` a `{table}` e genera la migrazione Alembic.",
                   "Ci serve `{table}.{col}` per l'export. Scrivi tu la migrazione?"),
            "ru": ("Добавь nullable-колонку `{col}` в `{table}` и сгенерируй миграцию Alembic.",
                   "Нам нужна `{table}.{col}` для экспорта. Напишешь миграцию?"),
            "zh": ("给 `{table}` 表加一个可为空的 `{col}` 字段，并生成 Alembic 数据库迁移。",
                   "导出功能需要 `{table}.{col}`，你能写一下数据库迁移脚本吗？"),
        },
        "answer": {
            "en": ("Done: migration `{rev}` adds `{table}.{col}` (nullable, no default) and I ran "
                   "`alembic upgrade head` locally. The backfill is a separate script so the "
                   "migration stays fast.",
                   "Migration `{rev}` is ready. Autogenerate also picked up an unrelated index "
                   "rename, so I removed that part by hand - please double-check before merging.",
                   "The model and migration `{rev}` are in place; `{table}` has about {count}k rows "
                   "on staging, so the backfill runs in batches of 1,000."),
            "fr": ("C'est fait : la migration `{rev}` ajoute `{table}.{col}` (nullable, sans défaut) "
                   "et je l'ai appliquée en local avec `alembic upgrade head`.",
                   "Migration `{rev}` prête. L'autogenerate avait aussi capté un renommage d'index "
                   "sans rapport, je l'ai retiré à la main — vérifie avant de merger."),
            "es": ("Hecho: la migración `{rev}` añade `{table}.{col}` (nullable) y ya la apliqué en "
                   "local.",
                   "La migración `{rev}` está lista. El autogenerate detectó también un cambio de "
                   "índice que no tocaba; lo quité a mano."),
            "it": ("Fatto: la migrazione `{rev}` aggiunge `{table}.{col}` (nullable) e l'ho "
                   "applicata in locale.",
                   "La migrazione `{rev}` è pronta; ho tolto a mano un cambio di indice non "
                   "richiesto."),
            "ru": ("Готово: миграция `{rev}` добавляет `{table}.{col}` (nullable), локально "
                   "применил `alembic upgrade head`.",
                   "Миграция `{rev}` готова. Autogenerate захватил лишнее переименование индекса — "
                   "я его убрал вручную."),
            "zh": ("完成：迁移 `{rev}` 为 `{table}` 添加了 `{col}` 字段（可为空），已在本地执行 "
                   "`alembic upgrade head`。",
                   "数据库迁移 `{rev}` 已准备好。autogenerate 顺带生成了一个无关的索引改名，我手动删掉了，"
                   "合并前请再检查一下。"),
        },
    },
    {
        "key": "deps", "projects": ("harbor-web",), "weight": 3,
        "tools": [("terminal", {"command": "pnpm outdated"},
                   ("┌──────────────────────┬─────────┬────────┐\n"
                    "│ Package              │ Current │ Latest │\n"
                    "├──────────────────────┼─────────┼────────┤\n"
                    "│ {pkg:<20} │ {old:<7} │ {new:<6} │\n"
                    "└──────────────────────┴─────────┴────────┘",)),
                  ("terminal", {"command": "pnpm up {pkg}@{new}"},
                   ("Progress: resolved {count}, reused {count}, downloaded 1, added 1, done\n\n"
                    "dependencies:\n- {pkg} {old}\n+ {pkg} {new}\n\nDone in {secs}s",))],
        "title": {"en": ("Bump {pkg} to {new}", "Outdated packages in harbor-web"),
                  "fr": ("Mise à jour de {pkg}",), "es": ("Actualizar {pkg}",),
                  "it": ("Aggiornare {pkg}",), "ru": ("Обновление {pkg}",),
                  "zh": ("升级 {pkg}",)},
        "user": {
            "en": ("Can you bump {pkg} to the latest version in harbor-web? Use pnpm.",
                   "Dependabot wants {pkg} {new}. Is it safe to merge?",
                   "What's outdated in harbor-web? Update the minor versions only."),
            "fr": ("Tu peux passer {pkg} à la dernière version dans harbor-web ? Avec pnpm.",
                   "Dependabot propose {pkg} {new}. On peut merger sans risque ?"),
            "es": ("¿Puedes actualizar {pkg} a la última versión en harbor-web? Con pnpm.",
                   "Dependabot propone {pkg} {new}. ¿Es seguro hacer merge?"),
            "it": ("Puoi aggiornare {pkg} all'ultima versione in harbor-web? Con pnpm.",
                   "Dependabot propone {pkg} {new}. Possiamo fare merge tranquilli?"),
            "ru": ("Обнови {pkg} до последней версии в harbor-web, через pnpm.",
                   "Dependabot предлагает {pkg} {new}. Можно мержить?"),
            "zh": ("帮我把 harbor-web 里的 {pkg} 升级到最新版本，用 pnpm。",
                   "Dependabot 建议升级到 {pkg} {new}，可以直接合并吗？"),
        },
        "answer": {
            "en": ("Bumped {pkg} from {old} to {new} with `pnpm up`. Type-check and the unit tests "
                   "pass; the changelog lists no breaking change that affects us.",
                   "{pkg} {new} drops a deprecated option we still use in `{file}`. I updated the "
                   "call site; build and tests are green.",
                   "Minor updates applied ({count} packages). I left {pkg} at {old} because {new} is "
                   "a major release that needs a migration."),
            "fr": ("{pkg} passé de {old} à {new} avec `pnpm up`. Le typecheck et les tests unitaires "
                   "passent.",
                   "{pkg} {new} supprime une option dépréciée qu'on utilise encore dans `{file}` ; "
                   "j'ai corrigé l'appel, le build est vert."),
            "es": ("Actualicé {pkg} de {old} a {new} con `pnpm up`; el typecheck y los tests pasan.",
                   "{pkg} {new} elimina una opción obsoleta que usábamos en `{file}`; ya lo adapté y "
                   "el build está en verde."),
            "it": ("Ho aggiornato {pkg} da {old} a {new} con `pnpm up`; typecheck e test passano.",
                   "{pkg} {new} rimuove un'opzione deprecata che usavamo in `{file}`; ho sistemato "
                   "la chiamata e la build è verde."),
            "ru": ("Обновил {pkg} с {old} до {new} через `pnpm up`; typecheck и тесты проходят.",
                   "В {pkg} {new} убрали устаревшую опцию, которую мы используем в `{file}`. "
                   "Поправил вызов, сборка зелёная."),
            "zh": ("已用 `pnpm up` 把 {pkg} 从 {old} 升级到 {new}，类型检查和单元测试都通过了。",
                   "{pkg} {new} 删除了一个我们在 `{file}` 里还在用的废弃选项，我已经改好了，构建通过。"),
        },
    },
    {
        "key": "ci", "projects": ("tideway", "harbor-web", "lighthouse-bot"), "weight": 3,
        "tools": [("terminal", {"command": "gh run view {run} --log-failed"},
                   ("{job}\tInstall\tRun pnpm install --frozen-lockfile\n"
                    "{job}\tInstall\tERR_PNPM_UNSUPPORTED_ENGINE  Unsupported environment\n"
                    "{job}\tInstall\tExpected version: >=20 <22\n"
                    "{job}\tInstall\tGot: v22.11.0\n"
                    "{job}\tInstall\t##[error]Process completed with exit code 1.",
                    "{job}\tDeploy\tWaiting for approval: environment 'production'\n"
                    "{job}\tDeploy\t##[warning]The job was not started: review required",))],
        "title": {"en": ("CI failure in {job}", "Stuck deploy of {project}"),
                  "fr": ("Échec CI ({job})",), "es": ("Fallo de CI en {job}",),
                  "it": ("CI rossa in {job}",), "ru": ("Падение CI в {job}",),
                  "zh": ("CI 失败：{job}",)},
        "user": {
            "en": ("The {job} job failed on run {run}. What broke?",
                   "Deploy of {project} is stuck, can you check the last workflow run?",
                   "Why is the {job} job so slow since last week?"),
            "fr": ("Le job {job} a échoué sur le run {run}. Qu'est-ce qui a cassé ?",
                   "Le déploiement de {project} est bloqué, tu peux regarder le dernier run ?"),
            "es": ("El job {job} falló en el run {run}. ¿Qué se rompió?",
                   "El despliegue de {project} está atascado, ¿miras el último run?"),
            "it": ("Il job {job} è fallito nel run {run}. Cosa si è rotto?",
                   "Il deploy di {project} è bloccato, puoi controllare l'ultimo run?"),
            "ru": ("Джоб {job} упал в запуске {run}. Что сломалось?",
                   "Деплой {project} завис, посмотришь последний запуск?"),
            "zh": ("运行 {run} 里的 {job} 任务失败了，哪里坏了？",
                   "{project} 的部署卡住了，能看一下最近一次工作流吗？"),
        },
        "answer": {
            "en": ("Run {run} failed in `{job}`: the runner image moved to Node 22 and our lockfile "
                   "pinned an engine range that excludes it. I relaxed `engines.node` and re-ran it "
                   "- green.",
                   "The deploy is waiting for a manual approval of the production environment. I "
                   "can't approve it for you: it's the 'Review deployments' button on the run page.",
                   "The cache key includes the full lockfile hash, so every Dependabot PR busts it. "
                   "Keying on the main branch's lockfile cut the job from 9 to 3 minutes."),
            "fr": ("Le run {run} a échoué dans `{job}` : l'image du runner est passée à Node 22 et "
                   "notre lockfile l'excluait. J'ai assoupli `engines.node`, relancé : c'est vert.",
                   "Le déploiement attend une validation manuelle pour l'environnement production. "
                   "C'est le bouton « Review deployments » sur la page du run."),
            "es": ("El run {run} falló en `{job}`: la imagen del runner pasó a Node 22 y nuestro "
                   "lockfile lo excluía. Ajusté `engines.node` y ya está en verde.",
                   "El despliegue espera una aprobación manual del entorno de producción; es el "
                   "botón «Review deployments» en la página del run."),
            "it": ("Il run {run} è fallito in `{job}`: l'immagine del runner è passata a Node 22 e "
                   "il lockfile lo escludeva. Ho allentato `engines.node` e ora è verde.",
                   "Il deploy aspetta un'approvazione manuale per l'ambiente di produzione: "
                   "pulsante «Review deployments» nella pagina del run."),
            "ru": ("Запуск {run} упал в `{job}`: образ раннера перешёл на Node 22, а наш lockfile "
                   "его исключал. Ослабил `engines.node`, перезапустил — зелёный.",
                   "Деплой ждёт ручного подтверждения для окружения production — кнопка «Review "
                   "deployments» на странице запуска."),
            "zh": ("运行 {run} 在 `{job}` 失败：runner 镜像升级到了 Node 22，而我们的 lockfile "
                   "排除了这个版本。我放宽了 `engines.node`，重新运行后通过了。",
                   "部署在等待 production 环境的人工审批，在运行页面点 “Review deployments” 即可。"),
        },
    },
    {
        "key": "webhook", "projects": ("tideway",), "weight": 3,
        "tools": [("read_file", {"path": "tideway/billing/webhooks.py"}, CODE_SNIPPET[:1]),
                  ("terminal", {"command": "timedatectl status"},
                   ("               Local time: Mon {date} 09:14:02 CET\n"
                    "           Universal time: Mon {date} 08:14:02 UTC\n"
                    "System clock synchronized: no\n"
                    "              NTP service: inactive\n"
                    "          RTC in local TZ: no",))],
        "title": {"en": ("Paylane webhook signatures", "Idempotent webhook handler"),
                  "fr": ("Signatures des webhooks Paylane",),
                  "es": ("Firmas de webhooks de Paylane",), "it": ("Firme dei webhook Paylane",),
                  "ru": ("Подписи вебхуков Paylane",), "zh": ("Paylane webhook 签名问题",)},
        "user": {
            "en": ("Paylane webhooks are rejected with 'invalid signature' since this morning. Can "
                   "you check `{file}`?",
                   "Some Paylane events arrive twice. How do we make the handler idempotent?",
                   "Replay the failed webhook events against staging, please."),
            "fr": ("Les webhooks Paylane sont rejetés avec « invalid signature » depuis ce matin. "
                   "Tu peux vérifier `{file}` ?",
                   "Certains événements Paylane arrivent deux fois. Comment rendre le handler "
                   "idempotent ?"),
            "es": ("Los webhooks de Paylane fallan con 'invalid signature' desde esta mañana. "
                   "¿Revisas `{file}`?",
                   "Algunos eventos de Paylane llegan dos veces. ¿Cómo hacemos el handler "
                   "idempotente?"),
            "it": ("I webhook di Paylane vengono rifiutati con 'invalid signature' da stamattina. "
                   "Controlli `{file}`?",
                   "Alcuni eventi Paylane arrivano due volte. Come rendiamo l'handler idempotente?"),
            "ru": ("Вебхуки Paylane с утра отклоняются с 'invalid signature'. Проверишь `{file}`?",
                   "Некоторые события Paylane приходят дважды. Как сделать обработчик "
                   "идемпотентным?"),
            "zh": ("从今天早上开始，Paylane 的 webhook 都因为 'invalid signature' 被拒绝了。"
                   "能检查一下 `{file}` 吗？",
                   "有些 Paylane 事件会重复到达，handler 怎么做成幂等的？"),
        },
        "answer": {
            "en": ("The signature check allows 300 s of skew but the VM clock is {secs}s behind: "
                   "chrony had stopped. After restarting it the signatures validate again. I'd also "
                   "log the measured skew when a check fails.",
                   "Each event has an `id`; I added a unique constraint on "
                   "`webhook_events.event_id` and the handler now returns 200 early for a "
                   "duplicate. Test included.",
                   "Replayed {count} events against staging; all returned 200 and the invoices are "
                   "in the right state now."),
            "fr": ("La vérification de signature tolère 300 s mais l'horloge de la VM a {secs} s de "
                   "retard : chrony était arrêté. Après redémarrage, les signatures passent.",
                   "Chaque événement a un `id` : j'ai ajouté une contrainte unique sur "
                   "`webhook_events.event_id` et le handler renvoie 200 tout de suite pour un "
                   "doublon."),
            "es": ("La firma tolera 300 s pero el reloj de la VM va {secs} s atrasado: chrony "
                   "estaba parado. Tras reiniciarlo, las firmas validan.",
                   "Añadí una restricción única en `webhook_events.event_id`; el handler responde "
                   "200 enseguida si el evento ya existe."),
            "it": ("La firma tollera 300 s ma l'orologio della VM è indietro di {secs} s: chrony "
                   "era fermo. Riavviato, le firme tornano valide.",
                   "Ho aggiunto un vincolo unico su `webhook_events.event_id`; per un duplicato "
                   "l'handler risponde subito 200."),
            "ru": ("Проверка подписи допускает 300 с, а часы VM отстают на {secs} с: chrony "
                   "остановился. После перезапуска подписи проходят.",
                   "Добавил уникальное ограничение на `webhook_events.event_id`; на дубликат "
                   "обработчик сразу отвечает 200."),
            "zh": ("签名校验允许 300 秒误差，但虚拟机时钟慢了 {secs} 秒：chrony 停了。重启后签名恢复正常。",
                   "我在 `webhook_events.event_id` 上加了唯一约束，重复事件会直接返回 200。"),
        },
    },
    {
        "key": "perf", "projects": ("tideway",), "weight": 3,
        "tools": [("terminal", {"command": "psql staging -c \"EXPLAIN ANALYZE SELECT * FROM {table} "
                                           "WHERE {col} > now() - interval '30 days'\""},
                   ("                               QUERY PLAN\n"
                    "------------------------------------------------------------------------\n"
                    " Seq Scan on {table}  (cost=0.00..48211.40 rows={count}012 width=212) "
                    "(actual time=0.021..{ms}.402 rows={count}388 loops=1)\n"
                    "   Filter: ({col} > (now() - '30 days'::interval))\n"
                    "   Rows Removed by Filter: 901224\n"
                    " Planning Time: 0.412 ms\n"
                    " Execution Time: {ms}.933 ms\n(5 rows)",))],
        "title": {"en": ("Slow {endpoint}", "Query plan for {table}"),
                  "fr": ("Lenteur de {endpoint}",), "es": ("{endpoint} lento",),
                  "it": ("{endpoint} lento",), "ru": ("Медленный {endpoint}",),
                  "zh": ("{endpoint} 接口变慢",)},
        "user": {
            "en": ("GET {endpoint} takes {ms} ms on staging. Can you find out why?",
                   "The invoices list got slow after the import. Can you check the query plan?",
                   "Can we make {endpoint} faster without adding a cache?"),
            "fr": ("GET {endpoint} prend {ms} ms sur staging. Tu peux trouver pourquoi ?",
                   "La liste des factures est devenue lente après l'import. Tu regardes le plan de "
                   "la requête ?"),
            "es": ("GET {endpoint} tarda {ms} ms en staging. ¿Puedes averiguar por qué?",
                   "La lista de facturas va lenta desde la importación. ¿Miras el plan de la "
                   "consulta?"),
            "it": ("GET {endpoint} impiega {ms} ms su staging. Puoi capire perché?",
                   "La lista fatture è lenta dopo l'import. Guardi il piano della query?"),
            "ru": ("GET {endpoint} отвечает {ms} мс на staging. Можешь выяснить почему?",
                   "Список счетов стал медленным после импорта. Посмотришь план запроса?"),
            "zh": ("staging 上 GET {endpoint} 要 {ms} 毫秒，能查一下原因吗？",
                   "导入之后发票列表变慢了，帮我看看数据库查询计划？"),
        },
        "answer": {
            "en": ("The query does a sequential scan on `{table}` ({count}k rows) because the filter "
                   "is on `{col}` without an index. With a composite index on (customer_id, {col}) "
                   "the plan uses an index scan and the endpoint answers in about {ms2} ms.",
                   "It's an N+1: the serializer loads each customer separately. "
                   "`selectinload(Invoice.customer)` brings it down to 2 queries and {ms2} ms.",
                   "Most of the time goes into serializing {count}k rows: the endpoint ignored "
                   "`limit`. I enforced pagination (50 per page) - {ms2} ms now."),
            "fr": ("La requête fait un seq scan sur `{table}` ({count}k lignes) car le filtre porte "
                   "sur `{col}` sans index. Avec un index composite (customer_id, {col}), on passe "
                   "à environ {ms2} ms.",
                   "C'est un N+1 : le sérialiseur charge chaque client séparément. Avec "
                   "`selectinload(Invoice.customer)` on tombe à 2 requêtes et {ms2} ms."),
            "es": ("La consulta hace un seq scan sobre `{table}` ({count}k filas) porque filtra por "
                   "`{col}` sin índice. Con un índice compuesto baja a unos {ms2} ms.",
                   "Es un N+1: el serializador carga cada cliente por separado. Con "
                   "`selectinload(Invoice.customer)` son 2 consultas y {ms2} ms."),
            "it": ("La query fa un seq scan su `{table}` ({count}k righe) perché filtra su `{col}` "
                   "senza indice. Con un indice composito scende a circa {ms2} ms.",
                   "È un N+1: il serializer carica ogni cliente separatamente. Con "
                   "`selectinload(Invoice.customer)` bastano 2 query e {ms2} ms."),
            "ru": ("Запрос делает seq scan по `{table}` ({count}k строк): фильтр по `{col}` без "
                   "индекса. С составным индексом (customer_id, {col}) — около {ms2} мс.",
                   "Это N+1: сериализатор грузит каждого клиента отдельно. С "
                   "`selectinload(Invoice.customer)` — 2 запроса и {ms2} мс."),
            "zh": ("查询在 `{table}`（{count}k 行）上做了全表扫描，因为 `{col}` 上没有索引。加了 "
                   "(customer_id, {col}) 复合索引后，接口大约 {ms2} 毫秒返回。",
                   "是 N+1 问题：序列化时逐个加载客户。改用 `selectinload(Invoice.customer)` "
                   "后只剩 2 条数据库查询，耗时 {ms2} 毫秒。"),
        },
    },
    {
        "key": "docs", "projects": ("harbor-web",), "weight": 2,
        "tools": [("terminal", {"command": "gh pr list --state merged --limit 20"},
                   ("#{pr}\tfeat: CSV export for invoices\tfeat/invoice-export\tMERGED\n"
                    "#{pr1}\tchore: migrate to Vite\tfeat/vite-migration\tMERGED\n"
                    "#{pr2}\tfix: payouts table contrast in dark mode\tfix/payouts-contrast\tMERGED",))],
        "title": {"en": ("Release notes for harbor-web {new}", "Local dev section in the README"),
                  "fr": ("Notes de version {new}", "Traduction de la doc"),
                  "es": ("Notas de la versión {new}",), "it": ("Note di rilascio {new}",),
                  "ru": ("Заметки к релизу {new}",), "zh": ("harbor-web {new} 发布说明",)},
        "user": {
            "en": ("Draft the release notes for harbor-web {new} from the merged PRs.",
                   "Write a short README section on running harbor-web against a local tideway.",
                   "Translate the onboarding page of the docs into French - informal 'tu', no "
                   "superlatives."),
            "fr": ("Rédige les notes de version de harbor-web {new} à partir des PR mergées.",
                   "Traduis la page d'onboarding de la doc en français — tutoiement, pas de "
                   "superlatifs."),
            "es": ("Redacta las notas de la versión {new} de harbor-web a partir de los PR "
                   "fusionados.",
                   "Escribe una sección breve del README sobre cómo arrancar harbor-web con "
                   "tideway en local."),
            "it": ("Scrivi le note di rilascio di harbor-web {new} dalle PR unite.",
                   "Scrivi una breve sezione del README su come avviare harbor-web con tideway in "
                   "locale."),
            "ru": ("Составь заметки к релизу harbor-web {new} по влитым PR.",
                   "Напиши короткий раздел README о запуске harbor-web с локальным tideway."),
            "zh": ("根据已合并的 PR 写一下 harbor-web {new} 的发布说明。",
                   "写一小段 README，说明如何在本地连着 tideway 运行 harbor-web。"),
        },
        "answer": {
            "en": ("Here's a draft:\n\n## harbor-web {new}\n- Invoices list: pagination and CSV "
                   "export (#{pr})\n- Faster builds with Vite (#{pr1})\n- Fixed: dark-mode contrast "
                   "on the payouts table (#{pr2})\n\nWant me to open the PR?",
                   "Added a 'Local development' section: start tideway with `make dev` (port "
                   "8000), then `pnpm dev` in harbor-web; the dev server proxies /api.",
                   "Translated `docs/onboarding.mdx` ({count} paragraphs), kept the code blocks in "
                   "English and used « tu » throughout."),
            "fr": ("Voici un brouillon :\n\n## harbor-web {new}\n- Liste des factures : pagination "
                   "et export CSV (#{pr})\n- Builds plus rapides avec Vite (#{pr1})\n- Corrigé : "
                   "contraste du tableau des virements en mode sombre (#{pr2})",
                   "J'ai traduit `docs/onboarding.mdx` ({count} paragraphes), en gardant les blocs "
                   "de code en anglais et le tutoiement partout."),
            "es": ("Borrador:\n\n## harbor-web {new}\n- Lista de facturas: paginación y exportación "
                   "CSV (#{pr})\n- Builds más rápidos con Vite (#{pr1})",
                   "Añadí la sección 'Desarrollo local': `make dev` en tideway (puerto 8000) y "
                   "luego `pnpm dev` en harbor-web."),
            "it": ("Bozza:\n\n## harbor-web {new}\n- Elenco fatture: paginazione ed export CSV "
                   "(#{pr})\n- Build più veloci con Vite (#{pr1})",
                   "Ho aggiunto la sezione 'Sviluppo locale': `make dev` in tideway (porta 8000), "
                   "poi `pnpm dev` in harbor-web."),
            "ru": ("Черновик:\n\n## harbor-web {new}\n- Список счетов: пагинация и экспорт в CSV "
                   "(#{pr})\n- Более быстрая сборка на Vite (#{pr1})",
                   "Добавил раздел «Локальная разработка»: `make dev` в tideway (порт 8000), затем "
                   "`pnpm dev` в harbor-web."),
            "zh": ("草稿如下：\n\n## harbor-web {new}\n- 发票列表：分页和 CSV 导出 (#{pr})\n"
                   "- 改用 Vite，构建更快 (#{pr1})",
                   "已添加“本地开发”一节：先在 tideway 里运行 `make dev`（端口 8000），再在 "
                   "harbor-web 里运行 `pnpm dev`。"),
        },
    },
    {
        "key": "ops", "projects": ("lighthouse-bot",), "weight": 3,
        "tools": [("terminal", {"command": "journalctl -u lighthouse-bot --since '{time}' -n 20"},
                   ("{date}T{time}:00 lighthouse-bot[812]: [bold]ALERT[/] {alert}\n"
                    "{date}T{time}:00 lighthouse-bot[812]: sent to #ops (message {pr})",
                    "{date}T{time}:03 lighthouse-bot[812]: [bold red]ERROR[/] telegram: ReadTimeout "
                    "after 30.0s (getUpdates)\n"
                    "{date}T{time}:03 lighthouse-bot[812]: [yellow]retrying[/] in 5s (attempt 5/5)\n"
                    "{date}T{time}:09 systemd[1]: lighthouse-bot.service: Main process exited, "
                    "code=exited, status=1/FAILURE\n"
                    "{date}T{time}:09 systemd[1]: lighthouse-bot.service: Start request repeated too "
                    "quickly.",))],
        "title": {"en": ("Alert: {alert}", "lighthouse-bot not answering"),
                  "fr": ("Alerte : {alert}", "Le bot ne répond plus"),
                  "es": ("Alerta: {alert}",), "it": ("Allarme: {alert}",),
                  "ru": ("Алерт: {alert}",), "zh": ("告警：{alert}",)},
        "user": {
            "en": ("lighthouse-bot fired '{alert}' at {time}. Is it real?",
                   "The bot stopped answering /status in #ops. Can you check the service?",
                   "Mute the '{alert}' alert until Monday, it's a known issue."),
            "fr": ("lighthouse-bot a déclenché « {alert} » à {time}. C'est réel ?",
                   "Le bot ne répond plus à /status dans #ops. Tu peux vérifier le service ?"),
            "es": ("lighthouse-bot lanzó «{alert}» a las {time}. ¿Es real?",
                   "El bot ya no responde a /status en #ops. ¿Revisas el servicio?"),
            "it": ("lighthouse-bot ha segnalato «{alert}» alle {time}. È reale?",
                   "Il bot non risponde più a /status in #ops. Controlli il servizio?"),
            "ru": ("lighthouse-bot прислал «{alert}» в {time}. Это реально?",
                   "Бот перестал отвечать на /status в #ops. Проверишь сервис?"),
            "zh": ("lighthouse-bot 在 {time} 报了“{alert}”，是真的吗？",
                   "机器人在 #ops 里不再响应 /status 了，能检查一下服务吗？"),
        },
        "answer": {
            "en": ("It's real but benign: the nightly export left {count} GB of temp files behind. I "
                   "removed them; disk usage is back to 61%. I'll add a cleanup step to the export "
                   "job.",
                   "The service crashed on a Telegram API timeout and systemd gave up after 5 "
                   "restarts. I restarted it and raised `RestartSec` to 10 s so it backs off.",
                   "Muted until Monday 09:00 Europe/Paris with `/mute {alertkey} 3d`."),
            "fr": ("C'est réel mais bénin : l'export de nuit a laissé {count} Go de fichiers "
                   "temporaires. Je les ai supprimés, on est revenu à 61 %.",
                   "Le service avait planté sur un timeout de l'API Telegram et systemd a abandonné "
                   "après 5 redémarrages. Je l'ai relancé et passé `RestartSec` à 10 s."),
            "es": ("Es real pero inofensivo: la exportación nocturna dejó {count} GB de temporales. "
                   "Los borré y el disco vuelve a estar al 61 %.",
                   "El servicio cayó por un timeout de la API de Telegram y systemd se rindió tras "
                   "5 reinicios. Lo reinicié y subí `RestartSec` a 10 s."),
            "it": ("È reale ma innocuo: l'export notturno ha lasciato {count} GB di file "
                   "temporanei. Li ho rimossi, il disco è tornato al 61%.",
                   "Il servizio è caduto per un timeout dell'API di Telegram e systemd si è arreso "
                   "dopo 5 riavvii. L'ho riavviato e portato `RestartSec` a 10 s."),
            "ru": ("Алерт настоящий, но безобидный: ночной экспорт оставил {count} ГБ временных "
                   "файлов. Удалил их, диск снова заполнен на 61%.",
                   "Сервис упал из-за таймаута API Telegram, и systemd сдался после 5 перезапусков. "
                   "Перезапустил и поднял `RestartSec` до 10 с."),
            "zh": ("告警是真的，但无害：夜间导出留下了 {count} GB 临时文件。我已删除，磁盘占用回到 61%。",
                   "服务因为 Telegram API 超时崩溃，systemd 重启 5 次后放弃了。我已重启，并把 "
                   "`RestartSec` 调到 10 秒。"),
        },
    },
    {
        "key": "recall", "projects": ("tideway", "harbor-web", "lighthouse-bot"), "weight": 2,
        "tools": [("session_search", {"query": "{recall}"},
                   ("{{\"results\": [{{\"session_id\": \"{prevsid}\", \"when\": \"{prevdate}\", "
                    "\"source\": \"cli\", \"snippet\": \"... we agreed on >>>{recall}<<< ...\"}}], "
                    "\"count\": 1}}",))],
        "title": {"en": ("Recall: {recall}",), "fr": ("Retrouver : {recall}",),
                  "es": ("Recordar: {recall}",), "it": ("Ritrovare: {recall}",),
                  "ru": ("Вспомнить: {recall}",), "zh": ("回顾：{recall}",)},
        "user": {
            "en": ("What did we decide about {recall}?",
                   "Find the session where we talked about {recall}."),
            "fr": ("Qu'est-ce qu'on avait décidé pour {recall} ?",
                   "Retrouve la session où on a parlé de {recall}."),
            "es": ("¿Qué decidimos sobre {recall}?",
                   "Busca la sesión en la que hablamos de {recall}."),
            "it": ("Cosa avevamo deciso su {recall}?",
                   "Trova la sessione in cui abbiamo parlato di {recall}."),
            "ru": ("Что мы решили насчёт {recall}?",
                   "Найди сессию, где мы обсуждали {recall}."),
            "zh": ("关于 {recall}，我们之前是怎么决定的？",
                   "帮我找到讨论 {recall} 的那次会话。"),
        },
        "answer": {
            "en": ("Found it - session {prevsid} on {prevdate}: we kept it behind a feature flag "
                   "until the Paylane sandbox is stable, to be revisited after the next release.",
                   "That was on {prevdate} (session {prevsid}): a unique constraint plus an early "
                   "return for duplicates, merged as PR #{pr}."),
            "fr": ("Trouvé — session {prevsid} du {prevdate} : on l'a laissé derrière un feature "
                   "flag tant que la sandbox Paylane n'est pas stable.",
                   "C'était le {prevdate} (session {prevsid}) : contrainte unique et retour anticipé "
                   "pour les doublons, mergé dans la PR #{pr}."),
            "es": ("Encontrado: sesión {prevsid} del {prevdate}. Lo dejamos detrás de un feature "
                   "flag hasta que el sandbox de Paylane sea estable.",
                   "Fue el {prevdate} (sesión {prevsid}): restricción única y retorno temprano para "
                   "duplicados, PR #{pr}."),
            "it": ("Trovata: sessione {prevsid} del {prevdate}. L'abbiamo lasciato dietro un "
                   "feature flag finché la sandbox Paylane non è stabile.",
                   "Era il {prevdate} (sessione {prevsid}): vincolo unico e ritorno anticipato per "
                   "i duplicati, PR #{pr}."),
            "ru": ("Нашёл: сессия {prevsid} от {prevdate}. Решили держать это за feature flag, пока "
                   "песочница Paylane нестабильна.",
                   "Это было {prevdate} (сессия {prevsid}): уникальное ограничение и ранний возврат "
                   "для дубликатов, PR #{pr}."),
            "zh": ("找到了：{prevdate} 的会话 {prevsid}。我们决定在 Paylane 沙箱稳定之前先放在 "
                   "feature flag 后面。",
                   "是在 {prevdate}（会话 {prevsid}）：加唯一约束，重复事件提前返回，已合并为 PR #{pr}。"),
        },
    },
    {
        "key": "research", "projects": ("tideway", "harbor-web", "lighthouse-bot"), "weight": 2,
        "tools": [("web_search", {"query": "{topic} changelog"},
                   ("1. {topic} - release notes (official documentation)\n"
                    "2. Migrating to {topic}: what's new and what breaks\n"
                    "3. GitHub discussion: breaking changes in {topic}",))],
        "title": {"en": ("{topic}: what changed",), "fr": ("{topic} : nouveautés",),
                  "es": ("{topic}: novedades",), "it": ("{topic}: novità",),
                  "ru": ("{topic}: что нового",), "zh": ("{topic} 有哪些变化",)},
        "user": {
            "en": ("What changed in {topic}? Anything that affects us?",
                   "Look up the recommended way to handle {topic} now."),
            "fr": ("Qu'est-ce qui change avec {topic} ? Ça nous impacte ?",
                   "Cherche la façon recommandée de gérer {topic} aujourd'hui."),
            "es": ("¿Qué cambia con {topic}? ¿Nos afecta?",
                   "Busca la forma recomendada de usar {topic} ahora."),
            "it": ("Cosa cambia con {topic}? Ci riguarda?",
                   "Cerca il modo consigliato di gestire {topic} adesso."),
            "ru": ("Что изменилось в {topic}? Нас это касается?",
                   "Найди рекомендуемый сейчас способ работы с {topic}."),
            "zh": ("{topic} 有什么变化？对我们有影响吗？", "查一下现在推荐的 {topic} 用法。"),
        },
        "answer": {
            "en": ("Short version: {topic} mostly changes configuration. For us the only change is "
                   "in `{file}`, a small PR.",
                   "The docs recommend the new approach; the old one still works but is deprecated. "
                   "I'd switch the next time we touch `{file}`."),
            "fr": ("En bref : {topic} change surtout la configuration. Chez nous, seul `{file}` est "
                   "concerné, une petite PR suffit.",
                   "La doc recommande la nouvelle approche ; l'ancienne marche encore mais est "
                   "dépréciée. Je migrerais au prochain passage dans `{file}`."),
            "es": ("Resumen: {topic} cambia sobre todo la configuración; a nosotros solo nos afecta "
                   "`{file}`.",
                   "La documentación recomienda el enfoque nuevo; el antiguo sigue funcionando pero "
                   "está obsoleto."),
            "it": ("In breve: {topic} cambia soprattutto la configurazione; per noi tocca solo "
                   "`{file}`.",
                   "La documentazione consiglia il nuovo approccio; il vecchio funziona ancora ma è "
                   "deprecato."),
            "ru": ("Коротко: {topic} в основном меняет конфигурацию; у нас затронут только `{file}`.",
                   "Документация рекомендует новый подход; старый ещё работает, но устарел."),
            "zh": ("简单说：{topic} 主要改了配置，我们这边只涉及 `{file}`，一个小 PR 就够了。",
                   "文档推荐新的写法，旧写法还能用但已废弃，下次改 `{file}` 时顺便迁移。"),
        },
    },
]
