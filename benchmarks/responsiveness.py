"""Benchmark: how long pages take on the embedded default while a job runs.

    python benchmarks/responsiveness.py [--problems 40] [--generators reorder,passive,...]

The embedded default as a newcomer runs it: a fresh SQLite database, no broker, the real
``manage.py runserver`` (which runs jobs on its background thread, ``jobs/background.py``). The
script creates a staff user and a dataset of ``--problems`` AQuA dev questions, logs in, submits
the candidates page's generate form (the default generators over every problem: minutes of work on
a 2-core CPU), and while that job runs requests the pages people look at, one after another, each
about once a second: the home page, the dashboard, the jobs page, the dataset page, the candidates
page, the job's API row, the /paraphrase/ page and a ``POST paraphrase/?async=1`` of one problem.
It reports, per page, the requests made while the job was running and their median, p90 and
maximum seconds, and how long the generate form's POST itself took. Writes
``docs/results/responsiveness.md``. Nothing is asserted: the target (no page over 2 s while a job
runs) is read from the table.
"""
from __future__ import annotations

import argparse
import json
import os
import platform as stdlib_platform
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import requests

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
OUT = REPO / "docs" / "results" / "responsiveness.md"
PASSWORD = "responsive-bench-9"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def manage(env: dict, *args: str, stdin: str | None = None) -> str:
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=env, input=stdin, text=True,
                          capture_output=True, check=True)
    return done.stdout


SETUP = """
import json, sys
from django.contrib.auth import get_user_model
from corpus.models import Dataset, Problem
from corpus.text import text_hash
problems = json.loads(sys.stdin.read())
User = get_user_model()
User.objects.create_user("bench", password="%s", is_staff=True)
dataset = Dataset.objects.create(name="responsiveness")
Problem.objects.bulk_create([Problem(dataset=dataset, text=t, text_hash=text_hash(t)) for t in problems])
print(dataset.pk)
"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--problems", type=int, default=40)
    parser.add_argument("--generators", default="", help="comma-separated (default: the default set)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    questions = [json.loads(line)["question"].strip() for line in (DATA / "aqua" / "dev.json").read_text().splitlines()
                 if line.strip()][: args.problems]
    work = Path(tempfile.mkdtemp(prefix="paralab-responsive-"))
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{work / 'db.sqlite3'}", "PARALAB_DATA_DIR": str(work),
           "DEBUG": "1"}
    for name in ("CELERY_BROKER_URL", "PARALAB_JOB_RUNNER"):
        env.pop(name, None)
    started = time.perf_counter()
    manage(env, "migrate", "--no-input")
    dataset_id = int(manage(env, "shell", "-c", SETUP % PASSWORD, stdin=json.dumps(questions)).strip().splitlines()[-1])
    port = free_port()
    server = subprocess.Popen([sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
                              cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        session = requests.Session()
        for _ in range(120):
            try:
                session.get(base + "/healthz/", timeout=2)
                break
            except requests.ConnectionError:
                time.sleep(0.5)
        page = session.get(base + "/login/")
        token = session.cookies.get("csrftoken") or re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"',
                                                               page.text).group(1)
        session.post(base + "/login/", data={"username": "bench", "password": PASSWORD,
                                              "csrfmiddlewaretoken": token}, headers={"Referer": base + "/login/"})
        csrf = session.cookies.get("csrftoken")
        candidates = session.get(f"{base}/datasets/{dataset_id}/candidates/")
        names = [n for n in args.generators.split(",") if n] or re.findall(
            r'name="generators" value="([^"]+)"[^>]*checked', candidates.text)
        t0 = time.perf_counter()
        answer = session.post(f"{base}/datasets/{dataset_id}/generate/",
                              data={"generators": names, "per_problem": "2", "csrfmiddlewaretoken": csrf},
                              headers={"Referer": base + "/"}, allow_redirects=False)
        submit_s = time.perf_counter() - t0
        jobs = session.get(base + "/api/v1/jobs/", headers={"Accept": "application/json"}).json()
        job = next(j for j in jobs["results"] if j["kind"] == "generate")
        pages = {
            "home": ("GET", "/"), "dashboard": ("GET", "/dashboard/"), "jobs": ("GET", "/jobs/"),
            "dataset": ("GET", f"/datasets/{dataset_id}/"), "candidates": ("GET", f"/datasets/{dataset_id}/candidates/"),
            "job API row": ("GET", f"/api/v1/jobs/{job['id']}/"), "/paraphrase/ page": ("GET", "/paraphrase/"),
            "POST paraphrase/?async=1": ("POST", "/api/v1/paraphrase/?async=1"),
        }
        seconds: dict[str, list[float]] = {name: [] for name in pages}
        status = "queued"
        job_started = time.perf_counter()
        while status in ("queued", "running"):
            for name, (method, path) in pages.items():
                t0 = time.perf_counter()
                if method == "GET":
                    response = session.get(base + path)
                else:
                    response = session.post(base + path, json={"text": questions[0], "k": 2},
                                            headers={"X-CSRFToken": csrf, "Referer": base + "/"})
                elapsed = time.perf_counter() - t0
                if response.status_code >= 400:
                    raise SystemExit(f"{name}: HTTP {response.status_code}: {response.text[:300]}")
                status = session.get(f"{base}/api/v1/jobs/{job['id']}/").json()["status"]
                if status not in ("queued", "running"):
                    break
                seconds[name].append(elapsed)
                time.sleep(1.0)
        job_s = time.perf_counter() - job_started
        final = session.get(f"{base}/api/v1/jobs/{job['id']}/").json()
    finally:
        server.terminate()
        server.wait(timeout=30)

    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"## Run of {stamp}", "",
        f"Command: `python benchmarks/responsiveness.py --problems {args.problems}"
        f"{' --generators ' + args.generators if args.generators else ''}` ({os.cpu_count()} cores, no GPU, "
        f"{stdlib_platform.python_implementation()} {stdlib_platform.python_version()}; "
        f"{time.perf_counter() - started:.0f} s in all).", "",
        f"Data: {len(questions)} AQuA dev questions in a fresh SQLite database; `manage.py runserver` with no broker "
        f"(jobs on its background thread). The generate form's POST (generators: {', '.join(names)}) answered in "
        f"**{submit_s:.2f} s** with HTTP {answer.status_code}; the job then ran {job_s:.0f} s and ended "
        f"`{final['status']}`{(' (' + final['error'][:120] + ')') if final.get('error') else ''}.", "",
        "| page (requested while the job ran) | requests | median s | p90 s | max s |",
        "|---|---|---|---|---|",
    ]
    worst = 0.0
    for name, values in seconds.items():
        if not values:
            lines.append(f"| {name} | 0 | – | – | – |")
            continue
        worst = max(worst, max(values))
        lines.append(f"| {name} | {len(values)} | {statistics.median(values):.3f} | {percentile(values, 0.9):.3f} | "
                     f"{max(values):.3f} |")
    lines += ["", f"Slowest request while the job ran: **{worst:.2f} s** (target: none over 2 s).", ""]
    header = ("# Responsiveness of the embedded default while a job runs\n\n"
              "Written by `benchmarks/responsiveness.py`; newest run first.\n\n")
    text = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
    earlier = text[text.index("## Run"):] if "## Run" in text else ""
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(header + "\n".join(lines) + "\n" + earlier,
                        encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
