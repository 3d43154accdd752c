"""Benchmarks write their newest run as the results file's "## Current" section; the run it replaces
moves to "## Earlier runs" as a one-line entry (``benchmarks/results.py``)."""
from __future__ import annotations

from benchmarks.results import prepend_run

RUN_1 = "## Run of 2026-12-01 10:00 UTC\n\nCommand: `python benchmarks/x.py`\n\n| a |\n|---|\n| 1 |\n"
RUN_2 = "## Run of 2026-12-02 11:00 UTC\n\nCommand: `python benchmarks/x.py --more`\n\n| a |\n|---|\n| 2 |\n"


def test_a_new_run_replaces_current_and_the_old_one_moves_to_earlier_runs(tmp_path):
    out = tmp_path / "docs" / "x.md"
    prepend_run(out, "# X\n\n", RUN_1, commit="abc1234")
    assert out.read_text() == ("# X\n\n## Current\n\nRun of 2026-12-01 10:00 UTC, at commit `abc1234`.\n\n"
                               "Command: `python benchmarks/x.py`\n\n| a |\n|---|\n| 1 |\n")
    prepend_run(out, "# X\n\n", RUN_2, commit="def5678")
    text = out.read_text()
    assert text.startswith("# X\n\n## Current\n\nRun of 2026-12-02 11:00 UTC, at commit `def5678`.\n\n"
                           "Command: `python benchmarks/x.py --more`\n\n| a |\n|---|\n| 2 |\n\n## Earlier runs\n\n")
    assert text.endswith("\n\n- Run of 2026-12-01 10:00 UTC, at commit `abc1234`. "
                         "Command: `python benchmarks/x.py`\n")
    assert text.count("## Current") == 1 and "| 1 |" not in text


def test_entries_stack_newest_first_and_other_sections_stay(tmp_path):
    out = tmp_path / "x.md"
    out.write_text("# X\n\n## Current\n\nRun of 2026-11-30, recorded in commit `0000000`.\n\n| a |\n|---|\n| 0 |\n\n"
                   "## Reading\n\nBy hand.\n\n## Earlier runs\n\nIntro line.\n\n- 2026-11-29: the oldest.\n")
    prepend_run(out, "# X\n\n", RUN_1, commit="abc1234")
    prepend_run(out, "# X\n\n", RUN_2, commit="def5678")
    text = out.read_text()
    assert text.index("## Current") < text.index("## Reading") < text.index("## Earlier runs")
    assert "\n## Reading\n\nBy hand.\n" in text and "Intro line.\n\n- Run of 2026-12-01" in text
    entries = [line[:20] for line in text.splitlines() if line.startswith("- ")]
    assert entries == ["- Run of 2026-12-01 ", "- Run of 2026-11-30,", "- 2026-11-29: the ol"]


def test_a_named_run_has_a_current_section_of_its_own(tmp_path):
    out = tmp_path / "x.md"
    prepend_run(out, "# X\n\n", RUN_1, commit="abc1234")
    prepend_run(out, "# X\n\n", "## By generator: run of 2026-12-02 12:00 UTC\n\n| g |\n|---|\n| r |\n", commit="def5678")
    text = out.read_text()
    assert text.index("## Current\n") < text.index("## Current: By generator\n")
    assert "| 1 |" in text and "## Earlier runs" not in text
    prepend_run(out, "# X\n\n", "## By generator: run of 2026-12-03 12:00 UTC\n\n| g |\n|---|\n| s |\n", commit="1111111")
    text = out.read_text()
    assert "| 1 |" in text and "| s |" in text and "| r |" not in text
    assert "- By generator: run of 2026-12-02 12:00 UTC, at commit `def5678`." in text


def test_a_file_without_the_title_is_kept_below_the_new_run(tmp_path):
    out = tmp_path / "x.md"
    out.write_text("notes by hand\n")
    prepend_run(out, "# X\n\n", "## Run 1\n", commit="")
    assert out.read_text() == "# X\n\n## Current\n\nRun 1.\n\nnotes by hand\n"
