"""``AnnotationItem.label_count`` follows its labels: one more when a Label is created, one fewer
when one is deleted, in the same transaction (``F()`` updates: concurrent labels on one item add
up). ``bulk_create`` sends no signal: code that bulk-creates labels sets the counts itself.

An item added to or removed from a dataset also drops the dataset's cached sizes in this process
(``selectors.progress.annotator_standing``).

A dataset given a new k (``corpus.signals.labels_per_item_changed``, sent by
``corpus.services.dataset_update``) gives it to its items (``services.dataset_labels_per_item_apply``)."""
from __future__ import annotations

from django.db.models import F
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from corpus.signals import labels_per_item_changed

from .models import AnnotationItem, Label
from .selectors.progress import dataset_sizes_forget
from .services.gold import dataset_labels_per_item_apply


@receiver(post_save, sender=Label, dispatch_uid="annotation_label_count_add")
def _label_added(sender, instance: Label, created: bool, raw: bool = False, **kwargs) -> None:
    if created:
        AnnotationItem.objects.filter(pk=instance.item_id).update(label_count=F("label_count") + 1)


@receiver(post_delete, sender=Label, dispatch_uid="annotation_label_count_remove")
def _label_removed(sender, instance: Label, **kwargs) -> None:
    AnnotationItem.objects.filter(pk=instance.item_id, label_count__gt=0).update(label_count=F("label_count") - 1)


@receiver(post_save, sender=AnnotationItem, dispatch_uid="annotation_item_sizes_add")
def _item_added(sender, instance: AnnotationItem, created: bool, **kwargs) -> None:
    if created:
        dataset_sizes_forget(instance.dataset_id)


@receiver(post_delete, sender=AnnotationItem, dispatch_uid="annotation_item_sizes_remove")
def _item_removed(sender, instance: AnnotationItem, **kwargs) -> None:
    dataset_sizes_forget(instance.dataset_id)


@receiver(labels_per_item_changed, dispatch_uid="annotation_labels_per_item_apply")
def _labels_per_item_changed(sender, dataset, **kwargs) -> None:
    dataset_labels_per_item_apply(dataset=dataset)
