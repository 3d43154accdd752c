"""Skipped items return to the pool: the others are served them, and the one who skipped gets them
back after everything they have not seen, oldest skip first, while a slot is free."""
from __future__ import annotations

from django.test import TestCase
from django.urls import reverse

from annotation import selectors, services
from annotation.models import Assignment, GoldLabel, Label

from .helpers import annotation_dataset, annotators, client_for, expire_leases


def label_all(user, dataset, *, valid=True, limit=50) -> list[int]:
    seen = []
    for _ in range(limit):
        item = services.annotation_next(user=user, dataset=dataset)
        if item is None:
            return seen
        services.label_submit(user=user, item=item, valid=valid)
        seen.append(item.pk)
    raise AssertionError("the queue never ran dry")


class SkipComesBackTests(TestCase):
    def test_a_skipped_item_reaches_the_other_annotator_and_comes_back_to_the_skipper(self):
        # k = 2 with two annotators: both must label everything, the skipped item included.
        ann, bob = annotators("ann", "bob")
        dataset, items = annotation_dataset(n_items=3, annotators=[ann, bob], k=2)
        skipped = services.annotation_next(user=ann, dataset=dataset)
        services.item_skip(user=ann, item=skipped)
        # Still three to do for her: the skipped one comes back later.
        self.assertEqual(selectors.annotation_progress(user=ann, dataset=dataset), {"done": 0, "total": 3})

        # The other annotator is served it like any other item.
        self.assertIn(skipped.pk, label_all(bob, dataset))
        self.assertEqual(Label.objects.filter(item=skipped).count(), 1)

        # The skipper gets the items she has not seen first, then the skipped one, and then nothing.
        order = label_all(ann, dataset)
        self.assertEqual(len(order), 3)
        self.assertEqual(order[-1], skipped.pk)
        self.assertEqual(sorted(order[:-1]), sorted(i.pk for i in items if i.pk != skipped.pk))
        self.assertEqual(Label.objects.filter(item=skipped).count(), 2)
        self.assertTrue(GoldLabel.objects.filter(candidate=skipped.candidate).exists())
        self.assertEqual(selectors.annotation_progress(user=ann, dataset=dataset), {"done": 3, "total": 3})
        self.assertEqual(Assignment.objects.get(item=skipped, annotator=ann).status, Assignment.Status.DONE)

    def test_over_the_api_the_skipper_gets_the_item_back_instead_of_nothing_left(self):
        ann, bob = annotators("ann", "bob")
        dataset, (item,) = annotation_dataset(n_items=1, annotators=[ann, bob], k=2)
        client = client_for(ann)
        first = client.get(reverse("api-annotation-next"), {"dataset": dataset.pk}).json()
        self.assertEqual(first["item"], item.pk)
        skip = client.post(reverse("api-annotation-skip", kwargs={"item_id": item.pk}))
        self.assertEqual(skip.json()["progress"], {"done": 0, "total": 1})
        label_all(bob, dataset)
        again = client.get(reverse("api-annotation-next"), {"dataset": dataset.pk})
        self.assertEqual(again.status_code, 200)
        self.assertEqual(again.json()["item"], item.pk)
        self.assertEqual(again.json()["progress"], {"done": 0, "total": 1})
        label = client.post(reverse("api-annotation-label", kwargs={"item_id": item.pk}), {"valid": True}, format="json")
        self.assertEqual(label.status_code, 201)
        self.assertEqual(client.get(reverse("api-annotation-next"), {"dataset": dataset.pk}).status_code, 204)

    def test_skipped_items_come_back_oldest_skip_first_and_a_second_skip_goes_last(self):
        (ann,) = annotators("ann")
        dataset, (a, b, c) = annotation_dataset(n_items=3, annotators=[ann], k=1)
        for _ in range(2):  # skips a, then b
            services.item_skip(user=ann, item=services.annotation_next(user=ann, dataset=dataset))
        self.assertEqual(services.annotation_next(user=ann, dataset=dataset).pk, c.pk)  # unseen first
        services.label_submit(user=ann, item=c, valid=True)
        self.assertEqual(services.annotation_next(user=ann, dataset=dataset).pk, a.pk)  # oldest skip
        services.item_skip(user=ann, item=a)  # skipped again: behind b now
        self.assertEqual(services.annotation_next(user=ann, dataset=dataset).pk, b.pk)
        services.label_submit(user=ann, item=b, valid=False)
        self.assertEqual(services.annotation_next(user=ann, dataset=dataset).pk, a.pk)
        self.assertEqual(selectors.annotation_progress(user=ann, dataset=dataset), {"done": 2, "total": 3})

    def test_an_item_filled_by_the_others_does_not_come_back(self):
        ann, bob, cid = annotators("ann", "bob", "cid")
        dataset, items = annotation_dataset(n_items=3, annotators=[ann, bob, cid], k=2)
        skipped = services.annotation_next(user=ann, dataset=dataset)
        services.item_skip(user=ann, item=skipped)
        for other in (bob, cid):  # both label the skipped item: it has its k labels
            Assignment.objects.create(item=skipped, annotator=other, status=Assignment.Status.DONE)
            Label.objects.create(item=skipped, annotator=other, valid=True)
        self.assertNotIn(skipped.pk, label_all(ann, dataset))
        self.assertEqual(Label.objects.filter(item=skipped).count(), 2)

    def test_a_skipped_item_leased_to_another_annotator_waits_until_their_lease_is_done(self):
        # k = 1: while bob holds the only slot, the skipped item is not handed back to ann.
        ann, bob = annotators("ann", "bob")
        dataset, (item,) = annotation_dataset(n_items=1, annotators=[ann, bob], k=1)
        services.item_skip(user=ann, item=services.annotation_next(user=ann, dataset=dataset))
        self.assertEqual(services.annotation_next(user=bob, dataset=dataset).pk, item.pk)
        self.assertIsNone(services.annotation_next(user=ann, dataset=dataset))
        self.assertEqual(selectors.annotation_progress(user=ann, dataset=dataset), {"done": 0, "total": 0})
        expire_leases(bob)  # bob walked away: the slot is free again, and the item goes back to ann
        self.assertEqual(services.annotation_next(user=ann, dataset=dataset).pk, item.pk)

    def test_dataset_progress_counts_the_skips_that_come_back(self):
        ann, bob = annotators("ann", "bob")
        dataset, items = annotation_dataset(n_items=2, annotators=[ann, bob], k=2)
        services.item_skip(user=ann, item=services.annotation_next(user=ann, dataset=dataset))
        rows = {row["annotator"]: (row["done"], row["total"]) for row in selectors.dataset_progress(dataset=dataset)}
        self.assertEqual(rows["ann"], (0, 2))
        label_all(bob, dataset)
        label_all(ann, dataset)
        rows = {row["annotator"]: (row["done"], row["total"]) for row in selectors.dataset_progress(dataset=dataset)}
        self.assertEqual(rows, {"ann": (2, 2), "bob": (2, 2)})
