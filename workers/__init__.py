"""Celery task modules: thin adapters that take primary keys, re-fetch, and call services or ml.

Django app modules are imported inside the task bodies: the apps import these modules to
enqueue work, and importing them back at module level would be circular.
"""
