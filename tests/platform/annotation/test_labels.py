"""Labelling over the REST API: next, label (201/200/403/400), history, no double count, undo, skip."""
from __future__ import annotations

from django.test import TestCase
from django.urls import reverse

from annotation.models import Assignment, Label, LabelHistory

from .helpers import annotation_dataset, annotators, client_for, expire_leases


def label_url(item_id: int) -> str:
    return reverse("api-annotation-label", kwargs={"item_id": item_id})


class LabelApiTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.ann, cls.bob, cls.eve = annotators("ann", "bob", "eve")
        cls.dataset, cls.items = annotation_dataset(n_items=3, annotators=[cls.ann, cls.bob], k=2)

    def setUp(self):
        self.client = client_for(self.ann)

    def next_item(self, client=None) -> dict:
        response = (client or self.client).get(reverse("api-annotation-next"), {"dataset": self.dataset.pk})
        self.assertEqual(response.status_code, 200, getattr(response, "data", None))
        return response.json()

    def test_next_returns_the_pair_with_spans_and_progress(self):
        body = self.next_item()
        item = self.items[0]
        self.assertEqual(body["item"], item.pk)
        self.assertEqual(body["dataset"], self.dataset.pk)
        self.assertEqual(body["problem"]["text"], item.candidate.problem.text)
        self.assertEqual(body["paraphrase"]["id"], item.candidate.pk)
        self.assertIsNone(body["label"])
        self.assertEqual(body["progress"], {"done": 0, "total": 3})
        numbers = [s for s in body["problem"]["spans"] if s["kind"] == "number"]
        self.assertTrue(numbers)
        text = body["problem"]["text"]
        self.assertIn("3", [text[s["start"]:s["end"]] for s in numbers])
        # Blind: nothing about a model or other annotators.
        self.assertNotIn("score", str(body).lower())
        # Computed once, kept on the item for the next annotator.
        item.refresh_from_db()
        self.assertEqual(item.spans["problem"], body["problem"]["spans"])
        self.assertEqual(item.spans["paraphrase"], body["paraphrase"]["spans"])

    def test_spans_can_be_prepared_for_a_whole_dataset(self):
        from annotation.models import AnnotationItem
        from annotation.services import item_spans_prepare

        self.assertEqual(item_spans_prepare(dataset=self.dataset, batch_size=2), 3)
        self.assertEqual(item_spans_prepare(dataset=self.dataset), 0)
        for item in AnnotationItem.objects.filter(dataset=self.dataset):
            text = item.candidate.text
            self.assertIn("3", [text[s["start"]:s["end"]] for s in item.spans["paraphrase"] if s["kind"] == "number"])

    def test_first_label_is_201_a_change_is_200_and_repeats_do_not_double_count(self):
        item = self.next_item()["item"]
        first = self.client.post(label_url(item), {"valid": True, "fluency": 4}, format="json")
        self.assertEqual(first.status_code, 201, first.data)
        self.assertEqual(first.json()["label"], {"valid": True, "solvability": None, "diversity": None, "fluency": 4,
                                                 "comment": ""})
        self.assertEqual(first.json()["progress"], {"done": 1, "total": 3})
        repeat = self.client.post(label_url(item), {"valid": True, "fluency": 4}, format="json")
        self.assertEqual(repeat.status_code, 200)
        self.assertEqual(repeat.json()["progress"], {"done": 1, "total": 3})
        change = self.client.post(label_url(item), {"valid": False, "comment": "number changed"}, format="json")
        self.assertEqual(change.status_code, 200)
        self.assertEqual(Label.objects.filter(item_id=item).count(), 1)
        label = Label.objects.get(item_id=item)
        self.assertEqual((label.valid, label.fluency, label.comment), (False, None, "number changed"))
        history = list(LabelHistory.objects.filter(item_id=item).values_list("action", "data__valid"))
        self.assertEqual(history, [("created", True), ("updated", False)])
        self.assertEqual(Assignment.objects.get(item_id=item, annotator=self.ann).status, Assignment.Status.DONE)

    def test_labelling_an_item_not_assigned_to_you_is_403(self):
        item = self.items[2].pk  # nobody was handed it
        response = self.client.post(label_url(item), {"valid": True}, format="json")
        self.assertEqual(response.status_code, 403)
        outsider = client_for(self.eve)  # not even a member
        self.assertEqual(outsider.post(label_url(item), {"valid": True}, format="json").status_code, 403)
        self.assertEqual(outsider.post(label_url(999999), {"valid": True}, format="json").status_code, 404)
        self.assertFalse(Label.objects.exists())

    def test_another_annotators_item_is_403_to_label_and_404_to_read(self):
        item = self.next_item()["item"]
        bob = client_for(self.bob)
        self.assertEqual(bob.post(label_url(item), {"valid": False}, format="json").status_code, 403)
        self.assertEqual(bob.get(reverse("api-annotation-item", kwargs={"item_id": item})).status_code, 404)
        self.client.post(label_url(item), {"valid": True}, format="json")
        # bob is handed the same item later (k = 2) but never sees ann's label.
        body = self.next_item(bob)
        self.assertEqual(body["item"], item)  # fill order complete: the started item goes on
        self.assertIsNone(body["label"])
        self.assertNotIn("valid", str(body.get("labels", "")))

    def test_bad_values_are_400(self):
        item = self.next_item()["item"]
        for body in ({}, {"valid": "maybe"}, {"valid": True, "fluency": 6}, {"valid": True, "diversity": -1}):
            with self.subTest(body=body):
                self.assertEqual(self.client.post(label_url(item), body, format="json").status_code, 400)
        self.assertFalse(Label.objects.exists())

    def test_an_author_reads_their_item_with_their_label(self):
        item = self.next_item()["item"]
        self.client.post(label_url(item), {"valid": True, "solvability": 5}, format="json")
        response = self.client.get(reverse("api-annotation-item", kwargs={"item_id": item}))
        self.assertEqual(response.status_code, 200)
        self.assertEqual(response.json()["label"]["solvability"], 5)

    def test_own_labels_newest_first_with_history_and_nobody_elses(self):
        first = self.next_item()["item"]
        self.client.post(label_url(first), {"valid": True}, format="json")
        second = self.next_item()["item"]
        self.client.post(label_url(second), {"valid": False}, format="json")
        bob = client_for(self.bob)
        bob_item = self.next_item(bob)["item"]
        bob.post(label_url(bob_item), {"valid": True}, format="json")
        self.client.post(label_url(first), {"valid": False}, format="json")
        response = self.client.get(reverse("api-annotation-labels"), {"dataset": self.dataset.pk})
        self.assertEqual(response.status_code, 200)
        results = response.json()["results"]
        self.assertEqual([r["item"] for r in results], [first, second])
        self.assertEqual([h["action"] for h in results[0]["history"]], ["created", "updated"])
        self.assertEqual(response.json()["count"], 2)

    def test_undo_removes_the_latest_label_and_the_item_comes_next_again(self):
        first = self.next_item()["item"]
        self.client.post(label_url(first), {"valid": True}, format="json")
        second = self.next_item()["item"]
        self.client.post(label_url(second), {"valid": False}, format="json")
        undo = self.client.post(reverse("api-annotation-undo"), {"dataset": self.dataset.pk}, format="json")
        self.assertEqual(undo.status_code, 200)
        self.assertEqual(undo.json()["item"], second)
        self.assertIsNone(undo.json()["label"])
        self.assertEqual(undo.json()["progress"], {"done": 1, "total": 3})
        self.assertFalse(Label.objects.filter(item_id=second).exists())
        self.assertEqual(self.next_item()["item"], second)
        self.assertEqual(
            list(LabelHistory.objects.filter(item_id=second).values_list("action", flat=True)), ["created", "undone"]
        )
        # Label it again: a new label (201), counted once.
        again = self.client.post(label_url(second), {"valid": True}, format="json")
        self.assertEqual(again.status_code, 201)
        self.assertEqual(Label.objects.filter(annotator=self.ann).count(), 2)

    def test_undo_with_nothing_to_undo_is_204(self):
        response = self.client.post(reverse("api-annotation-undo"), {"dataset": self.dataset.pk}, format="json")
        self.assertEqual(response.status_code, 204)

    def test_skip(self):
        item = self.next_item()["item"]
        response = self.client.post(reverse("api-annotation-skip", kwargs={"item_id": item}))
        self.assertEqual(response.status_code, 200)
        # Still 3 to do: the skipped item comes back to her once the other two are labelled.
        self.assertEqual(response.json()["progress"], {"done": 0, "total": 3})
        self.assertNotEqual(self.next_item()["item"], item)
        self.assertEqual(Assignment.objects.get(item_id=item, annotator=self.ann).status, Assignment.Status.SKIPPED)
        # Skipping an item never handed to you, or one you labelled, is refused.
        other = self.items[2].pk
        self.assertEqual(client_for(self.bob).post(reverse("api-annotation-skip", kwargs={"item_id": other})).status_code,
                         403)
        mine = self.next_item()["item"]
        self.client.post(label_url(mine), {"valid": True}, format="json")
        self.assertEqual(self.client.post(reverse("api-annotation-skip", kwargs={"item_id": mine})).status_code, 400)

    def test_next_is_204_when_the_share_is_done(self):
        for _ in range(3):
            item = self.next_item()["item"]
            self.assertEqual(self.client.post(label_url(item), {"valid": True}, format="json").status_code, 201)
        response = self.client.get(reverse("api-annotation-next"), {"dataset": self.dataset.pk})
        self.assertEqual(response.status_code, 204)

    def test_an_expired_lease_then_taken_by_another_is_403(self):
        users = annotators("late", "quick")
        dataset, (item,) = annotation_dataset("single", n_items=1, annotators=users, k=1)
        late, quick = client_for(users[0]), client_for(users[1])
        self.assertEqual(late.get(reverse("api-annotation-next"), {"dataset": dataset.pk}).json()["item"], item.pk)
        expire_leases(users[0])
        self.assertEqual(quick.get(reverse("api-annotation-next"), {"dataset": dataset.pk}).json()["item"], item.pk)
        self.assertEqual(late.post(label_url(item.pk), {"valid": True}, format="json").status_code, 403)
        self.assertEqual(quick.post(label_url(item.pk), {"valid": True}, format="json").status_code, 201)

    def test_next_needs_a_dataset_the_caller_labels(self):
        self.assertEqual(self.client.get(reverse("api-annotation-next")).status_code, 400)
        self.assertEqual(client_for(self.eve).get(reverse("api-annotation-next"), {"dataset": self.dataset.pk}).status_code,
                         404)


class QueryBudgetTests(TestCase):
    """`next` and `label` stay a fixed handful of queries, however big the dataset (no N+1)."""

    def test_query_counts_do_not_grow_with_the_dataset(self):
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        counts = {}
        for size in (3, 30):
            users = annotators(f"a{size}", f"b{size}")
            dataset, items = annotation_dataset(f"budget{size}", n_items=size, annotators=users, k=2)
            client = client_for(users[0])
            with CaptureQueriesContext(connection) as fetch:
                item = client.get(reverse("api-annotation-next"), {"dataset": dataset.pk}).json()["item"]
            with CaptureQueriesContext(connection) as post:
                self.assertEqual(client.post(label_url(item), {"valid": True}, format="json").status_code, 201)
            counts[size] = (len(fetch.captured_queries), len(post.captured_queries))
        self.assertEqual(counts[3], counts[30])
        next_queries, label_queries = counts[30]
        # Small indexed reads each, none per item of the dataset. `next`: session auth 2, dataset 1,
        # running lease 1, done + share + held in one 1, active scorer 1, queue 3 (running leases,
        # started items, fresh items: each by index, benchmarks/scale.py), BEGIN, lock 1, recount +
        # fetch 1, lease 1, COMMIT; its progress reuses the queue it read (no count).
        # `label`: auth 2, item + membership 1, BEGIN, lock 1, own label 1, assignment 1, insert
        # label 1, its item's label count 1, history 1, assignment done 1, gold 2, COMMIT, progress 5
        # (standing; open count: running leases, started items, fresh items not for them, fresh items).
        self.assertLessEqual(next_queries, 15)
        self.assertLessEqual(label_queries, 19)
