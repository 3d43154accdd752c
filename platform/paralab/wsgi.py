"""WSGI entry point (gunicorn paralab.wsgi)."""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paralab.settings")
application = get_wsgi_application()
