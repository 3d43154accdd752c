"""Settings for the paralab platform.

This module and ``paralab.settings_models`` (the models and generation settings, imported below)
read the environment, through the typed readers of ``paralab.env`` (see README, "Environment"):

- ``DATABASE_URL``: PostgreSQL in production (``postgres://user@host:5432/db``); unset, a SQLite
  file under ``PARALAB_DATA_DIR`` (the embedded default).
- ``CELERY_BROKER_URL``: Redis in production; unset, tasks run eagerly in-process.
- ``SECRET_KEY``, ``DEBUG``, ``ALLOWED_HOSTS``, ``CSRF_TRUSTED_ORIGINS``.
- ``PARALAB_DATA_DIR``, ``PARALAB_MODEL_DIR``, ``PARALAB_DEVICE`` and one variable per model name.
"""
from __future__ import annotations

import logging
import sys
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from .env import env_bool, env_float, env_int, env_list, env_str

logger = logging.getLogger("paralab.settings")

BASE_DIR = Path(__file__).resolve().parent.parent.parent  # the repository root


# --- core --------------------------------------------------------------------------------------
DEBUG = env_bool("DEBUG", True)
_DEV_SECRET = "paralab-insecure-development-key-do-not-use-in-production"
SECRET_KEY = env_str("SECRET_KEY") or (_DEV_SECRET if DEBUG else "")
if not SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

DATA_DIR = Path(env_str("PARALAB_DATA_DIR") or BASE_DIR / "var")
MODEL_DIR = Path(env_str("PARALAB_MODEL_DIR") or DATA_DIR / "models")
MEDIA_ROOT = Path(env_str("PARALAB_MEDIA_DIR") or DATA_DIR / "media")
MEDIA_URL = "/media/"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "core",
    "jobs",
    "corpus",
    "paraphrases",
    "annotation",
    "modelhub",
    "paralab",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "paralab.middleware.DatabaseUnavailableMiddleware",
]

ROOT_URLCONF = "paralab.urls"
WSGI_APPLICATION = "paralab.wsgi.application"
ASGI_APPLICATION = "paralab.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- database ----------------------------------------------------------------------------------
_database_url = env_str("DATABASE_URL")
if _database_url:
    _default_db = dj_database_url.parse(_database_url, conn_max_age=env_int("DB_CONN_MAX_AGE", 60))
    _default_db["CONN_HEALTH_CHECKS"] = True
    if _default_db["ENGINE"].endswith("postgresql"):
        # No JIT: the platform's statements are short index reads, and on a large table a stale
        # row estimate made PostgreSQL spend 1.8 s compiling a 200 ms query (docs/results/scale.md).
        options = _default_db.setdefault("OPTIONS", {})
        options["options"] = (options.get("options", "") + " -c jit=" + env_str("PARALAB_PG_JIT", "off")).strip()
else:
    # The embedded default: a SQLite file under the data directory (created on first use).
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    _default_db = {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(DATA_DIR / "paralab.sqlite3"),
        "OPTIONS": {"timeout": 20},
        # A file, not the in-memory default: a real worker thread in the integration tests
        # opens its own connection and must see the same database.
        "TEST": {"NAME": str(DATA_DIR / "test-paralab.sqlite3")},
    }
_default_db.setdefault("TEST", {})
if _default_db["ENGINE"].endswith("sqlite3"):
    # Transactions take SQLite's write lock when they begin: a read-then-write (a job's claim, a
    # cancel, a label) waits its turn behind the background job's writes (up to the timeout)
    # instead of failing at once with "database is locked" (paralab/apps.py turns on WAL).
    _default_db.setdefault("OPTIONS", {}).setdefault("timeout", 20)
    _default_db["OPTIONS"].setdefault("transaction_mode", "IMMEDIATE")
DATABASES = {
    "default": _default_db,
    # A second connection to the same database: job progress written through it is visible
    # to pollers while a long import holds its own transaction open on "default".
    "progress": {**_default_db, "TEST": {"MIRROR": "default"}},
}
DATABASE_ROUTERS: list[str] = []
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- auth, i18n, static ------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = Path(env_str("PARALAB_STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "templates" / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# Uploads: imports stream from a temporary file; anything above the limit is refused.
PARALAB_MAX_UPLOAD_BYTES = env_int("PARALAB_MAX_UPLOAD_BYTES", 50 * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
# Uploads at most this big are imported inside the request; bigger ones become a job.
PARALAB_IMPORT_SYNC_MAX_BYTES = env_int("PARALAB_IMPORT_SYNC_MAX_BYTES", 1024 * 1024)

# --- security (production: DEBUG=0) ------------------------------------------------------------
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # the annotator UI's plain JavaScript reads it for its POSTs
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
    SECURE_REFERRER_POLICY = "same-origin"
    if env_bool("PARALAB_BEHIND_PROXY", False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# --- REST API ----------------------------------------------------------------------------------
REST_FRAMEWORK = {
    # Token first: an unauthenticated script gets 401 with `WWW-Authenticate: Token`.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # `?format=jsonl|csv` belongs to the export endpoint, not to renderer negotiation.
    "URL_FORMAT_OVERRIDE": None,
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    # drf-spectacular's, plus the error responses every view can give (core.schema).
    "DEFAULT_SCHEMA_CLASS": "core.schema.ParalabAutoSchema",
    "DEFAULT_THROTTLE_RATES": {"auth": env_str("PARALAB_AUTH_THROTTLE", "30/min")},
    # The client address throttles count by: REMOTE_ADDR, or behind the reverse proxy the address
    # it appended to X-Forwarded-For. Unset, DRF would take the whole header, which a client writes
    # itself: a new made-up X-Forwarded-For per request would dodge the login limit.
    "NUM_PROXIES": 1 if env_bool("PARALAB_BEHIND_PROXY", False) else 0,
    # A service's UserError (bad input, a conflict) answers {"detail": message} with its status.
    "EXCEPTION_HANDLER": "core.errors.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "paralab API",
    "DESCRIPTION": "Datasets of algebraic word problems, paraphrase candidates, labels, models and jobs.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# --- Celery ------------------------------------------------------------------------------------
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
# With no broker: "thread" runs each job on a background thread of this process (jobs/background.py),
# so no page waits for one; "inline" runs it inside the call that started it (commands, tests,
# developers' TestCase suites). The embedded web server (runserver, demo) defaults to "thread".
PARALAB_JOB_RUNNER = env_str("PARALAB_JOB_RUNNER") or ("thread" if sys.argv[1:2] == ["runserver"] else "inline")
if PARALAB_JOB_RUNNER not in ("thread", "inline"):
    raise ImproperlyConfigured("PARALAB_JOB_RUNNER must be 'thread' or 'inline'")
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_DEFAULT_QUEUE = "cpu"
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# The longest task (a training run) must finish well inside the visibility timeout, or Redis
# redelivers it to a second worker while the first is still running.
PARALAB_TASK_HARD_LIMIT_S = env_int("PARALAB_TASK_HARD_LIMIT_S", 4 * 3600)
CELERY_TASK_TIME_LIMIT = PARALAB_TASK_HARD_LIMIT_S
CELERY_TASK_SOFT_TIME_LIMIT = PARALAB_TASK_HARD_LIMIT_S - 300
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": PARALAB_TASK_HARD_LIMIT_S + 3600}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
# Jobs survive lost workers and lost broker messages (README, "Jobs under faults"): a running
# task writes a heartbeat every PARALAB_JOB_HEARTBEAT_S from a thread of its own; a running job
# with no heartbeat for PARALAB_JOB_STALE_S has lost its worker, and beat's reaper puts it back in
# the queue (at most PARALAB_JOB_MAX_ATTEMPTS runs, then it fails); a queued job whose message
# has not been picked up for PARALAB_JOB_RESEND_S (or never reached the broker) is sent again.
# Duplicate messages are harmless: a job is claimed in the database before it runs.
PARALAB_JOB_HEARTBEAT_S = env_int("PARALAB_JOB_HEARTBEAT_S", 30)
PARALAB_JOB_STALE_S = env_int("PARALAB_JOB_STALE_S", 300)
PARALAB_JOB_RESEND_S = env_int("PARALAB_JOB_RESEND_S", 1800)
PARALAB_JOB_MAX_ATTEMPTS = env_int("PARALAB_JOB_MAX_ATTEMPTS", 3)
if PARALAB_JOB_STALE_S < 3 * PARALAB_JOB_HEARTBEAT_S:
    raise ImproperlyConfigured("PARALAB_JOB_STALE_S must be at least 3 heartbeats (PARALAB_JOB_HEARTBEAT_S)")
_reap_interval_s = env_int("PARALAB_REAP_INTERVAL_S", 0) or 60 * env_int("PARALAB_REAP_INTERVAL_MIN", 1)
CELERY_BEAT_SCHEDULE: dict = {
    "jobs-reap-stale": {
        "task": "paralab.jobs.reap_stale",
        "schedule": timedelta(seconds=_reap_interval_s),
    },
}

# --- devices and models ------------------------------------------------------------------------
from .settings_models import *  # noqa: E402,F401,F403  (devices, models, generation, the judge)

PARALAB_LLM_DIR = PARALAB_LLM_DIR or str(MODEL_DIR)  # noqa: F405
PARALAB_WORDNET_DIR = PARALAB_WORDNET_DIR or str(DATA_DIR / "nltk_data")  # noqa: F405
# How long the dashboard keeps its summaries of a large dataset (paralab.dashboard); 0: never.
# Beat recomputes them every half of it (paralab.dashboard.refresh), into the shared cache.
PARALAB_DASHBOARD_CACHE_S = env_int("PARALAB_DASHBOARD_CACHE_S", 300)
if PARALAB_DASHBOARD_CACHE_S < 0:
    raise ImproperlyConfigured("PARALAB_DASHBOARD_CACHE_S must be >= 0")
if PARALAB_DASHBOARD_CACHE_S:
    CELERY_BEAT_SCHEDULE["dashboard-refresh"] = {
        "task": "paralab.dashboard.refresh",
        "schedule": timedelta(seconds=max(30, PARALAB_DASHBOARD_CACHE_S // 2)),
    }

# --- cache -------------------------------------------------------------------------------------
# The login throttle's counters and the dashboard's summaries. PARALAB_CACHE_URL (redis://…, as in
# docker-compose) shares them between the web processes and the workers; unset, each process has
# its own memory cache (the embedded default: one process).
_cache_url = env_str("PARALAB_CACHE_URL")
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": _cache_url}
        if _cache_url else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "paralab"}
    )
}

# --- retraining (modelhub.retraining) ----------------------------------------------------------
# Training preset of a retrain ("tiny" finishes in minutes on a CPU; "paper" is the paper's recipe).
PARALAB_RETRAIN_PRESET = env_str("PARALAB_RETRAIN_PRESET", "tiny")
if PARALAB_RETRAIN_PRESET not in {"tiny", "paper"}:
    raise ImproperlyConfigured(f"PARALAB_RETRAIN_PRESET must be tiny or paper, got {PARALAB_RETRAIN_PRESET!r}")
# Beat checks this often whether enough new human evidence arrived to retrain (0: never).
PARALAB_RETRAIN_INTERVAL_S = env_int("PARALAB_RETRAIN_INTERVAL_S", 3600)
# ...and retrains when new annotator gold labels + human-model disagreements since the last version reach this.
PARALAB_RETRAIN_MIN_NEW = env_int("PARALAB_RETRAIN_MIN_NEW", 20)
# Share of the annotators' gold labels held out (by candidate id hash) to evaluate the promotion gate on.
PARALAB_RETRAIN_HOLDOUT_PERCENT = env_int("PARALAB_RETRAIN_HOLDOUT_PERCENT", 20)
# The candidate is promoted when each gate metric is >= the active model's minus this tolerance.
PARALAB_RETRAIN_TOLERANCE = env_float("PARALAB_RETRAIN_TOLERANCE", 0.0)
# The gate decides only on at least this many held-out gold pairs (both classes present); below it a
# retrained version stays a candidate: "not enough gold to decide" (the active version keeps serving).
PARALAB_GATE_MIN_HELDOUT = env_int("PARALAB_GATE_MIN_HELDOUT", 20)
# A trained STEAD/PAP version joins the default generators only when the judge passes at least this
# share of its candidates on up to PARALAB_NEURAL_GATE_PROBLEMS problems (paraphrases/neural_gate.py).
PARALAB_NEURAL_GATE_PROBLEMS = env_int("PARALAB_NEURAL_GATE_PROBLEMS", 12)
PARALAB_NEURAL_GATE_MIN_SHARE = env_float("PARALAB_NEURAL_GATE_MIN_SHARE", 0.5)
# At most this many problems per retrain (those with gold labels first; 0: all).
PARALAB_RETRAIN_MAX_PROBLEMS = env_int("PARALAB_RETRAIN_MAX_PROBLEMS", 0) or None
if not 0.0 <= PARALAB_RETRAIN_TOLERANCE <= 1.0:
    raise ImproperlyConfigured(f"PARALAB_RETRAIN_TOLERANCE must be in [0, 1], got {PARALAB_RETRAIN_TOLERANCE}")
if not 1 <= PARALAB_RETRAIN_HOLDOUT_PERCENT <= 50:
    raise ImproperlyConfigured(f"PARALAB_RETRAIN_HOLDOUT_PERCENT must be 1-50, got {PARALAB_RETRAIN_HOLDOUT_PERCENT}")
if PARALAB_RETRAIN_MIN_NEW < 1 or PARALAB_RETRAIN_INTERVAL_S < 0:
    raise ImproperlyConfigured("PARALAB_RETRAIN_MIN_NEW must be >= 1 and PARALAB_RETRAIN_INTERVAL_S >= 0")
if PARALAB_RETRAIN_INTERVAL_S:
    # One entry for every retrainable kind of the model registry (ParaQD, PAP): the task checks each.
    CELERY_BEAT_SCHEDULE["retrain-check"] = {
        "task": "paralab.retrain.check",
        "schedule": timedelta(seconds=PARALAB_RETRAIN_INTERVAL_S),
    }

# Recalibrating the active judges from new human gold labels (seconds of work; 0 disables beat's check).
PARALAB_CALIBRATE_INTERVAL_S = env_int("PARALAB_CALIBRATE_INTERVAL_S", 900)
if PARALAB_CALIBRATE_INTERVAL_S < 0:
    raise ImproperlyConfigured("PARALAB_CALIBRATE_INTERVAL_S must be >= 0")
if PARALAB_CALIBRATE_INTERVAL_S:
    CELERY_BEAT_SCHEDULE["calibrate-check"] = {
        "task": "paralab.calibrate.check",
        "schedule": timedelta(seconds=PARALAB_CALIBRATE_INTERVAL_S),
    }

# --- logging -----------------------------------------------------------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
    "loggers": {"paralab": {"level": env_str("PARALAB_LOG_LEVEL", "INFO"), "propagate": True}},
}
