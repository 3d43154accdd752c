"""The annotation settings of a dataset over the REST API: k, lease time, queue order."""
from __future__ import annotations

from django.test import TestCase
from django.urls import reverse

from annotation.models import AnnotationItem
from corpus.models import Dataset

from .helpers import annotation_dataset, annotators, client_for


class DatasetSettingsApiTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        (cls.ann,) = annotators("ann")
        (cls.boss,) = annotators("boss", staff=True)
        cls.dataset, cls.items = annotation_dataset(n_items=2, annotators=[cls.ann], k=2)

    def url(self):
        return reverse("api-dataset-detail", kwargs={"dataset_id": self.dataset.pk})

    def test_defaults_on_a_new_dataset(self):
        response = client_for(self.boss).post(reverse("api-dataset-list"), {"name": "fresh"}, format="json")
        self.assertEqual(response.status_code, 201)
        body = response.json()
        self.assertEqual((body["labels_per_item"], body["lease_seconds"], body["queue_order"]), (2, 600, "uncertainty"))

    def test_created_with_settings(self):
        response = client_for(self.boss).post(
            reverse("api-dataset-list"), {"name": "triple", "labels_per_item": 3, "queue_order": "random"}, format="json"
        )
        self.assertEqual(response.status_code, 201, response.data)
        dataset = Dataset.objects.get(name="triple")
        self.assertEqual((dataset.labels_per_item, dataset.queue_order), (3, "random"))

    def test_staff_patch_the_settings_and_items_follow_k(self):
        response = client_for(self.boss).patch(
            self.url(), {"labels_per_item": 3, "lease_seconds": 120, "queue_order": "disagreement"}, format="json"
        )
        self.assertEqual(response.status_code, 200, response.data)
        self.assertEqual((response.json()["labels_per_item"], response.json()["lease_seconds"],
                          response.json()["queue_order"]), (3, 120, "disagreement"))
        self.assertEqual(set(AnnotationItem.objects.filter(dataset=self.dataset).values_list("required_labels", flat=True)),
                         {3})

    def test_bad_settings_are_400(self):
        client = client_for(self.boss)
        for body in ({"labels_per_item": 0}, {"lease_seconds": 1}, {"queue_order": "alphabetical"}):
            with self.subTest(body=body):
                self.assertEqual(client.patch(self.url(), body, format="json").status_code, 400)
        self.dataset.refresh_from_db()
        self.assertEqual((self.dataset.labels_per_item, self.dataset.lease_seconds), (2, 600))

    def test_annotators_neither_see_nor_change_them(self):
        client = client_for(self.ann)
        self.assertNotIn("labels_per_item", client.get(self.url()).json())
        self.assertEqual(client.patch(self.url(), {"labels_per_item": 1}, format="json").status_code, 403)
