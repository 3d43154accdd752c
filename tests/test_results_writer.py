"""Benchmarks write their newest run first under the results file's one title (``benchmarks/results.py``)."""
from __future__ import annotations

from benchmarks.results import prepend_run


def test_newest_run_goes_first_under_one_title_and_earlier_runs_stay(tmp_path):
    out = tmp_path / "docs" / "x.md"
    prepend_run(out, "# X\n\n", "## Run 1\n")
    prepend_run(out, "# X\n\n", "## Run 2\n")
    assert out.read_text() == "# X\n\n## Run 2\n\n## Run 1\n"


def test_a_file_without_the_title_is_kept_below_the_new_run(tmp_path):
    out = tmp_path / "x.md"
    out.write_text("notes by hand\n")
    prepend_run(out, "# X\n\n", "## Run 1\n")
    assert out.read_text() == "# X\n\n## Run 1\n\nnotes by hand\n"
