"""Celery task modules: thin adapters that take a job id and run the job's service
(``<entity>_run(job=..., progress=...)``) through ``jobs.services.job_run``.

Services enqueue tasks by their registered name (``jobs.tasks``) and never import this package,
so these modules import the services at module level.
"""
