"""One typed request per job. The start service validates a request and stores it as the job's
params (``to_params``); the task reads it back (``from_params``) and calls the job's
``<entity>_run(job=job, progress=...)``. Adding a field is one line in its dataclass.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Echo(JobRequest):
...     text: str = ""
...     times: int = 1
>>> Echo.from_params({"text": "hi", "times": 2, "other": True})
Echo(text='hi', times=2)
>>> Echo("hi").to_params()
{'text': 'hi', 'times': 1}
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, TypeVar

R = TypeVar("R", bound="JobRequest")


@dataclass(frozen=True)
class JobRequest:
    """Base of the job requests: JSON-compatible fields only (they are stored in ``Job.params``)."""

    def to_params(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_params(cls: type[R], params: dict[str, Any]) -> R:
        """The request stored in ``params``; keys it does not know (older jobs, the reaper's notes)
        are left out, missing ones take their defaults."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in params.items() if k in known})
