"""The queue read in two parts (started items by the partial index, fresh items outward from the
judge's threshold) is the same queue as sorting every open item: checked against
``open_items`` + ``queue_order`` (``open_item_count`` against counting them, ``dataset_progress`` against each person's ``_progress``) on datasets with labels, running and expired leases, skips, ties
and unscored items, for every queue order and both fill orders. And ``label_count`` follows the
labels through create, undo and delete."""
from __future__ import annotations

import random
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.test import TestCase
from django.utils import timezone

from annotation import selectors, services
from annotation.selectors import progress as progress_selectors
from annotation.models import AnnotationItem, Assignment, Label
from corpus.models import Dataset

from .helpers import active_paraqd, annotation_dataset, annotators, score

User = get_user_model()


def full_sort(user, dataset, *, started_only: bool = False) -> list[int]:
    """The reference: every open item, sorted in SQL (what `next` did before the two-part read)."""
    qs = selectors.open_items(user=user, dataset=dataset)
    if started_only:
        qs = qs.filter(taken__gt=0)
    return list(selectors.queue_order(qs=qs, user=user, dataset=dataset).values_list("pk", flat=True))


class QueueHeadTests(TestCase):
    def busy_dataset(self, name: str, *, queue_order: str, fill_order: str, seed: int, version):
        users = annotators(*(f"{name}-{i}" for i in range(5)))
        dataset, items = annotation_dataset(name, n_items=40, annotators=users, k=3, queue_order=queue_order,
                                            fill_order=fill_order)
        rng = random.Random(seed)
        now = timezone.now()
        for n, item in enumerate(items):
            if n % 7 != 3:  # some unscored items; some scores tie exactly
                score(item, version, rng.choice([round(rng.uniform(-1, 1), 3), 0.5, 0.25]))
            others = rng.sample(users[1:], rng.choice([0, 0, 1, 2, 3]))
            for other in others:
                kind = rng.choice(["label", "label", "lease", "expired", "skip"])
                if kind == "label":
                    Assignment.objects.create(item=item, annotator=other, status=Assignment.Status.DONE)
                    Label.objects.create(item=item, annotator=other, valid=rng.random() < 0.5)
                elif kind == "lease":
                    Assignment.objects.create(item=item, annotator=other, status=Assignment.Status.LEASED,
                                              leased_until=now + timedelta(minutes=5))
                elif kind == "expired":
                    Assignment.objects.create(item=item, annotator=other, status=Assignment.Status.LEASED,
                                              leased_until=now - timedelta(minutes=5))
                else:
                    Assignment.objects.create(item=item, annotator=other, status=Assignment.Status.SKIPPED)
            if n % 11 == 5:  # the annotator under test skipped or labelled a few
                Assignment.objects.create(item=item, annotator=users[0], status=Assignment.Status.SKIPPED)
        return users[0], dataset

    def test_the_two_part_queue_is_the_full_sort(self):
        seed = 0
        version = active_paraqd()
        for queue_order in Dataset.QueueOrder.values:
            for fill_order in Dataset.FillOrder.values:
                seed += 1
                with self.subTest(queue_order=queue_order, fill_order=fill_order):
                    user, dataset = self.busy_dataset(f"q{seed}", queue_order=queue_order, fill_order=fill_order,
                                                      seed=seed, version=version)
                    expected = full_sort(user, dataset)
                    self.assertGreater(len(expected), 10)
                    self.assertTrue(any(selectors.open_items(user=user, dataset=dataset).filter(taken__gt=0)))
                    for limit in (1, 5, 12, len(expected) + 5):
                        self.assertEqual(selectors.queue_head(user=user, dataset=dataset, limit=limit),
                                         expected[:limit])
                    now = timezone.now()
                    for limit in (1, 3, len(expected) - 1, len(expected), len(expected) + 10):
                        self.assertEqual(selectors.open_item_count(user=user, dataset=dataset, now=now, limit=limit),
                                         min(limit, len(expected)), f"limit {limit}")
                    rows = selectors.dataset_progress(dataset=dataset)
                    self.assertEqual(len(rows), 5)
                    share = progress_selectors._share(dataset)
                    for row in rows:  # all at once == one person at a time
                        person = User.objects.get(username=row["annotator"])
                        self.assertEqual({k: row[k] for k in ("done", "total")},
                                         progress_selectors._progress(user=person, dataset=dataset, share=share, now=now),
                                         row["annotator"])
                    started = full_sort(user, dataset, started_only=True)
                    self.assertEqual(selectors.queue_head(user=user, dataset=dataset, limit=100, started_only=True),
                                     started)

    def test_without_an_active_judge_fresh_items_go_by_id(self):
        (ann,) = annotators("ann")
        dataset, items = annotation_dataset(n_items=5, annotators=[ann], k=1)
        score(items[0], None, 0.5)  # no version: not the deciding judge
        self.assertEqual(selectors.queue_head(user=ann, dataset=dataset, limit=10), [item.pk for item in items])


class LabelCountTests(TestCase):
    def test_label_count_follows_labels_through_submit_undo_and_delete(self):
        ann, bob = annotators("ann", "bob")
        dataset, (item,) = annotation_dataset(n_items=1, annotators=[ann, bob], k=2)

        def count() -> int:
            return AnnotationItem.objects.get(pk=item.pk).label_count

        self.assertEqual(count(), 0)
        services.annotation_next(user=ann, dataset=dataset)
        services.label_submit(user=ann, item=item, valid=True)
        self.assertEqual(count(), 1)
        services.label_submit(user=ann, item=item, valid=False)  # an update is no new label
        self.assertEqual(count(), 1)
        services.annotation_next(user=bob, dataset=dataset)
        services.label_submit(user=bob, item=item, valid=True)
        self.assertEqual(count(), 2)
        services.label_undo(user=bob, dataset=dataset)
        self.assertEqual(count(), 1)
        Label.objects.filter(item=item).delete()
        self.assertEqual(count(), 0)
        self.assertEqual(count(), Label.objects.filter(item=item).count())


class DatasetSizesCacheTests(TestCase):
    """A large dataset's item count and slots are cached per process; adding or removing items or
    changing k forgets them, so the share follows at once in this process."""

    def setUp(self):
        from unittest import mock

        patcher = mock.patch.object(progress_selectors, "SIZES_CACHE_MIN_ITEMS", 0)  # every dataset counts as large
        patcher.start()
        self.addCleanup(patcher.stop)
        self.addCleanup(progress_selectors._sizes.clear)
        self.addCleanup(progress_selectors._open_counts.clear)

    def test_the_share_follows_new_items_removed_items_and_k(self):
        from annotation.services import dataset_labels_per_item_apply

        users = annotators("ann", "bob")
        dataset, items = annotation_dataset("sizes", n_items=4, annotators=users, k=2)
        share = lambda: selectors.annotator_standing(user=users[0], dataset=dataset)["share"]  # noqa: E731
        self.assertEqual(share(), 4)  # 4 items × 2 / 2 annotators
        self.assertIn(dataset.pk, progress_selectors._sizes)
        extra, _ = annotation_dataset("sizes-more", n_items=2, annotators=[], k=2)
        AnnotationItem.objects.filter(dataset=extra).update(dataset=dataset)  # no signal: still cached
        self.assertEqual(share(), 4)
        AnnotationItem.objects.create(dataset=dataset, candidate=items[0].candidate.problem.candidates.create(
            text="One more wording.", text_hash="one-more", generator="reorder"), required_labels=2)
        self.assertEqual(share(), 7)  # 7 items: the new one forgot the cached sizes
        items[1].delete()
        self.assertEqual(share(), 6)
        Dataset.objects.filter(pk=dataset.pk).update(labels_per_item=1)
        dataset.refresh_from_db()
        dataset_labels_per_item_apply(dataset=dataset)
        self.assertEqual(share(), 3)  # 6 items × 1 / 2


class OpenCountCacheTests(DatasetSizesCacheTests):
    def test_a_large_datasets_open_counts_are_reused_for_a_while(self):
        users = annotators("cat", "dan")
        dataset, _ = annotation_dataset("opens", n_items=30, annotators=users, k=2)  # share 30 each
        first = selectors.annotation_progress(user=users[0], dataset=dataset)
        self.assertEqual(first, {"done": 0, "total": 30})
        with self.assertNumQueries(1):  # the standing; sizes and the open count come from the caches
            self.assertEqual(selectors.annotation_progress(user=users[0], dataset=dataset), first)
        selectors.dataset_sizes_forget(dataset.pk)  # items added or removed: counted again
        selectors.annotation_progress(user=users[0], dataset=dataset)
        self.assertIn((dataset.pk, users[0].pk), progress_selectors._open_counts)


class DatasetProgressTests(TestCase):
    def test_open_items_limit_the_total_like_one_person_at_a_time(self):
        ann, bob = annotators("ann", "bob")
        dataset, items = annotation_dataset("few", n_items=6, annotators=[ann, bob], k=1)  # share 3 each
        now = timezone.now()
        for item in items[:2]:  # ann passed on two fresh items
            Assignment.objects.create(item=item, annotator=ann, status=Assignment.Status.SKIPPED)
        for item in items[2:4]:  # bob holds two
            Assignment.objects.create(item=item, annotator=bob, status=Assignment.Status.LEASED,
                                      leased_until=now + timedelta(minutes=5))
        Assignment.objects.create(item=items[4], annotator=bob, status=Assignment.Status.DONE)
        Label.objects.create(item=items[4], annotator=bob, valid=True)
        rows = {row["annotator"]: (row["done"], row["total"]) for row in selectors.dataset_progress(dataset=dataset)}
        # ann: items 2, 3 leased to bob, 4 full: item 5 is open to her, and the two she skipped
        # come back to her after it (both still have their slot free).
        self.assertEqual(rows, {"ann": (0, 3), "bob": (1, 3)})
        Label.objects.create(item=items[0], annotator=bob, valid=True)  # a skipped item filled meanwhile
        rows = {row["annotator"]: (row["done"], row["total"]) for row in selectors.dataset_progress(dataset=dataset)}
        self.assertEqual(rows, {"ann": (0, 2), "bob": (2, 3)})
        share = progress_selectors._share(dataset)
        for user in (ann, bob):
            self.assertEqual(progress_selectors._progress(user=user, dataset=dataset, share=share, now=timezone.now()),
                             dict(zip(("done", "total"), rows[user.username])))
