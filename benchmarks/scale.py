"""Benchmark: a district-sized item bank on PostgreSQL (100,000 problems, 500,000 candidates, 200 annotators).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/paralab_scale python benchmarks/scale.py

The database in DATABASE_URL is the benchmark's own: it is dropped and created again (its name must
contain "scale"), unless ``--reuse`` keeps the one a previous run built. Steps:

1. Build. Problem texts: GSM8K train questions (``../shared/data``, read in place), each also with
   its numbers shifted by 1, 2, … (a district bank holds many numeric variants of one problem) until
   ``--problems`` distinct texts; written to a temporary JSON-lines file and imported with the real
   command, ``manage.py import_problems`` (timed). Candidates: ``--per-problem`` rewrites per problem
   (sentence order rotated, a lead-in added), written to temporary ParaQD CSV files of 100,000 pairs
   and imported with ``manage.py import_pairs`` (timed, peak memory of each process). Then, in
   bulk (set-up, not timed as a product path): one annotation item per candidate (k = 2, fill order
   ``complete``, queue order ``uncertainty``), an active ParaQD version with a score per candidate
   and a metrics score (S, D, N, PQI) per candidate, ``--annotators`` member annotators with API
   tokens, and a labelling history: ``--labelled-items`` items with both labels (done assignments,
   gold labels where the two agree). Highlight spans are not prepared: items get them on first use,
   as in a bank this size (spaCy for 500,000 pairs would take hours).
2. Load: the real server (gunicorn, gthread, ``DEBUG=0``) and ``--clients`` of the annotators
   looping ``GET annotation/next/`` → ``POST annotation/items/{id}/label/`` with a 2–6 s pause
   (``paced``, people) and, for information, ``flood`` (no pause), as benchmarks/annotation_load.py.
3. Staff pages and endpoints in-process, one request at a time, 3 runs each: the dashboard page,
   ``GET datasets/{id}/agreement/``, ``GET annotation/datasets/{id}/progress/``; and ``next`` and
   ``label`` profiled (server time, SQL queries). The slowest SQL statements of each get
   ``EXPLAIN (ANALYZE, BUFFERS)``.
4. Streaming export (``GET datasets/{id}/export/``), each in a fresh process: rows/s and the
   resident memory sampled every 25,000 rows (flat = the same after 50,000 rows as at the end).

Writes docs/results/scale.md.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlparse

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))
import annotation_load as load  # noqa: E402  (the server, the client threads, percentiles)

GSM8K = REPO.parent / "shared" / "data" / "gsm8k" / "train.jsonl"
OUT = REPO / "docs" / "results" / "scale.md"
DATASET = "scale-district"
USER_PREFIX = "scale-annotator-"
STAFF = "scale-staff"
PAIRS_PER_FILE = 100_000
LEAD_INS = ["", "Read carefully. ", "Here is a problem. ", "Try this one. ", "Question: ", "Solve this. ",
            "For the class: "]
NUMBER = re.compile(r"\d+")
TARGETS = {"next_label_p95_ms": 150, "dashboard_s": 1.0, "export_rows_s": 50_000}


def log(message: str) -> None:
    print(f"[{datetime.now():%H:%M:%S}] {message}", flush=True)


# --- the database -----------------------------------------------------------------------------------


def recreate_database(url: str) -> None:
    parsed = urlparse(url)
    name = parsed.path.lstrip("/")
    if "scale" not in name:
        sys.exit(f"refusing to drop {name!r}: the benchmark's database name must contain 'scale'")
    import psycopg2

    conn = psycopg2.connect(parsed._replace(path="/postgres").geturl())
    conn.autocommit = True
    try:
        with conn.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            cursor.execute(f'CREATE DATABASE "{name}"')
    finally:
        conn.close()


def manage(*args: str, env: dict | None = None) -> tuple[float, int, str]:
    """Run ``manage.py args`` → (wall seconds, peak RSS in MiB of that process, stdout)."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "manage.py", *args], cwd=REPO, env={**os.environ, **(env or {})},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate()
    wall = time.perf_counter() - started
    if proc.returncode:
        sys.exit(f"manage.py {' '.join(args)} failed ({proc.returncode}):\n{err[-3000:]}")
    # ru_maxrss of the children waited for so far (KiB); the imports run one at a time, biggest last.
    import resource

    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return wall, int(peak), out


# --- building the bank --------------------------------------------------------------------------------


def problem_texts(n: int) -> list[str]:
    """``n`` distinct problem texts: GSM8K train, then the same with every number shifted by 1, 2, …"""
    from corpus.text import text_hash

    base = [json.loads(line)["question"] for line in GSM8K.open(encoding="utf-8")]
    seen, texts = set(), []
    shift = 0
    while len(texts) < n:
        for text in base:
            variant = NUMBER.sub(lambda m: str(int(m.group()) + shift), text) if shift else text
            digest = text_hash(variant)
            if digest not in seen:
                seen.add(digest)
                texts.append(variant)
                if len(texts) == n:
                    break
        shift += 1
    return texts


def rewrites(text: str, n: int) -> list[str]:
    sentences = [s for s in re.split(r"(?<=[.?!])\s+", text.strip()) if s]
    out = []
    for j in range(n):
        rotated = sentences[j % len(sentences):] + sentences[:j % len(sentences)]
        out.append(LEAD_INS[j % len(LEAD_INS)] + " ".join(rotated))
    return out


def build(args, tmp: Path) -> dict:
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction
    from rest_framework.authtoken.models import Token

    from annotation.models import AnnotationItem, Assignment, GoldLabel, Label
    from corpus.models import Dataset
    from modelhub.services import modelversion_activate, modelversion_create
    from paraphrases.models import Candidate, Score

    timings: dict = {}
    texts = problem_texts(args.problems)
    problems_file = tmp / "problems.jsonl"
    with problems_file.open("w", encoding="utf-8") as handle:
        for i, text in enumerate(texts):
            handle.write(json.dumps({"text": text, "source": "district", "source_id": str(i)}) + "\n")
    size = problems_file.stat().st_size
    log(f"importing {len(texts)} problems ({size / 2**20:.1f} MiB)")
    big = {"PARALAB_MAX_UPLOAD_BYTES": str(1 << 30)}
    wall, rss, out = manage("import_problems", str(problems_file), "--dataset", DATASET, "--format", "jsonl", env=big)
    timings["import_problems"] = {"rows": len(texts), "mib": size / 2**20, "s": wall, "rss_mib": rss,
                                  "result": out.strip().splitlines()[-1] if out.strip() else ""}
    log(f"  {wall:.1f} s, peak {rss} MiB")

    pair_files = []
    rows = [(text, rewrite) for text in texts for rewrite in rewrites(text, args.per_problem)]
    for start in range(0, len(rows), PAIRS_PER_FILE):
        path = tmp / f"pairs-{start // PAIRS_PER_FILE:02d}.csv"
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["question", "paraphrase", "label"])
            writer.writerows((q, p, "") for q, p in rows[start:start + PAIRS_PER_FILE])
        pair_files.append(path)
    timings["import_pairs"] = []
    for path in pair_files:
        size = path.stat().st_size
        log(f"importing pairs {path.name} ({size / 2**20:.1f} MiB)")
        wall, rss, out = manage("import_pairs", str(path), "--dataset", DATASET, "--format", "paraqd", env=big)
        timings["import_pairs"].append({"rows": min(PAIRS_PER_FILE, len(rows)), "mib": size / 2**20, "s": wall,
                                        "rss_mib": rss})
        log(f"  {wall:.1f} s, peak {rss} MiB")

    started = time.perf_counter()
    dataset = Dataset.objects.get(name=DATASET)
    dataset.labels_per_item = 2
    dataset.fill_order = Dataset.FillOrder.COMPLETE
    dataset.queue_order = Dataset.QueueOrder.UNCERTAINTY
    dataset.save()
    User = get_user_model()
    staff, _ = User.objects.get_or_create(username=STAFF, defaults={"is_staff": True})
    annotators = User.objects.bulk_create([User(username=f"{USER_PREFIX}{i:03d}", password="!")
                                           for i in range(args.annotators)])
    Token.objects.bulk_create([Token(user=u, key=Token.generate_key()) for u in [*annotators, staff]])
    dataset.annotators.add(*annotators)
    candidate_ids = list(Candidate.objects.filter(problem__dataset=dataset).order_by("id").values_list("id", flat=True))
    log(f"queueing {len(candidate_ids)} items, scoring them")
    batch = 10_000
    for i in range(0, len(candidate_ids), batch):
        AnnotationItem.objects.bulk_create([AnnotationItem(dataset=dataset, candidate_id=c, required_labels=2)
                                            for c in candidate_ids[i:i + batch]])
    version = modelversion_activate(version=modelversion_create(
        kind="paraqd", base_model="scale-bench", artifact_path="/nonexistent/scale-bench"))
    rng = random.Random(7)
    for i in range(0, len(candidate_ids), batch):
        chunk = candidate_ids[i:i + batch]
        scores = []
        for c in chunk:
            scores.append(Score(candidate_id=c, scorer_version=f"paraqd:v{version.pk}", model_version=version,
                                paraqd=rng.uniform(-1, 1)))
            s, d = rng.uniform(0.8, 1.0), rng.uniform(0.1, 0.6)
            scores.append(Score(candidate_id=c, scorer_version="metrics:1", similarity=s, diversity=d, numeracy=1.0,
                                pqi=2 * s * d / (s + d), bleu_diversity=d, wpd=d / 2))
        Score.objects.bulk_create(scores)
    log(f"labelling history: {args.labelled_items} items × 2 labels")
    items = list(AnnotationItem.objects.filter(dataset=dataset).values_list("id", "candidate_id"))
    rng.shuffle(items)
    ids = [u.pk for u in annotators]
    for i in range(0, args.labelled_items, batch):
        labels, assignments, gold = [], [], []
        for n, (item, candidate) in enumerate(items[i:min(i + batch, args.labelled_items)], start=i):
            a, b = ids[n % len(ids)], ids[(n * 7 + 1) % len(ids)]
            if a == b:
                b = ids[(n + 1) % len(ids)]
            verdicts = [rng.random() < 0.6, rng.random() < 0.6]
            for user, valid in zip((a, b), verdicts):
                labels.append(Label(item_id=item, annotator_id=user, valid=valid, fluency=rng.randint(0, 5),
                                    solvability=rng.randint(0, 5), time_spent_ms=rng.randint(4000, 40000)))
                assignments.append(Assignment(item_id=item, annotator_id=user, status=Assignment.Status.DONE))
            if verdicts[0] == verdicts[1]:
                gold.append(GoldLabel(candidate_id=candidate, valid=verdicts[0], source=GoldLabel.Source.AGREEMENT))
        with transaction.atomic():
            Label.objects.bulk_create(labels)  # bulk_create sends no signal: the counts are set here
            AnnotationItem.objects.filter(pk__in={label.item_id for label in labels}).update(label_count=2)
            Assignment.objects.bulk_create(assignments)
            GoldLabel.objects.bulk_create(gold)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")  # what autovacuum would have done by the time people log in
    timings["setup_s"] = time.perf_counter() - started
    log(f"set-up done in {timings['setup_s']:.0f} s")
    return timings


def counts() -> dict[str, int]:
    from annotation.models import AnnotationItem, Assignment, GoldLabel, Label
    from corpus.models import Dataset, Problem
    from paraphrases.models import Candidate, Score

    dataset = Dataset.objects.get(name=DATASET)
    return {
        "problems": Problem.objects.filter(dataset=dataset).count(),
        "candidates": Candidate.objects.filter(problem__dataset=dataset).count(),
        "items": AnnotationItem.objects.filter(dataset=dataset).count(),
        "scores": Score.objects.filter(candidate__problem__dataset=dataset).count(),
        "labels": Label.objects.filter(item__dataset=dataset).count(),
        "assignments": Assignment.objects.filter(item__dataset=dataset).count(),
        "gold": GoldLabel.objects.filter(candidate__problem__dataset=dataset).count(),
        "annotators": dataset.annotators.count(),
    }


# --- in-process timings and EXPLAIN ANALYZE -----------------------------------------------------------------


def explain(sql: str) -> str:
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql)
        plan = "\n".join(row[0] for row in cursor.fetchall())
        transaction.set_rollback(True)
    return plan


def timed(client, method: str, path: str, runs: int = 3, **kwargs) -> dict:
    """Server time of ``runs`` requests in-process, the SQL of the slowest one."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times, worst = [], None
    status = None
    for _ in range(runs):
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            response = getattr(client, method)(path, HTTP_HOST="127.0.0.1", **kwargs)
            if getattr(response, "streaming", False):
                for _ in response.streaming_content:
                    pass
            elapsed = time.perf_counter() - started
        status = response.status_code
        times.append(elapsed)
        if worst is None or elapsed >= max(times):
            worst = list(queries.captured_queries)
    slow = sorted(worst or [], key=lambda q: float(q["time"]), reverse=True)
    return {"path": path, "status": status, "runs": times, "median_s": statistics.median(times),
            "queries": len(worst or []), "sql_s": sum(float(q["time"]) for q in worst or []),
            "slowest": [(float(q["time"]), q["sql"]) for q in slow[:2]]}


def staff_endpoints(dataset) -> dict:
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_login(get_user_model().objects.get(username=STAFF))
    out = {}
    for name, path in (("dashboard page", f"/dashboard/?dataset={dataset.pk}"),
                       ("agreement API", f"/api/v1/datasets/{dataset.pk}/agreement/"),
                       ("progress API", f"/api/v1/annotation/datasets/{dataset.pk}/progress/"),
                       ("candidates page", f"/datasets/{dataset.pk}/candidates/"),
                       ("dataset page", f"/datasets/{dataset.pk}/")):
        log(f"timing {name}")
        out[name] = timed(client, "get", path)
        log(f"  median {out[name]['median_s']:.2f} s, {out[name]['queries']} queries")
    return out


def annotator_profile(dataset, users: list, rounds: int = 10) -> dict:
    from rest_framework.test import APIClient

    out: dict[str, list] = {"next": [], "label": []}
    for _, token in users[:rounds]:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        got = timed(client, "get", f"/api/v1/annotation/next/?dataset={dataset.pk}", runs=1)
        out["next"].append(got)
        item = client.get(f"/api/v1/annotation/next/?dataset={dataset.pk}", HTTP_HOST="127.0.0.1").data["item"]
        out["label"].append(timed(client, "post", f"/api/v1/annotation/items/{item}/label/", runs=1,
                                  data={"valid": True, "fluency": 4}, format="json"))
    result = {}
    for name, rows in out.items():
        slowest = max(rows, key=lambda r: r["median_s"])
        result[name] = {"n": len(rows), "median_s": statistics.median(r["median_s"] for r in rows),
                        "max_s": slowest["median_s"], "queries": statistics.mean(r["queries"] for r in rows),
                        "slowest": slowest["slowest"]}
    return result


def queue_compare(dataset, users: list, runs: int = 3) -> dict:
    """The queue head of 50 read the old way (every open item grouped and sorted in one statement)
    and the two-part way (``selectors.queue_head``): same ids? how long? (in-process, SQL captured)."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from annotation import selectors

    user = get_user_model().objects.get(pk=users[0][0])
    out = {}
    for name in ("full sort (before)", "queue_head (after)"):
        times, sql = [], []
        for _ in range(runs):
            now = timezone.now()
            with CaptureQueriesContext(connection) as queries:
                started = time.perf_counter()
                if name.startswith("full"):
                    qs = selectors.queue_order(qs=selectors.open_items(user=user, dataset=dataset, now=now),
                                               user=user, dataset=dataset)
                    ids = list(qs.values_list("pk", flat=True)[:50])
                else:
                    ids = selectors.queue_head(user=user, dataset=dataset, now=now, limit=50)
                times.append(time.perf_counter() - started)
            sql = list(queries.captured_queries)
        slow = sorted(sql, key=lambda q: float(q["time"]), reverse=True)
        out[name] = {"ids": ids, "median_s": statistics.median(times), "queries": len(sql),
                     "slowest": [(float(q["time"]), q["sql"]) for q in slow[:1]]}
    return out


# --- export in a fresh process ----------------------------------------------------------------------------


def rss_mib() -> float:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def export_child(dataset_id: int, what: str, fmt: str) -> None:
    """(In a fresh process) stream one export through the API view; print JSON numbers."""
    load.setup_django()
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_login(get_user_model().objects.get(username=STAFF))
    before = rss_mib()
    started = time.perf_counter()
    response = client.get(f"/api/v1/datasets/{dataset_id}/export/?what={what}&format={fmt}", HTTP_HOST="127.0.0.1")
    lines = size = 0
    samples = []
    next_sample = 25_000
    for piece in response.streaming_content:
        lines += piece.count(b"\n")
        size += len(piece)
        if lines >= next_sample:
            samples.append((lines, round(rss_mib(), 1)))
            next_sample += 25_000
    seconds = time.perf_counter() - started
    rows = lines - (1 if fmt == "csv" else 0)
    print(json.dumps({"what": what, "format": fmt, "status": response.status_code, "rows": rows,
                      "mib": size / 2**20, "s": seconds, "rss_before": round(before, 1),
                      "rss_end": round(rss_mib(), 1), "samples": samples}))


def export_run(dataset_id: int, what: str, fmt: str) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--export-child", str(dataset_id), what, fmt], cwd=REPO,
                          capture_output=True, text=True)
    if proc.returncode:
        return {"what": what, "format": fmt, "error": proc.stderr[-2000:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --- the report -----------------------------------------------------------------------------------------------


def plan_block(sql: str) -> list[str]:
    try:
        plan = explain(sql)
    except Exception as exc:  # noqa: BLE001 - a statement EXPLAIN cannot run (an INSERT's conflict): say so
        plan = f"(EXPLAIN failed: {exc})"
    short = sql if len(sql) < 1500 else sql[:1500] + " …"
    return ["", "```sql", short, "```", "", "```", plan, "```"]


def report(args, timings, sizes, loads, staff, profile, exports, uptime_before, uptime_after, compare) -> str:
    from django.db import connection

    pg = connection.pg_version
    lines = [
        "# Scale: a district item bank (100,000 problems, 500,000 candidates, 200 annotators)",
        "",
        "Reproduce: `DATABASE_URL=postgres://postgres@127.0.0.1:5432/paralab_scale python benchmarks/scale.py`"
        + (f" (this run: `{' '.join(sys.argv[1:])}`)" if sys.argv[1:] else ""),
        "",
        f"Run {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC: {os.cpu_count()} cores, no GPU, Python "
        f"{platform.python_version()}, PostgreSQL {pg // 10000}.{pg % 10000}; clients, server and database on the "
        f"same machine. `uptime` before: `{uptime_before}`; after: `{uptime_after}`.",
        "",
        "## The bank",
        "",
        "| problems | candidates | items (k = 2) | scores | labels | assignments | gold labels | annotators |",
        "|---|---|---|---|---|---|---|---|",
        f"| {sizes['problems']:,} | {sizes['candidates']:,} | {sizes['items']:,} | {sizes['scores']:,} "
        f"| {sizes['labels']:,} | {sizes['assignments']:,} | {sizes['gold']:,} | {sizes['annotators']} |",
        "",
        "Problems are GSM8K train questions and numeric variants of them (numbers shifted by 1, 2, …);",
        f"candidates are {args.per_problem} rewrites each (sentence order rotated, a lead-in). Counted after the run"
        " (the load test adds labels).",
    ]
    if timings:
        lines += ["", "## Import (the real commands, one process each)", "",
                  "| command | rows | file MiB | wall s | rows/s | peak RSS MiB (so far) |", "|---|---|---|---|---|---|"]
        problems = timings["import_problems"]
        lines.append(f"| `import_problems --format jsonl` | {problems['rows']:,} | {problems['mib']:.1f} "
                     f"| {problems['s']:.1f} | {problems['rows'] / problems['s']:,.0f} | {problems['rss_mib']} |")
        for n, row in enumerate(timings["import_pairs"]):
            lines.append(f"| `import_pairs --format paraqd` (file {n + 1}) | {row['rows']:,} | {row['mib']:.1f} "
                         f"| {row['s']:.1f} | {row['rows'] / row['s']:,.0f} | {row['rss_mib']} |")
        total = sum(r["s"] for r in timings["import_pairs"])
        lines += ["", f"Pairs in all: {sum(r['rows'] for r in timings['import_pairs']):,} in {total:.0f} s. "
                  f"The rest of the set-up (items, 1,000,000 scores, the labelling history, in bulk): "
                  f"{timings['setup_s']:.0f} s."]
    lines += ["", f"## `next` and `label` under {args.clients} concurrent annotators (over HTTP)", "",
              "Server: `gunicorn paralab.wsgi --preload --worker-class gthread --workers 3 --threads 4` (spaCy "
              "loaded once before the fork, as in docker-compose), `DEBUG=0`, token "
              f"authentication. {args.clients} of the {args.annotators} annotators, one keep-alive connection each, "
              f"{args.max_labels} labels each. `paced`: 2–6 s between fetching a pair and labelling it (people); "
              "`flood`: no pause (saturation, for information). Highlight spans are computed on an item's first "
              "view (spaCy), as they would be in a bank this size.", "",
              "| scenario | endpoint | requests | p50 ms | p95 ms | p99 ms | max ms | errors | lost labels |",
              "|---|---|---|---|---|---|---|---|---|"]
    for scenario, results, wall, checks in loads:
        for endpoint in ("next", "label"):
            values = results.latency.get(endpoint, [])
            if not values:
                continue
            ok = {200, 204} if endpoint == "next" else {200, 201}
            errors = sum(n for code, n in results.status[endpoint].items() if code not in ok)
            lines.append(f"| {scenario} | {endpoint} | {len(values)} | {load.pct(values, 50) * 1000:.0f} "
                         f"| {load.pct(values, 95) * 1000:.0f} | {load.pct(values, 99) * 1000:.0f} "
                         f"| {max(values) * 1000:.0f} | {errors} | {checks['lost'] if endpoint == 'label' else ''} |")
    lines += ["", "In-process profile (one request at a time, server time):", "",
              "| endpoint | requests | median ms | max ms | SQL queries |", "|---|---|---|---|---|"]
    for name, row in profile.items():
        lines.append(f"| {name} | {row['n']} | {row['median_s'] * 1000:.0f} | {row['max_s'] * 1000:.0f} "
                     f"| {row['queries']:.1f} |")
    old, new = compare["full sort (before)"], compare["queue_head (after)"]
    lines += ["", "The queue's head (50 items) for one annotator, read the way `next` did before this benchmark (every "
              "open item grouped with its labels and leases and sorted in one statement) and the way it does now "
              "(`annotation.selectors.queue_head`: started items by a partial index, fresh items walked outward from "
              "the judge's threshold on the score index), in-process, median of 3:", "",
              "| read | median ms | SQL statements | same 50 items in the same order |", "|---|---|---|---|",
              f"| full sort (before) | {old['median_s'] * 1000:.0f} | {old['queries']} | |",
              f"| queue_head (after) | {new['median_s'] * 1000:.0f} | {new['queries']} "
              f"| {'yes' if old['ids'] == new['ids'] else 'NO'} |"]
    lines += ["", "## Staff pages and endpoints (in-process, 3 runs each)", "",
              "| what | path | status | median s | runs s | SQL queries | SQL s |", "|---|---|---|---|---|---|---|"]
    for name, row in staff.items():
        lines.append(f"| {name} | `{row['path']}` | {row['status']} | {row['median_s']:.2f} "
                     f"| {', '.join(f'{t:.2f}' for t in row['runs'])} | {row['queries']} | {row['sql_s']:.2f} |")
    lines += ["", "## Streaming export (`GET datasets/{id}/export/`, a fresh process each)", "",
              "| what | format | rows | MiB | s | rows/s | RSS MiB: start → after 50k rows → end |",
              "|---|---|---|---|---|---|---|"]
    for row in exports:
        if "error" in row:
            lines.append(f"| {row['what']} | {row['format']} | error: {row['error'][-300:]!r} | | | | |")
            continue
        at_50k = next((rss for n, rss in row["samples"] if n >= 50_000), row["rss_end"])
        lines.append(f"| {row['what']} | {row['format']} | {row['rows']:,} | {row['mib']:.0f} | {row['s']:.1f} "
                     f"| {row['rows'] / row['s']:,.0f} | {row['rss_before']:.0f} → {at_50k:.0f} → {row['rss_end']:.0f} |")
    # Verdicts.
    paced = next((r for s, r, _, _ in loads if s == "paced"), None)
    p95 = {e: load.pct(v, 95) * 1000 for e, v in paced.latency.items()} if paced else {}
    dash_runs = staff["dashboard page"]["runs"]
    dash, dash_cold = statistics.median(dash_runs[1:]), dash_runs[0]
    rates = [r["rows"] / r["s"] for r in exports if "error" not in r and r["rows"] >= 100_000]
    lines += ["", "## Against the targets", "",
              f"- `next`/`label` p95 < {TARGETS['next_label_p95_ms']} ms (`paced`): "
              + ("not measured" if not p95 else ", ".join(f"{e} {v:.0f} ms" for e, v in p95.items())
                 + (" — met" if all(v < TARGETS["next_label_p95_ms"] for v in p95.values()) else " — missed")) + ".",
              f"- Dashboard < {TARGETS['dashboard_s']} s: {dash:.2f} s with its summaries computed — "
              + ("met" if dash < TARGETS["dashboard_s"] else "missed")
              + f"; computing them (agreement, disagreements, PQI per generator) took {dash_cold:.2f} s in the first "
              "request — " + ("met" if dash_cold < TARGETS["dashboard_s"] else "missed") + ". Beat recomputes them "
              "into the shared cache every half PARALAB_DASHBOARD_CACHE_S, so staff get the cached time.",
              f"- Export ≥ {TARGETS['export_rows_s']:,} rows/s with flat memory: "
              + (", ".join(f"{r:,.0f}" for r in rates) or "not measured") + " rows/s — "
              + ("met" if rates and min(rates) >= TARGETS["export_rows_s"] else "missed") + " (memory: the table)."]
    lines += ["", "## EXPLAIN ANALYZE of the slowest statements", ""]
    for name, row in [*compare.items(), *profile.items(), *staff.items()]:
        for seconds, sql in row["slowest"][:1]:
            if not sql.lstrip().upper().startswith("SELECT") or seconds < 0.02:
                continue
            lines += [f"### {name}: {seconds * 1000:.0f} ms"] + plan_block(sql) + [""]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", type=int, default=100_000)
    parser.add_argument("--per-problem", type=int, default=5, help="candidates per problem (default 5)")
    parser.add_argument("--annotators", type=int, default=200)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--labelled-items", type=int, default=50_000, help="items with both labels before the run")
    parser.add_argument("--max-labels", type=int, default=15, help="labels per client in the load test")
    parser.add_argument("--scenarios", default="paced,flood")
    parser.add_argument("--reuse", action="store_true", help="keep the database a previous run built")
    parser.add_argument("--skip-load", action="store_true")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--export-child", nargs=3, metavar=("DATASET", "WHAT", "FORMAT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.export_child:
        export_child(int(args.export_child[0]), args.export_child[1], args.export_child[2])
        return
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        sys.exit("set DATABASE_URL to the benchmark's own PostgreSQL database (its name containing 'scale')")
    uptime_before = load.uptime()
    if not args.reuse:
        recreate_database(url)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=REPO, check=True)
    load.setup_django()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from rest_framework.authtoken.models import Token

    if args.reuse:
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")  # after a migration's bulk UPDATE, as autovacuum would

    from corpus.models import Dataset

    timings = {}
    if not args.reuse:
        with tempfile.TemporaryDirectory(prefix="paralab-scale-") as tmp:
            timings = build(args, Path(tmp))
    dataset = Dataset.objects.get(name=DATASET)
    users = [(u.pk, Token.objects.get_or_create(user=u)[0].key)
             for u in get_user_model().objects.filter(username__startswith=USER_PREFIX).order_by("username")]
    loads = []
    if not args.skip_load:
        clients = users[-args.clients:]
        connection.close()
        port = load.free_port()
        server, _ = load.start_server(port, 3, 4)
        try:
            for scenario in [s for s in args.scenarios.split(",") if s]:
                log(f"load: {scenario}")
                results, wall, _ = load.run_clients(port, clients, dataset.pk, max_labels=args.max_labels,
                                                    think=load.SCENARIOS[scenario])
                checks = load.db_checks(dataset, results)
                loads.append((scenario, results, wall, checks))
                log(f"  {wall:.0f} s, " + ", ".join(
                    f"{e} p50 {load.pct(v, 50) * 1000:.0f} p95 {load.pct(v, 95) * 1000:.0f} ms"
                    for e, v in results.latency.items()) + f", errors {len(results.errors)}")
                for error in results.errors[:5]:
                    log(f"    {error}")
        finally:
            load.stop_server(server)
    log("profiling next and label")
    import paralab.wsgi  # noqa: F401  (loads spaCy here, as the server did before its first request)

    compare = queue_compare(dataset, users)
    log("  queue: " + ", ".join(f"{k} {v['median_s'] * 1000:.0f} ms" for k, v in compare.items()))
    profile = annotator_profile(dataset, users[:args.clients])
    staff = staff_endpoints(dataset)
    exports = []
    for what, fmt in (("paraphrases", "jsonl"), ("paraphrases", "csv"), ("problems", "jsonl"), ("problems", "csv"),
                      ("labels", "jsonl"), ("labels", "csv")):
        log(f"export {what} {fmt}")
        exports.append(export_run(dataset.pk, what, fmt))
        row = exports[-1]
        log(f"  {row.get('rows')} rows in {row.get('s', 0):.1f} s" if "error" not in row else row["error"][-500:])
    sizes = counts()
    text = report(args, timings, sizes, loads, staff, profile, exports, uptime_before, load.uptime(), compare)
    print(text)
    if not args.no_write:
        OUT.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
