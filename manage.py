#!/usr/bin/env python
"""Django's command-line utility for the paralab platform.

The project is installed (`pip install -e .`), which makes the packages under `platform/`
importable; `platform/` itself is a plain source root without `__init__.py`.
"""
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paralab.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
