"""Pure ML library: text analysis, noise, operators, models, metrics, selection.

Never imports django, celery, ``workers`` or the platform apps; callers hand it plain strings,
dataclasses and paths. Each concept lives in its own module and is re-exported here.
"""

from .numbers import NumberMention, extract_numbers, find_numbers, normalize_number

__all__ = ["NumberMention", "extract_numbers", "find_numbers", "normalize_number"]
