"""Progress callbacks for the phases of a job: one job's ``report(fraction, note=None)`` split
over several steps, each reporting its own 0..1."""
from __future__ import annotations

import time
from collections.abc import Callable

Progress = Callable[..., None]


def scaled_progress(
    progress: Progress | None, start: float, end: float, *, note_interval_s: float | None = None
) -> Progress | None:
    """``progress`` remapped so that 0..1 of a phase lands on ``start..end`` of the whole (fractions
    outside 0..1 are clamped). With ``note_interval_s``, notes are passed on at most that often (the
    first and the one at 1.0 always): a job's log is rewritten whole on every note, so long loops
    throttle theirs. None stays None.

    >>> seen = []
    >>> report = scaled_progress(lambda f, note=None: seen.append((f, note)), 0.5, 1.0)
    >>> report(0.5, "half"); report(2.0)
    >>> seen
    [(0.75, 'half'), (1.0, None)]
    """
    if progress is None:
        return None
    last_note = [float("-inf")]

    def report(fraction: float, note: str | None = None) -> None:
        fraction = min(1.0, max(0.0, fraction))
        if note and note_interval_s is not None:
            now = time.monotonic()
            if fraction >= 1.0 or now - last_note[0] >= note_interval_s:
                last_note[0] = now
            else:
                note = None
        progress(start + (end - start) * fraction, note)

    return report
