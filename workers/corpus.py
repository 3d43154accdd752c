"""Corpus tasks: import and export as jobs (filled in by the import/export work)."""
