"""The demo set-up behind ``manage.py demo``: users, a dataset and its problems, as a list of steps.

Every step is idempotent (running the demo again finds what it made and changes nothing) and
returns a one-line summary. Later steps, such as generating paraphrase candidates and assigning
them to the annotators, are appended to :data:`DEMO_STEPS`; they find the users and the dataset
on the :class:`DemoContext` that earlier steps filled in.

The passwords are fixed and printed by the command: demo-only, never for a
deployment that anyone else can reach.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Literal

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from corpus.dataset_services import dataset_update
from corpus.models import Dataset
from corpus.services import dataset_get_or_create, dataset_import

DEMO_DATASET = "demo"
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


# The demo, in order. Append later steps (generate candidates, assign them to the annotators) here.
DEMO_STEPS: list[DemoStep] = [
    DemoStep("users", step_users),
    DemoStep("dataset", step_dataset),
    DemoStep("problems", step_problems),
]


def demo_prepare(*, log: Callable[[str], None] = lambda line: None) -> DemoContext:
    """Run every step of :data:`DEMO_STEPS`, logging ``"<step>: <summary>"`` for each."""
    ctx = DemoContext()
    for step in DEMO_STEPS:
        log(f"{step.name}: {step.run(ctx)}")
    return ctx
