"""WSGI entry point (gunicorn paralab.wsgi).

With ``PARALAB_WARM_NLP`` (default on) the spaCy pipeline the labelling screen highlights with is
loaded here, before the first request: under ``gunicorn --preload`` once in the master, shared by
the forked workers, instead of stalling each worker's first requests for seconds.
"""
import logging
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paralab.settings")
application = get_wsgi_application()

if os.environ.get("PARALAB_WARM_NLP", "1").lower() not in ("0", "false", "no", "off"):
    try:
        from django.conf import settings

        from ml.text.highlight import highlight_spans

        highlight_spans("Ann has 2 apples in Boston.", spacy_model=settings.PARALAB_SPACY_MODEL)
    except Exception:  # noqa: BLE001 - a missing model must not stop the site: spans load on first use then
        logging.getLogger("paralab").exception("could not warm the spaCy pipeline; it loads on first use")
