"""Settings shared by every environment. Every secret and URL comes from the environment."""

from datetime import timedelta
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parents[2]
env = environ.Env()
if (BASE_DIR / ".env").is_file():
    environ.Env.read_env(BASE_DIR / ".env")

SECRET_KEY = env("DJANGO_SECRET_KEY", default="dev-only-insecure-key-change-me")
DEBUG = env.bool("DJANGO_DEBUG", default=False)
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])
# Public base URL used in e-mails (unsubscribe and review links).
SITE_URL = env("LERNPFAD_SITE_URL", default="http://127.0.0.1:8000").rstrip("/")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "lms",
    "accounts",
    "courses",
    "progress",
    "quizzes",
    "reviews",
    "privacy",
    "web",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Log-in, sign-up and password-reset forms get the API's log-in rate (lms/middleware.py).
    "lms.middleware.FormThrottleMiddleware",
]

ROOT_URLCONF = "lms.urls"
WSGI_APPLICATION = "lms.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=60)
# A connection dropped by the server (restart, pg_terminate_backend) is detected and replaced
# before the next request uses it.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env.bool(
    "DATABASE_PREPARED_STATEMENTS", default=True
):
    # Parameters bound on the server, and a statement run twice on a connection is prepared:
    # PostgreSQL then skips parsing and planning, which cost more than executing the short
    # queries of the busy endpoints (about half the database CPU per request; bench/README.md).
    # Behind PgBouncer in transaction mode this needs PgBouncer >= 1.21 with
    # max_prepared_statements set; otherwise set DATABASE_PREPARED_STATEMENTS=false.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        server_side_binding=True, prepare_threshold=2
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "accounts.User"
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 10},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

LANGUAGE_CODE = "de"
LANGUAGES = [("de", "Deutsch"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"

CACHES = {
    "default": env.cache("CACHE_URL", default="locmemcache://"),
    # The log-in throttles (API token and registration, the password forms) count here;
    # production shares it among all gunicorn workers (lms/settings/production.py).
    "login": env.cache("LOGIN_CACHE_URL", default="locmemcache://login"),
}

EMAIL_CONFIG = env.email_url("EMAIL_URL", default="consolemail://")
vars().update(EMAIL_CONFIG)
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="Lernpfad <lernpfad@localhost>")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # knox tokens, checked without loading the user's other tokens (accounts/auth.py).
        "accounts.auth.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Deny by default: a view that is public says so itself.
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 20,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "lms.errors.api_exception_handler",
    "DEFAULT_THROTTLE_RATES": {
        "login": env("THROTTLE_LOGIN", default="10/min"),
        "exam": env("THROTTLE_EXAM", default="120/min"),
        "review": env("THROTTLE_REVIEW", default="600/min"),
        # The public certificate verification (JSON), per client address.
        "certificate_verify": env("THROTTLE_CERTIFICATE_VERIFY", default="30/min"),
    },
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # Throttles identify a client by its address. Without this, DRF takes the whole
    # X-Forwarded-For header, which the client writes itself: a new value per request would
    # escape the log-in limit. 0: the socket address; behind one reverse proxy set 1.
    "NUM_PROXIES": env.int("DJANGO_NUM_PROXIES", default=0),
}

REST_KNOX = {
    "TOKEN_TTL": timedelta(days=env.int("TOKEN_TTL_DAYS", default=30)),
    "AUTO_REFRESH": True,
    "TOKEN_LIMIT_PER_USER": 20,
}
# knox's token model is swappable; naming it lets accounts.Device point at it in migrations.
KNOX_TOKEN_MODEL = "knox.AuthToken"

SPECTACULAR_SETTINGS = {
    "TITLE": "Lernpfad API",
    "DESCRIPTION": "Courses, progress, exams and spaced repetition for web and mobile clients.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    # Swagger UI is served from the installed sidecar package, never from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Choice sets whose field name ("status") other components use too get a name of their own.
    "ENUM_NAME_OVERRIDES": {
        "StepProgressStatusEnum": "progress.models.StepProgress.Status",
    },
    # Every operation also documents the one error shape for its 4xx statuses (lms/openapi.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "lms.openapi.error_responses_add",
    ],
}

# Celery. The default broker needs no server (a folder on disk), so the run command works on a
# fresh machine; production sets CELERY_BROKER_URL=redis://...
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = BASE_DIR / "var" / "celery-broker"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir),
        "data_folder_out": str(_broker_dir),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# Where the course documents live; import_course and build_fixtures default to these.
LERNPFAD_DOCUMENTS_DIR = BASE_DIR / "fixtures" / "documents"
LERNPFAD_FIXTURES_DIR = BASE_DIR / "fixtures"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    # fpdf2 subsets the certificate font with fontTools, which logs every table at INFO.
    "loggers": {"fontTools": {"level": "WARNING"}},
}

# --- Certificates ------------------------------------------------------------------------------
# The Unicode TrueType font the certificate PDF is set in (DejaVu Sans, Debian's
# fonts-dejavu-core; the Dockerfile and .ci/run install it). Without it the PDF falls back to a
# core font that prints Latin-1 only, and `manage.py check` warns (quizzes.checks).
LERNPFAD_PDF_FONT_DIR = env("LERNPFAD_PDF_FONT_DIR", default="/usr/share/fonts/truetype/dejavu")
