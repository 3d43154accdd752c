"""The demo set-up behind ``manage.py demo``: users, a dataset and its problems, reviewed pairs
the two annotators already labelled, and synthesized test pairs waiting for them, as a list of steps.

Every step is idempotent (running the demo again finds what it made and changes nothing) and
returns a one-line summary. Steps find the users and the dataset on the :class:`DemoContext`
that earlier steps filled in.

What staff find: agreement (Cohen's kappa on the reviewed pairs, three of which the annotators
split on, waiting for adjudication) and agreement gold labels a retrain can learn from: the
reviewed pairs are ordinary candidates (generator ``demo:reviewed``), labelled through
``annotation.services.label_submit`` like any label from the browser. What annotators find:
the ParaQD synthesized test pairs of every demo problem (``paraqd_synthesize_tests``, run as a
job), queued for both of them (k = 2), highlight spans computed in advance. Test pairs are the
platform's own test set and never trained on, which is why the gold a retrain needs comes from
the reviewed pairs.

The passwords are fixed and printed by the command: demo-only, never for a
deployment that anyone else can reach.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from importlib import resources
from typing import Literal

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from annotation.models import AnnotationItem, Assignment, GoldLabel, Label
from annotation.services import item_spans_prepare, label_submit
from corpus.dataset_services import dataset_update
from corpus.models import Dataset, Problem
from corpus.services import dataset_get_or_create, dataset_import
from corpus.text import text_hash
from jobs import tasks
from jobs.models import Job
from jobs.services import task_named
from modelhub.calibration_jobs import judge_bootstrap
from modelhub.kinds.paraqd import paraqd_score_candidates, paraqd_synthesize_start
from modelhub.kinds.seq2seq import scanning_train_start
from modelhub.selectors import modelversion_active
from paraphrases.candidates import GENERATED_PURPOSE
from paraphrases.generation import generation_start
from paraphrases.models import TEST_GENERATOR_PREFIX, Candidate

DEMO_DATASET = "demo"
# Rule generators of the default set whose blind-labelled outputs were valid in ≥ 95 % of cases.
DEMO_POSITIVE_FALLBACK = ("reorder", "pp_permutation", "passive", "entity_substitution", "pp_permutation+reorder")
DEMO_DESCRIPTION = "Self-written algebraic word problems (money, speed, work, mixtures, ages, percentages) for trying paralab out."


@dataclass(frozen=True)
class DemoUser:
    username: str
    password: str
    role: Literal["staff", "annotator"]

    @property
    def is_staff(self) -> bool:
        return self.role == "staff"


DEMO_USERS: tuple[DemoUser, ...] = (
    DemoUser("admin", "paralab-demo-admin", "staff"),
    DemoUser("annotator1", "paralab-demo-annotator1", "annotator"),
    DemoUser("annotator2", "paralab-demo-annotator2", "annotator"),
)


@dataclass
class DemoContext:
    """What the steps share: the users by username and the demo dataset, once made."""

    users: dict = field(default_factory=dict)
    dataset: Dataset | None = None

    @property
    def staff(self):
        return next(self.users[u.username] for u in DEMO_USERS if u.is_staff)

    @property
    def annotators(self) -> list:
        return [self.users[u.username] for u in DEMO_USERS if not u.is_staff]

    def require_dataset(self) -> Dataset:
        if self.dataset is None:
            raise RuntimeError("the demo dataset step must run before this one")
        return self.dataset


@dataclass(frozen=True)
class DemoStep:
    name: str
    run: Callable[[DemoContext], str]


def _ensure_user(spec: DemoUser) -> tuple[AbstractBaseUser, str]:
    """The user ``spec`` describes, created or brought back to it; returns (user, what was done)."""
    User = get_user_model()
    user = User.objects.filter(username=spec.username).first()
    if user is None:
        user = User.objects.create_user(
            username=spec.username,
            email=f"{spec.username}@example.org",
            password=spec.password,
            is_staff=spec.is_staff,
            is_superuser=spec.is_staff,
        )
        return user, "created"
    changed = []
    if user.is_staff != spec.is_staff or user.is_superuser != spec.is_staff:
        user.is_staff = user.is_superuser = spec.is_staff
        changed.append("role")
    if not user.is_active:
        user.is_active = True
        changed.append("active")
    # Only a password that no longer matches is reset: the printed logins must work, and an
    # account already as described keeps its row (password hash included) exactly as it was.
    if not user.check_password(spec.password):
        user.set_password(spec.password)
        changed.append("password")
    if not changed:
        return user, "unchanged"
    user.save()
    return user, "reset " + ", ".join(changed)


def step_users(ctx: DemoContext) -> str:
    outcomes = []
    with transaction.atomic():
        for spec in DEMO_USERS:
            ctx.users[spec.username], outcome = _ensure_user(spec)
            outcomes.append(f"{spec.username} {outcome}")
    return "; ".join(outcomes)


def step_dataset(ctx: DemoContext) -> str:
    with transaction.atomic():
        dataset, created = dataset_get_or_create(name=DEMO_DATASET, created_by=ctx.staff)
        if created:
            dataset_update(dataset=dataset, description=DEMO_DESCRIPTION)
        if not dataset.guidelines:  # the demo's annotators get the labelling rules (staff may edit them)
            guidelines = resources.files("corpus").joinpath("demo", "guidelines.md").read_text(encoding="utf-8")
            dataset_update(dataset=dataset, guidelines=guidelines)
        members = set(dataset.annotators.values_list("pk", flat=True))
        missing = [user for user in ctx.annotators if user.pk not in members]
        # add(), not set(): annotators that staff added to the demo dataset stay members.
        dataset.annotators.add(*missing)
    ctx.dataset = dataset
    names = ", ".join(user.get_username() for user in ctx.annotators)
    state = "created" if created else "found"
    return f"{state} {dataset.name!r} (id {dataset.pk}); annotators {names}" + (
        f" ({len(missing)} added)" if missing and not created else ""
    )


def step_problems(ctx: DemoContext) -> str:
    """Import the demo problems; a second run finds them all as duplicates."""
    dataset = ctx.require_dataset()
    source = resources.files("corpus").joinpath("demo", "problems.jsonl")
    with resources.as_file(source) as path:
        result = dataset_import(dataset=dataset, path=path, fmt="jsonl")
    return f"{result['created']} imported, {result['duplicates']} already there"


REVIEWED_GENERATOR = "demo:reviewed"
REVIEWED_PURPOSE = "review"


def _reviewed_rows() -> list[dict]:
    """platform/corpus/demo/reviewed.jsonl: per line a demo problem (``source_id``), a hand-written
    paraphrase and each demo annotator's label (``valid`` and the 0–5 ratings)."""
    source = resources.files("corpus").joinpath("demo", "reviewed.jsonl")
    return [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]


def step_reviewed(ctx: DemoContext) -> str:
    """Queue the hand-written reviewed pairs and have both annotators label them (real
    ``label_submit``: history, agreement gold, disagreements). A label already there is kept."""
    dataset = ctx.require_dataset()
    rows = _reviewed_rows()
    problems = dict(
        Problem.objects.filter(dataset=dataset, source_id__in={r["source_id"] for r in rows})
        .values_list("source_id", "id")
    )
    annotators = {user.get_username(): user for user in ctx.annotators}
    created = labelled = 0
    for row in rows:
        with transaction.atomic():
            candidate, was_created = Candidate.objects.get_or_create(
                problem_id=problems[row["source_id"]],
                generator=REVIEWED_GENERATOR,
                text_hash=text_hash(row["paraphrase"]),
                defaults={"text": row["paraphrase"], "metadata": {"demo": True}},
            )
            item, _ = AnnotationItem.objects.get_or_create(
                candidate=candidate,
                defaults={"dataset": dataset, "purpose": REVIEWED_PURPOSE, "required_labels": dataset.labels_per_item},
            )
            created += was_created
            done = set(Label.objects.filter(item=item).values_list("annotator__username", flat=True))
            for username, values in row["labels"].items():
                user = annotators.get(username)
                if user is None or username in done:
                    continue
                # The demo hands the pair to the annotator (a running lease, as `next` would) and
                # labels it the way the labelling screen does.
                Assignment.objects.update_or_create(
                    item=item, annotator=user,
                    defaults={"status": Assignment.Status.LEASED,
                              "leased_until": timezone.now() + timedelta(seconds=dataset.lease_seconds)},
                )
                label_submit(user=user, item=item, **values)
                labelled += 1
    total = Label.objects.filter(item__candidate__generator=REVIEWED_GENERATOR, item__dataset=dataset).count()
    return f"{created} reviewed pairs created, {labelled} labels given ({total} in all, {len(rows)} pairs)"


def step_test_pairs(ctx: DemoContext) -> str:
    """ParaQD's synthesized test pairs for every demo problem, queued for the annotators (run as a
    synthesis job, so it shows on the jobs page), with their highlight spans computed now."""
    dataset = ctx.require_dataset()
    # Once per dataset: a problem that no positive operator rewrites gets no pair (balanced), so
    # "some problem has none" would synthesize again on every run.
    missing = not Problem.objects.filter(dataset=dataset, candidates__generator__startswith=TEST_GENERATOR_PREFIX).exists()
    note = "test pairs were synthesized on an earlier run"
    if missing:
        # The paper's fa rewrites few of the demo problems and garbles some: the validated rule
        # generators give the positive half (fa where none applies), so the annotators see valid
        # and invalid pairs about equally (docs/results/demo-test-pairs.md).
        job = paraqd_synthesize_start(dataset=dataset, user=ctx.staff, enqueue=False,
                                      positive_fallback=DEMO_POSITIVE_FALLBACK, prefer_generators=True)
        task_named(tasks.PARAQD_SYNTHESIZE).apply(args=[job.pk])
        job.refresh_from_db()
        if job.status != Job.Status.SUCCEEDED:
            raise RuntimeError(f"synthesizing the demo test pairs failed (job {job.pk}): {job.error}")
        note = f"job {job.pk}: {job.result['candidates_created']} test pairs created"
    spans = item_spans_prepare(dataset=dataset)
    items = AnnotationItem.objects.filter(dataset=dataset, candidate__generator__startswith=TEST_GENERATOR_PREFIX)
    # Scored by the active judge, so the uncertainty queue orders them among the other pairs.
    paraqd_score_candidates(candidate_ids=list(items.values_list("candidate_id", flat=True)))
    unlabelled = items.filter(labels__isnull=True).count()
    return f"{note}; {items.count()} test pairs queued, {unlabelled} not labelled yet; spans for {spans} items"


def step_generated(ctx: DemoContext) -> str:
    """The rule-based generators over every demo problem (a ``generate`` job, so it shows on the
    jobs page): candidates scored with S, D, N and PQI on /datasets/<id>/candidates/, two per
    problem selected with PAMMR and queued for the annotators. Skipped once the dataset has
    generated candidates (the default generators refuse a problem they cannot rewrite well, so some
    problems keep none: running the demo again must not generate again)."""
    dataset = ctx.require_dataset()
    missing = not Candidate.objects.filter(problem__dataset=dataset, metadata__generation=True).exists()
    note = "the problems have generated candidates"
    if missing:
        job = generation_start(dataset=dataset, user=ctx.staff, enqueue=False)
        task_named(tasks.GENERATE).apply(args=[job.pk])
        job.refresh_from_db()
        if job.status != Job.Status.SUCCEEDED:
            raise RuntimeError(f"generating the demo variants failed (job {job.pk}): {job.error}")
        note = (f"job {job.pk}: {job.result['candidates']} candidates from {len(job.result['generators'])} "
                f"generators, {job.result['selected']} selected")
    spans = item_spans_prepare(dataset=dataset)
    queued = AnnotationItem.objects.filter(dataset=dataset, purpose=GENERATED_PURPOSE).count()
    return f"{note}; {queued} generated variants queued for annotation; spans for {spans} items"


def step_neural(ctx: DemoContext) -> str:
    """Tiny STEAD and PAP (SCANNING) trained on the demo problems, a few minutes on a 2-core CPU
    (``PARALAB_DEMO_NEURAL_SECONDS`` per model), then both generate over the demo problems so
    their candidates appear beside the rule-based ones on the candidates page, the paraphrase page
    and in the annotation queue (the first ``PARALAB_DEMO_NEURAL_PROBLEMS`` problems: decoding takes
    seconds per problem on a CPU). Each part is skipped once done (an active version; stored
    candidates); ``PARALAB_DEMO_NEURAL=0`` skips the step. A tiny model may produce nothing that
    keeps the numbers: the summary says so instead of failing the demo."""
    if not settings.PARALAB_DEMO_NEURAL:
        return "skipped (PARALAB_DEMO_NEURAL=0)"
    dataset = ctx.require_dataset()
    notes = []
    for kind in ("stead", "pap"):
        active = modelversion_active(kind=kind)
        if active is not None:
            notes.append(f"{kind} v{active.pk} active")
            continue
        # PAP's corpus comes from STEAD decoding a few problems (seconds each on a CPU)
        job = scanning_train_start(kind=kind, dataset_names=[dataset.name], preset="tiny", activate=True,
                                   max_seconds=settings.PARALAB_DEMO_NEURAL_SECONDS, user=ctx.staff, enqueue=False,
                                   max_problems=None if kind == "stead" else settings.PARALAB_DEMO_NEURAL_PROBLEMS)
        task_named(tasks.SCANNING_TRAIN).apply(args=[job.pk])
        job.refresh_from_db()
        if job.status != Job.Status.SUCCEEDED:
            notes.append(f"{kind} not trained: {job.error}")
            break
        notes.append(f"{kind} v{job.result['version']} trained (job {job.pk})")
    ready = [kind for kind in ("stead", "pap") if modelversion_active(kind=kind) is not None]
    if ready and not Candidate.objects.filter(problem__dataset=dataset, generator__in=ready).exists():
        job = generation_start(dataset=dataset, generators=ready, user=ctx.staff, enqueue=False,
                               max_problems=settings.PARALAB_DEMO_NEURAL_PROBLEMS)
        task_named(tasks.GENERATE).apply(args=[job.pk])
        job.refresh_from_db()
        if job.status != Job.Status.SUCCEEDED:
            raise RuntimeError(f"generating with {', '.join(ready)} failed (job {job.pk}): {job.error}")
    counts = {kind: Candidate.objects.filter(problem__dataset=dataset, generator=kind).count() for kind in ready}
    return "; ".join(notes) + "; candidates " + (", ".join(f"{k} {n}" for k, n in counts.items()) or "none")


# The demo, in order.
def step_judge(ctx: DemoContext) -> str:
    """An active, calibrated judge from the first minute: the shipped judge that ``migrate``
    registered (``modelhub.kinds.judge.shipped``); with ``PARALAB_SHIPPED_JUDGE=0``, the packaged
    encoder registered as the first ParaQD version and calibrated on the reviewed pairs' agreement
    gold labels. The uncertainty queue, "Gold vs the active judge" and the variants export work at once."""
    result = judge_bootstrap(user=ctx.staff)
    if result["calibrated"] and "threshold" in result:
        return (f"{result['kind']} v{result['version']} active, calibrated on {result['n']} gold pairs: "
                f"threshold {result['threshold']:.3f}, ROC AUC {result['auc']:.3f}")
    if result["calibrated"]:
        return f"{result['kind']} v{result['version']} active and already calibrated"
    return f"{result['kind']} v{result['version']} active, not calibrated: {result.get('reason')}"


DEMO_STEPS: list[DemoStep] = [
    DemoStep("users", step_users),
    DemoStep("dataset", step_dataset),
    DemoStep("problems", step_problems),
    DemoStep("reviewed", step_reviewed),
    DemoStep("judge", step_judge),
    DemoStep("test pairs", step_test_pairs),
    DemoStep("generated variants", step_generated),
    DemoStep("neural generators", step_neural),
]


def demo_annotation_summary(ctx: DemoContext) -> dict[str, int]:
    """Counts for the banner: test pairs still unlabelled, reviewed pairs, their agreement gold
    labels and the split ones waiting for adjudication."""
    dataset = ctx.require_dataset()
    items = AnnotationItem.objects.filter(dataset=dataset)
    reviewed = items.filter(candidate__generator=REVIEWED_GENERATOR)
    gold = GoldLabel.objects.filter(candidate__annotation_item__in=reviewed, source=GoldLabel.Source.AGREEMENT).count()
    return {
        "test_pairs_unlabelled": items.filter(candidate__generator__startswith=TEST_GENERATOR_PREFIX,
                                              labels__isnull=True).count(),
        "generated": Candidate.objects.filter(problem__dataset=dataset, metadata__generation=True).count(),
        "generated_unlabelled": items.filter(purpose=GENERATED_PURPOSE, labels__isnull=True).count(),
        "reviewed": reviewed.count(),
        "agreement_gold": gold,
        "split": reviewed.filter(labels__valid=True).filter(labels__valid=False).distinct().count(),
    }


def demo_prepare(*, log: Callable[[str], None] = lambda line: None) -> DemoContext:
    """Run every step of :data:`DEMO_STEPS`, logging ``"<step>: <summary>"`` for each."""
    ctx = DemoContext()
    for step in DEMO_STEPS:
        log(f"{step.name}: {step.run(ctx)}")
    return ctx
