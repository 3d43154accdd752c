"""Writing a benchmark's run into its ``docs/results/*.md`` file: the newest run first, under the
file's one title, earlier runs kept below it."""
from __future__ import annotations

from pathlib import Path


def prepend_run(path: Path, head: str, text: str) -> None:
    """Write ``text`` (one run's section) at the top of ``path``, under the title ``head`` (which ends
    in a blank line); what the file held below its title stays after it."""
    previous = path.read_text() if path.is_file() else ""
    body = previous[len(head):] if previous.startswith(head) else previous
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(head + text + ("\n" + body if body else ""))
