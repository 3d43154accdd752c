"""Helpers for the import tests: the hand-written fixture files and throw-away input files."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "imports"


class TempFilesMixin:
    """``self.write(name, content)`` writes a file into a directory removed after the test."""

    def setUp(self):
        super().setUp()
        self.tmp = Path(tempfile.mkdtemp(prefix="paralab-import-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def write(self, name: str, content: str | bytes) -> Path:
        path = self.tmp / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")
        return path
