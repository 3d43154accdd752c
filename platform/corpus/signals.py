"""What a change to a dataset tells the apps above corpus, which corpus does not import.

``labels_per_item_changed`` (``dataset=``): ``dataset_update`` gave the dataset a new k; the
annotation app applies it to the dataset's items and their agreement gold (``annotation.signals``).
"""
from __future__ import annotations

from django.dispatch import Signal

labels_per_item_changed = Signal()
