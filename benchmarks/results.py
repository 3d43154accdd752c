"""Writing a benchmark's run into its ``docs/results/*.md`` file.

A results file is its one title, then a ``## Current`` section (the newest run: its date, the commit
it ran at, its command, its table), then ``## Earlier runs``: one short entry per earlier run, newest
first; git keeps every run's full text. ``prepend_run`` writes a new run as the Current section; the
Current it replaces moves to the top of Earlier runs as a one-line entry (its opening paragraph and
its command). A run headed ``## <Name>: run of …`` or ``## <Name> (run of …)`` has a Current section
of its own, ``## Current: <Name>``, so two benchmarks that write one file (``handout.py`` and
``generators.py``; ``judge_combination.py`` beside the judge's model card) keep each other's figure.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CURRENT = "## Current"
EARLIER = "## Earlier runs"
_NAMED = re.compile(r"^(?P<name>.+?)(?::\s*|\s*\()run\b", re.IGNORECASE)


def head_commit() -> str | None:
    """The checkout's HEAD (short hash), with " (with uncommitted changes)" when tracked files differ
    from it; None outside a git checkout."""
    try:
        sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, timeout=30, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "diff", "--quiet", "HEAD", "--"], capture_output=True,
                               timeout=30).returncode == 1
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{sha} (with uncommitted changes)" if dirty and sha else sha or None


def _sections(body: str) -> tuple[str, list[str]]:
    """``body`` split at its ``## `` headings: the text before the first one, then each section."""
    parts = re.split(r"(?m)^(?=## )", body)
    return parts[0], [p for p in parts[1:] if p]


def _title(section: str) -> str:
    return section.split("\n", 1)[0].rstrip()


def _current_title(heading: str) -> str:
    named = _NAMED.match(heading)
    return f"{CURRENT}: {named.group('name').strip()}" if named else CURRENT


def _entry(section: str) -> str:
    """A replaced Current section as one Earlier-runs line: its first paragraph, and its command
    paragraph when that is the second."""
    paragraphs = [p.strip() for p in section.split("\n", 1)[1].strip().split("\n\n") if p.strip()]
    kept = paragraphs[:1] + [p for p in paragraphs[1:2] if p.startswith("Command:")]
    return "- " + " ".join(" ".join(line.strip() for line in p.splitlines()) for p in kept)


def _relative(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return path.name


def prepend_run(path: Path, head: str, text: str, *, commit: str | None = None) -> None:
    """Write ``text`` (one run's section, opening with its ``## `` heading) into ``path`` as its Current
    section under the title ``head`` (which ends in a blank line). ``commit`` defaults to the
    checkout's HEAD. The Current section it replaces becomes the first entry of ``## Earlier runs``;
    every other section stays as it was. A file that does not open with ``head`` is kept whole below
    the new run."""
    first, _, rest = text.lstrip("\n").partition("\n")
    heading = first.removeprefix("## ").strip()
    commit = commit if commit is not None else head_commit()
    title = _current_title(heading)
    opening = heading + (f", at commit `{commit}`." if commit else ".")
    new = "\n\n".join(part for part in (title, opening, rest.strip("\n")) if part) + "\n"
    previous = path.read_text(encoding="utf-8") if path.is_file() else ""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not previous.startswith(head):
        path.write_text(head + new + ("\n" + previous if previous else ""), encoding="utf-8")
        return
    preamble, sections = _sections(previous[len(head):])
    titles = [_title(s) for s in sections]
    if title in titles:
        at = titles.index(title)
        replaced, sections[at] = sections[at], new
        if EARLIER not in titles:
            sections.append(f"{EARLIER}\n\nOne line per earlier run, newest first; the full text of each is in git "
                            f"(`git log -p -- {_relative(path)}`).\n")
            titles.append(EARLIER)
        earlier = sections[titles.index(EARLIER)].rstrip("\n").split("\n")
        bullet = next((i for i, line in enumerate(earlier) if line.startswith("- ")), len(earlier))
        if bullet == len(earlier) and earlier[-1].strip():
            earlier.append("")
            bullet += 1
        earlier.insert(bullet, _entry(replaced))
        sections[titles.index(EARLIER)] = "\n".join(earlier) + "\n"
    else:
        currents = [i for i, t in enumerate(titles) if t == CURRENT or t.startswith(CURRENT + ":")]
        sections.insert(currents[-1] + 1 if currents else 0, new)
    blocks = ([preamble.strip("\n") + "\n"] if preamble.strip() else []) + [s.strip("\n") + "\n" for s in sections]
    path.write_text(head + "\n".join(blocks), encoding="utf-8")
