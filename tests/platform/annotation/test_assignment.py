"""Who gets which item: k distinct annotators, balance, shares, leases, queue orders, races."""
from __future__ import annotations

import threading
import unittest
from collections import Counter

from django.db import connection, connections
from django.test import TestCase, TransactionTestCase
from django.utils import timezone

from annotation import selectors, services
from annotation.models import AnnotationItem, Assignment, Label
from corpus.models import Dataset

from .helpers import active_paraqd, annotation_dataset, annotators, expire_leases, score


def label_all(user, dataset, *, valid=True, limit=100) -> list[int]:
    """Let ``user`` label everything they are handed; the item ids in order."""
    seen = []
    for _ in range(limit):
        item = services.annotation_next(user=user, dataset=dataset)
        if item is None:
            return seen
        services.label_submit(user=user, item=item, valid=valid)
        seen.append(item.pk)
    raise AssertionError("the queue never ran dry")


class KAndBalanceTests(TestCase):
    def test_each_item_gets_k_distinct_annotators_and_nobody_twice(self):
        users = annotators("ann", "bob", "cid")
        dataset, items = annotation_dataset(n_items=6, annotators=users, k=2)
        handed = {u.username: [] for u in users}
        while True:  # rounds: annotators come back until nobody is handed anything
            got = [label_all(u, dataset) for u in users]
            for user, ids in zip(users, got):
                handed[user.username] += ids
            if not any(got):
                break
        for name, ids in handed.items():
            self.assertEqual(len(ids), len(set(ids)), f"{name} got an item twice")
        per_item = Counter(Label.objects.filter(item__dataset=dataset).values_list("item_id", flat=True))
        self.assertEqual(per_item, {item.pk: 2 for item in items})
        pairs = Label.objects.filter(item__dataset=dataset).values_list("item_id", "annotator_id")
        self.assertEqual(len(set(pairs)), 12)

    def test_the_share_balances_the_work(self):
        # 4 annotators, 4 items, k = 2 → 8 labels to give, 2 each.
        users = annotators("a1", "a2", "a3", "a4")
        dataset, _ = annotation_dataset(n_items=4, annotators=users, k=2)
        for user in users:
            self.assertEqual(selectors.annotation_progress(user=user, dataset=dataset), {"done": 0, "total": 2})
        counts = {u.username: len(label_all(u, dataset)) for u in users}
        self.assertEqual(counts, {"a1": 2, "a2": 2, "a3": 2, "a4": 2})
        self.assertEqual(Label.objects.count(), 8)
        for user in users:
            self.assertEqual(selectors.annotation_progress(user=user, dataset=dataset), {"done": 2, "total": 2})

    def test_two_annotators_with_k_2_both_label_everything(self):
        users = annotators("ann", "bob")
        dataset, items = annotation_dataset(n_items=3, annotators=users, k=2)
        self.assertEqual(sorted(label_all(users[0], dataset)), [i.pk for i in items])
        self.assertEqual(sorted(label_all(users[1], dataset)), [i.pk for i in items])

    def test_breadth_order_gives_items_with_fewer_taken_slots_first(self):
        ann, bob = annotators("ann", "bob")
        dataset, items = annotation_dataset(n_items=3, annotators=[ann, bob], k=2, fill_order=Dataset.FillOrder.BREADTH)
        first = services.annotation_next(user=ann, dataset=dataset)
        second = services.annotation_next(user=bob, dataset=dataset)
        self.assertEqual(first.pk, items[0].pk)
        self.assertEqual(second.pk, items[1].pk)  # not the item ann holds: it has a slot taken

    def test_complete_order_gives_the_item_someone_holds_to_the_next_annotator(self):
        ann, bob, cid = annotators("ann", "bob", "cid")
        dataset, items = annotation_dataset(n_items=3, annotators=[ann, bob, cid], k=2)
        self.assertEqual(dataset.fill_order, Dataset.FillOrder.COMPLETE)  # the default
        first = services.annotation_next(user=ann, dataset=dataset)
        second = services.annotation_next(user=bob, dataset=dataset)
        third = services.annotation_next(user=cid, dataset=dataset)
        self.assertEqual((first.pk, second.pk), (items[0].pk, items[0].pk))
        self.assertEqual(third.pk, items[1].pk)  # item 1 is full: the next one is started

    def test_two_annotators_labelling_the_first_12_items_in_complete_order_mostly_overlap(self):
        for fill, least in ((Dataset.FillOrder.COMPLETE, 10), (Dataset.FillOrder.BREADTH, 0)):
            with self.subTest(fill=fill):
                ann, bob = annotators(f"ann-{fill}", f"bob-{fill}")
                dataset, _ = annotation_dataset(f"fresh-{fill}", n_items=40, annotators=[ann, bob], k=2,
                                                fill_order=fill)
                seen = {ann.pk: [], bob.pk: []}
                # They take turns, as two people working at the same time would.
                for _ in range(12):
                    for user in (ann, bob):
                        item = services.annotation_next(user=user, dataset=dataset)
                        services.label_submit(user=user, item=item, valid=True)
                        seen[user.pk].append(item.pk)
                overlap = len(set(seen[ann.pk]) & set(seen[bob.pk]))
                if fill == Dataset.FillOrder.COMPLETE:
                    self.assertGreaterEqual(overlap, least, seen)
                    # Agreement exists from the first items: most of them already have both labels.
                    self.assertGreaterEqual(sum(1 for i in seen[ann.pk] if Label.objects.filter(item_id=i).count() == 2), 10)
                else:
                    self.assertEqual(overlap, 0, seen)  # breadth: 24 different items got one label each

    def test_complete_order_past_the_share_only_finishes_started_items(self):
        # 3 annotators, 6 items, k = 2: shares of 4. Labelling one after the other, ann and bob
        # fill items 1-4, cid starts 5 and 6 and has no partner left below the share: ann, past
        # hers, finishes them, and nobody is handed a fresh item past the share.
        users = annotators("ann", "bob", "cid")
        dataset, items = annotation_dataset(n_items=6, annotators=users, k=2)
        handed = {u.username: label_all(u, dataset) for u in users}
        self.assertEqual([len(handed[n]) for n in ("ann", "bob", "cid")], [4, 4, 2])
        ann = users[0]
        extra = [label_all(ann, dataset)]
        self.assertEqual(sorted(extra[0]), [items[4].pk, items[5].pk])
        self.assertEqual(selectors.annotation_progress(user=ann, dataset=dataset), {"done": 6, "total": 6})
        self.assertEqual(Counter(Label.objects.values_list("item_id", flat=True)), {i.pk: 2 for i in items})

    def test_asking_again_returns_the_held_item_without_taking_another_slot(self):
        (ann,) = annotators("ann")
        dataset, items = annotation_dataset(n_items=3, annotators=[ann], k=1)
        first = services.annotation_next(user=ann, dataset=dataset)
        again = services.annotation_next(user=ann, dataset=dataset)
        self.assertEqual(first.pk, again.pk)
        self.assertEqual(Assignment.objects.filter(annotator=ann).count(), 1)

    def test_a_member_of_another_dataset_gets_nothing_from_this_one(self):
        ann, bob = annotators("ann", "bob")
        dataset, _ = annotation_dataset(n_items=2, annotators=[ann], k=2)
        self.assertIsNone(selectors.annotator_dataset_get(user=bob, dataset_id=dataset.pk))

    def test_a_dataset_without_items_has_nothing_to_hand_out(self):
        (ann,) = annotators("ann")
        dataset, _ = annotation_dataset(n_items=0, annotators=[ann])
        self.assertIsNone(services.annotation_next(user=ann, dataset=dataset))
        self.assertEqual(selectors.annotation_progress(user=ann, dataset=dataset), {"done": 0, "total": 0})

    def test_changing_k_updates_the_items(self):
        users = annotators("ann", "bob", "cid")
        dataset, items = annotation_dataset(n_items=2, annotators=users, k=2)
        Dataset.objects.filter(pk=dataset.pk).update(labels_per_item=3)
        dataset.refresh_from_db()
        self.assertEqual(services.dataset_labels_per_item_apply(dataset=dataset), 2)
        self.assertEqual(set(AnnotationItem.objects.values_list("required_labels", flat=True)), {3})
        self.assertEqual({u.username: len(label_all(u, dataset)) for u in users}, {"ann": 2, "bob": 2, "cid": 2})


class LeaseTests(TestCase):
    def test_a_running_lease_holds_the_last_slot(self):
        ann, bob, cid = annotators("ann", "bob", "cid")
        dataset, (item,) = annotation_dataset(n_items=1, annotators=[ann, bob, cid], k=2)
        self.assertEqual(services.annotation_next(user=ann, dataset=dataset).pk, item.pk)
        self.assertEqual(services.annotation_next(user=bob, dataset=dataset).pk, item.pk)
        # Both slots are leased: the third annotator cannot take either, labelled or not.
        self.assertIsNone(services.annotation_next(user=cid, dataset=dataset))
        with self.assertRaises(services.NotAssigned):
            services.label_submit(user=cid, item=item, valid=True)
        services.label_submit(user=ann, item=item, valid=True)
        services.label_submit(user=bob, item=item, valid=False)
        self.assertEqual(Label.objects.filter(item=item).count(), 2)

    def test_an_expired_lease_frees_the_slot(self):
        ann, bob = annotators("ann", "bob")
        dataset, (item,) = annotation_dataset(n_items=1, annotators=[ann, bob], k=1)
        services.annotation_next(user=ann, dataset=dataset)
        self.assertIsNone(services.annotation_next(user=bob, dataset=dataset))
        expire_leases(ann)
        self.assertEqual(services.annotation_next(user=bob, dataset=dataset).pk, item.pk)
        # ann's lease ran out and bob holds the slot now: ann's late label is refused.
        with self.assertRaises(services.NotAssigned):
            services.label_submit(user=ann, item=item, valid=True)
        services.label_submit(user=bob, item=item, valid=True)
        self.assertEqual(list(Label.objects.values_list("annotator__username", flat=True)), ["bob"])

    def test_a_late_label_is_accepted_while_the_slot_is_still_free(self):
        (ann,) = annotators("ann")
        dataset, (item,) = annotation_dataset(n_items=1, annotators=[ann], k=1)
        services.annotation_next(user=ann, dataset=dataset)
        expire_leases(ann)
        label, created = services.label_submit(user=ann, item=item, valid=True)
        self.assertTrue(created)

    def test_an_expired_lease_of_ones_own_comes_back(self):
        (ann,) = annotators("ann")
        dataset, (item, _) = annotation_dataset(n_items=2, annotators=[ann], k=1)
        self.assertEqual(services.annotation_next(user=ann, dataset=dataset).pk, item.pk)
        expire_leases(ann)
        self.assertEqual(services.annotation_next(user=ann, dataset=dataset).pk, item.pk)
        self.assertEqual(Assignment.objects.filter(annotator=ann).count(), 1)
        assignment = Assignment.objects.get(annotator=ann)
        self.assertGreater(assignment.leased_until, timezone.now())

    def test_the_lease_lasts_the_dataset_setting(self):
        (ann,) = annotators("ann")
        dataset, _ = annotation_dataset(n_items=1, annotators=[ann], k=1, lease_seconds=90)
        before = timezone.now()
        services.annotation_next(user=ann, dataset=dataset)
        lease = Assignment.objects.get(annotator=ann).leased_until
        self.assertGreaterEqual((lease - before).total_seconds(), 89)
        self.assertLessEqual((lease - before).total_seconds(), 91)

    def test_a_skip_frees_the_slot_and_is_not_offered_again(self):
        ann, bob = annotators("ann", "bob")
        dataset, (item, other) = annotation_dataset(n_items=2, annotators=[ann, bob], k=1)
        self.assertEqual(services.annotation_next(user=ann, dataset=dataset).pk, item.pk)
        services.item_skip(user=ann, item=item)
        self.assertEqual(services.annotation_next(user=ann, dataset=dataset).pk, other.pk)
        self.assertEqual(services.annotation_next(user=bob, dataset=dataset).pk, item.pk)


class QueueOrderTests(TestCase):
    def test_uncertainty_puts_the_score_nearest_the_threshold_first(self):
        (ann,) = annotators("ann")
        dataset, items = annotation_dataset(n_items=4, annotators=[ann], k=1)
        version = active_paraqd()
        score(items[0], version, 0.95)
        score(items[1], version, 0.52)   # nearest 0.5
        score(items[2], version, 0.30)
        # items[3] is unscored: after the scored ones. A stale version's score does not count.
        score(items[3], None, 0.5)
        self.assertEqual(label_all(ann, dataset), [items[1].pk, items[2].pk, items[0].pk, items[3].pk])

    def test_disagreement_puts_split_items_first(self):
        ann, bob, cid = annotators("ann", "bob", "cid")
        dataset, items = annotation_dataset(n_items=3, annotators=[ann, bob, cid], k=3,
                                            queue_order=Dataset.QueueOrder.DISAGREEMENT)
        # ann and bob split on items[2]; they agree on items[0]
        for item, (a, b) in ((items[0], (True, True)), (items[2], (True, False))):
            Assignment.objects.create(item=item, annotator=ann, status=Assignment.Status.DONE)
            Assignment.objects.create(item=item, annotator=bob, status=Assignment.Status.DONE)
            Label.objects.create(item=item, annotator=ann, valid=a)
            Label.objects.create(item=item, annotator=bob, valid=b)
        self.assertEqual(services.annotation_next(user=cid, dataset=dataset).pk, items[2].pk)

    def test_random_is_a_fixed_shuffle_per_annotator(self):
        users = annotators("ann", "bob")
        dataset, items = annotation_dataset(n_items=12, annotators=users, k=2, queue_order=Dataset.QueueOrder.RANDOM)
        qs = selectors.open_items(user=users[0], dataset=dataset)
        order_ann = list(selectors.queue_order(qs=qs, user=users[0], dataset=dataset).values_list("pk", flat=True))
        again = list(selectors.queue_order(qs=qs, user=users[0], dataset=dataset).values_list("pk", flat=True))
        qs_bob = selectors.open_items(user=users[1], dataset=dataset)
        order_bob = list(selectors.queue_order(qs=qs_bob, user=users[1], dataset=dataset).values_list("pk", flat=True))
        ids = [i.pk for i in items]
        self.assertEqual(order_ann, again)
        self.assertEqual(sorted(order_ann), ids)
        self.assertNotEqual(order_ann, ids)
        self.assertNotEqual(order_ann, order_bob)


@unittest.skipUnless(connection.vendor == "postgresql", "row locks (SELECT … FOR UPDATE SKIP LOCKED) need PostgreSQL")
class ConcurrentNextTests(TransactionTestCase):
    """Real concurrent transactions on PostgreSQL: the last slot goes to exactly one annotator."""

    def test_two_annotators_racing_for_the_last_slot(self):
        users = annotators(*[f"racer{i}" for i in range(6)])
        dataset, (item,) = annotation_dataset(n_items=1, annotators=users, k=1)
        barrier = threading.Barrier(len(users))
        got, errors = {}, []

        def race(user):
            try:
                barrier.wait(timeout=10)
                result = services.annotation_next(user=user, dataset=dataset)
                got[user.username] = result.pk if result else None
            except Exception as exc:  # surfaced below
                errors.append(exc)
            finally:
                connections.close_all()

        threads = [threading.Thread(target=race, args=(u,)) for u in users]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
        self.assertEqual(errors, [])
        self.assertEqual(sorted(v for v in got.values() if v is not None), [item.pk])
        self.assertEqual(Assignment.objects.filter(item=item).count(), 1)


class ProgressReuseTests(TestCase):
    """`next` answers the progress from the numbers it read to decide; it must equal a fresh count."""

    def check_every_step(self, dataset, users):
        for user in users:
            while True:
                item, progress = services.annotation_next_with_progress(user=user, dataset=dataset)
                if item is None:
                    self.assertIsNone(progress)
                    break
                self.assertEqual(progress, selectors.annotation_progress(user=user, dataset=dataset))
                self.assertEqual(item.dataset, dataset)
                services.label_submit(user=user, item=item, valid=True)

    def test_a_queue_longer_than_the_head_that_next_reads(self):
        # share 60 > the 50 rows `next` reads: the open items have to be counted.
        users = annotators("long1", "long2")
        dataset, _ = annotation_dataset("long", n_items=60, annotators=users, k=2)
        first, progress = services.annotation_next_with_progress(user=users[0], dataset=dataset)
        self.assertEqual(progress, {"done": 0, "total": 60})
        services.label_submit(user=users[0], item=first, valid=True)
        self.check_every_step(dataset, users)

    def test_shares_smaller_than_the_dataset_with_others_holding_slots(self):
        users = annotators("s1", "s2", "s3")
        dataset, items = annotation_dataset("small", n_items=5, annotators=users, k=2)
        # Another annotator's label and a third one's running lease take slots before the first asks.
        services.label_submit(user=users[1], item=services.annotation_next(user=users[1], dataset=dataset), valid=True)
        services.annotation_next(user=users[2], dataset=dataset)
        self.check_every_step(dataset, users)

    def test_a_running_lease_is_answered_again_with_its_progress(self):
        users = annotators("r1", "r2")
        dataset, _ = annotation_dataset("again", n_items=3, annotators=users, k=2)
        item, progress = services.annotation_next_with_progress(user=users[0], dataset=dataset)
        again, progress_again = services.annotation_next_with_progress(user=users[0], dataset=dataset)
        self.assertEqual(again.pk, item.pk)
        self.assertEqual(progress, progress_again)
        self.assertEqual(progress_again, {"done": 0, "total": 3})
