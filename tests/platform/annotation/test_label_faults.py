"""Labels are never lost, duplicated or left inconsistent under PostgreSQL: a label the client sends
again after the network dropped the answer (Idempotency-Key), concurrent duplicates, the history
without gaps, and an undo racing a label on the same item."""
from __future__ import annotations

import threading
import unittest

from django.db import connection, connections
from django.test import TransactionTestCase
from django.urls import reverse
from rest_framework.test import APIClient

from annotation import services
from annotation.models import Assignment, Label, LabelHistory

from .helpers import annotation_dataset, annotators

pg_only = unittest.skipIf(connection.vendor != "postgresql", "row locks and concurrent writers: PostgreSQL (make test)")


def _label_url(item_id: int) -> str:
    return reverse("api-annotation-label", kwargs={"item_id": item_id})


def _client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _in_threads(*calls):
    """Run the calls at the same instant, each in a thread with its own database connection."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)
    errors: list = []

    def run(i, call):
        try:
            barrier.wait(timeout=30)
            results[i] = call()
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    if errors:
        raise errors[0]
    return results


def _history(user, item_id):
    return list(LabelHistory.objects.filter(annotator=user, item_id=item_id).order_by("id").values_list("action", "data"))


def _assert_consistent(test, user, item_id):
    """The history ends in the state the tables hold: undone ⇔ no label and the item leased again;
    otherwise the label's values are the last history row's, and the assignment is done."""
    history = _history(user, item_id)
    label = Label.objects.filter(annotator=user, item_id=item_id).first()
    assignment = Assignment.objects.get(annotator=user, item_id=item_id)
    if not history:
        test.assertIsNone(label)
        return
    action, data = history[-1]
    if action == LabelHistory.Action.UNDONE:
        test.assertIsNone(label, history)
        test.assertEqual(assignment.status, Assignment.Status.LEASED)
    else:
        test.assertIsNotNone(label, history)
        test.assertEqual(services.label_data(label), data, history)
        test.assertEqual(assignment.status, Assignment.Status.DONE)
    # No gaps: a created row starts every run of changes, and nothing follows an undo but a new label.
    for (prev, prev_data), (nxt, nxt_data) in zip(history, history[1:]):
        if nxt == LabelHistory.Action.UNDONE:  # an undo removes the values that were really stored
            test.assertEqual(nxt_data, prev_data, history)
        if prev == LabelHistory.Action.UNDONE:
            test.assertEqual(nxt, LabelHistory.Action.CREATED, history)
        else:
            test.assertIn(nxt, (LabelHistory.Action.UPDATED, LabelHistory.Action.UNDONE), history)
    test.assertEqual(history[0][0], LabelHistory.Action.CREATED)


@pg_only
class LabelRetryTests(TransactionTestCase):
    def setUp(self):
        (self.ann,) = annotators("ann")
        self.dataset, self.items = annotation_dataset(n_items=3, annotators=[self.ann], k=1)
        self.client = _client(self.ann)

    def _next(self) -> int:
        return self.client.get(reverse("api-annotation-next"), {"dataset": self.dataset.pk}).json()["item"]

    def test_a_label_sent_again_after_the_answer_was_lost_is_stored_once(self):
        item = self._next()
        key = "6f1c9a52-label-1"
        first = self.client.post(_label_url(item), {"valid": True}, format="json", HTTP_IDEMPOTENCY_KEY=key)
        self.assertEqual(first.status_code, 201)
        # The answer never reached the browser: it sends the same request again, twice.
        for _ in range(2):
            again = self.client.post(_label_url(item), {"valid": True}, format="json", HTTP_IDEMPOTENCY_KEY=key)
            self.assertEqual(again.status_code, 200)
            self.assertTrue(again.json()["label"]["valid"])
        self.assertEqual(Label.objects.filter(item_id=item).count(), 1)
        self.assertEqual([a for a, _ in _history(self.ann, item)], ["created"])

    def test_a_late_retry_does_not_undo_a_later_change(self):
        item = self._next()
        self.client.post(_label_url(item), {"valid": True}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
        self.client.post(_label_url(item), {"valid": False, "comment": "a number changed"}, format="json",
                         HTTP_IDEMPOTENCY_KEY="k-2")
        # The first request's retry arrives last (a slow network path): it must not win.
        late = self.client.post(_label_url(item), {"valid": True}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
        self.assertEqual(late.status_code, 200)
        self.assertFalse(late.json()["label"]["valid"])
        label = Label.objects.get(item_id=item)
        self.assertEqual((label.valid, label.comment), (False, "a number changed"))
        self.assertEqual([a for a, _ in _history(self.ann, item)], ["created", "updated"])
        # Without a key the same late request is an ordinary change (old clients, scripts).
        self.client.post(_label_url(item), {"valid": True}, format="json")
        self.assertTrue(Label.objects.get(item_id=item).valid)

    def test_duplicates_arriving_together_are_stored_once(self):
        item = self._next()
        clients = [_client(self.ann) for _ in range(4)]
        responses = _in_threads(*[
            (lambda c=c: c.post(_label_url(item), {"valid": False, "fluency": 4}, format="json",
                                HTTP_IDEMPOTENCY_KEY="same-key"))
            for c in clients
        ])
        self.assertEqual(sorted(r.status_code for r in responses), [200, 200, 200, 201])
        self.assertEqual(Label.objects.filter(item_id=item).count(), 1)
        self.assertEqual(LabelHistory.objects.filter(item_id=item).count(), 1)

    def test_a_retried_undo_undoes_once(self):
        first, second = self._next(), None
        self.client.post(_label_url(first), {"valid": True}, format="json")
        second = self._next()
        self.client.post(_label_url(second), {"valid": False}, format="json")
        undo = reverse("api-annotation-undo")
        for _ in range(3):  # the same undo, sent again twice
            response = self.client.post(undo, {"dataset": self.dataset.pk}, format="json", HTTP_IDEMPOTENCY_KEY="u-1")
            self.assertEqual(response.status_code, 200)
            self.assertEqual(response.json()["item"], second)
        self.assertTrue(Label.objects.filter(item_id=first).exists())  # not undone by the retries
        self.assertFalse(Label.objects.filter(item_id=second).exists())

    def test_the_history_has_no_gaps(self):
        item = self._next()
        undo = reverse("api-annotation-undo")
        steps = [("label", {"valid": True}), ("label", {"valid": True}), ("label", {"valid": False}),
                 ("undo", None), ("undo", None), ("label", {"valid": True, "comment": "fine"})]
        for n, (what, body) in enumerate(steps):
            if what == "label":
                self.client.post(_label_url(item), body, format="json", HTTP_IDEMPOTENCY_KEY=f"s-{n}")
            else:
                self.client.post(undo, {"dataset": self.dataset.pk}, format="json", HTTP_IDEMPOTENCY_KEY=f"s-{n}")
            _assert_consistent(self, self.ann, item)
        self.assertEqual([a for a, _ in _history(self.ann, item)], ["created", "updated", "undone", "created"])


@pg_only
class UndoRaceTests(TransactionTestCase):
    def test_an_undo_racing_a_label_resolves_to_one_state(self):
        (ann,) = annotators("ann")
        dataset, items = annotation_dataset(n_items=1, annotators=[ann], k=1)
        (item,) = items
        services.annotation_next(user=ann, dataset=dataset)
        services.label_submit(user=ann, item=item, valid=True)
        outcomes = set()
        for round_ in range(12):
            valid = bool(round_ % 2)
            # A second tab changes the label while the first presses undo.
            _in_threads(
                lambda v=valid: services.label_submit(user=ann, item=item, valid=v, comment=f"round {round_}"),
                lambda: services.label_undo(user=ann, dataset=dataset),
            )
            _assert_consistent(self, ann, item.pk)
            outcomes.add(Label.objects.filter(item=item).exists())
            if not Label.objects.filter(item=item).exists():
                services.label_submit(user=ann, item=item, valid=True)
        self.assertEqual(Label.objects.filter(item=item).count(), 1)
        self.assertEqual(len(_history(ann, item.pk)), LabelHistory.objects.filter(item=item).count())

    def test_two_undos_at_once_undo_the_two_latest_labels_once_each(self):
        (ann,) = annotators("ann")
        dataset, items = annotation_dataset(n_items=3, annotators=[ann], k=1)
        for _ in range(3):
            services.label_submit(user=ann, item=services.annotation_next(user=ann, dataset=dataset), valid=True)
        undone = _in_threads(lambda: services.label_undo(user=ann, dataset=dataset),
                             lambda: services.label_undo(user=ann, dataset=dataset))
        self.assertEqual(len({item.pk for item in undone}), 2)
        self.assertEqual(Label.objects.count(), 1)
        self.assertEqual(LabelHistory.objects.filter(action=LabelHistory.Action.UNDONE).count(), 2)
        for item in items:
            _assert_consistent(self, ann, item.pk)
