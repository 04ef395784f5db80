"""Settings shared by every environment. Every secret and URL comes from the environment."""

from datetime import timedelta
from pathlib import Path

import environ

from lms import embedded_db

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
    # The admin with Lernpfad's site: its header, the infrastructure for superusers only.
    "lms.admin_config.LernpfadAdminConfig",
    # Before django.contrib.auth: its changepassword command takes the place of Django's.
    "accounts",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    # intcomma: review counts grouped as the language writes them (1.240 / 1,240).
    "django.contrib.humanize",
    "rest_framework",
    "knox",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    # Failed log-ins per account and per address, the lockout and its admin (accounts/lockout.py).
    "axes",
    # Only for its translations of zxcvbn's advice (accounts/passwords.py).
    "django_zxcvbn_password_validator",
    "lms",
    "courses",
    "progress",
    "quizzes",
    "reviews",
    "privacy",
    # The course import workspace in the admin (upload, preview, publish, history).
    "publishing",
    "web",
    # The LTI 1.3 tool: django-lti's registrations, deployments, keys, platform users and
    # courses (lti_tool); what Lernpfad adds to them, the launch pages and grade sends (lti).
    "lti_tool",
    "lti",
]

MIDDLEWARE = [
    # /health/live/ and /health/ready/, answered before host checks, redirects and sessions.
    "lms.middleware.HealthCheckMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # JSON responses brotli- or gzip-compressed as the client accepts; never HTML or a log-in
    # token (the BREACH reasoning is in lms/compression.py). Early: it sees the final body.
    "lms.compression.CompressionMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    # NUL in path or query, API bodies over the limit, page methods; API 4xx in the error shape
    # (lms/request_guards.py). After LocaleMiddleware: its answers are in the request's language.
    "lms.request_guards.RequestGuardMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # --- Single sign-on (django-allauth; settings at the end of this file) ---
    # Required by allauth: its request context, and its ImmediateHttpResponse as a response.
    "allauth.account.middleware.AccountMiddleware",
    # --- end single sign-on ---
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Sign-up and password-reset forms get a per-address rate (lms/middleware.py).
    "lms.middleware.FormThrottleMiddleware",
    # Last, as axes asks: turns a locked log-in page (web, admin) into the lockout page.
    "axes.middleware.AxesMiddleware",
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

# The folder of what `make run` keeps on disk: its PostgreSQL (lms/embedded_db.py), the folder
# broker and beat's schedule file (a test's runstack gets a folder of its own).
LERNPFAD_VAR_DIR = Path(env("LERNPFAD_VAR_DIR", default=str(BASE_DIR / "var")))
# Without DATABASE_URL: the embedded PostgreSQL that `manage.py runstack` runs in var/postgres.
DATABASES = {
    "default": env.db("DATABASE_URL", default=embedded_db.url(LERNPFAD_VAR_DIR / "postgres"))
}
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=60)
# A connection dropped by the server (restart, pg_terminate_backend) is detected and replaced
# before the next request uses it.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if env.bool("DATABASE_PREPARED_STATEMENTS", default=True):
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
    # zxcvbn with German words: refuses "Sommer2026!", "Passwort123" (accounts/passwords.py).
    {"NAME": "accounts.passwords.PasswordStrengthValidator"},
]
# zxcvbn's score 0-4; 3 means about 10^8 guesses or more.
PASSWORD_MINIMAL_STRENGTH = env.int("PASSWORD_MINIMAL_STRENGTH", default=3)
# Words a password should not be built on, beside the account's own name and address.
PASSWORD_EXTRA_DICTIONARY = ["lernpfad"]

# axes watches every log-in (web, admin, API token): its backend refuses a locked one before
# the password is checked; ModelBackend checks the password.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Failed log-ins are counted per account (from any address) and per client address (for any
# account); successful ones are not counted at all. Limits and lock time: accounts/lockout.py.
LOGIN_FAILURE_LIMIT_ADDRESS = env.int("LOGIN_FAILURE_LIMIT_ADDRESS", default=50)
AXES_FAILURE_LIMIT = env.int("LOGIN_FAILURE_LIMIT_ACCOUNT", default=10)
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_HANDLER = "accounts.lockout.LoginFailureHandler"
AXES_CLIENT_IP_CALLABLE = "accounts.lockout.client_address"
AXES_COOLOFF_TIME = timedelta(minutes=env.int("LOGIN_LOCKOUT_MINUTES", default=15))
# Attempts during a lock do not lengthen it: the lock ends when its message says it does.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# A success must not wipe the failures: logging in to one's own account between guesses at
# another's would reset the address's count (and the other account's rows from it).
AXES_RESET_ON_SUCCESS = False
# Successful log-ins are not logged (a row per log-in, forever); failures are what counts.
AXES_DISABLE_ACCESS_LOG = True
# No start-up banner, and log lines name only the locked parameters (cleansed), not every one.
AXES_VERBOSE = False
# The lockout page of the web and admin log-in forms (the API answers in its error shape).
AXES_LOCKOUT_CALLABLE = "web.views.auth.login_locked"
# Never stored with a failure (axes keeps the form's other fields): the passwords of the
# password-change page, besides axes' defaults.
AXES_SENSITIVE_PARAMETERS = [
    "username",
    "ip_address",
    "old_password",
    "new_password1",
    "new_password2",
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
# Where collectstatic writes (the Dockerfile runs it at build time).
STATIC_ROOT = Path(env("LERNPFAD_STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))

CACHES = {
    # Without CACHE_URL, memory of each process, with room for the courses' content and page
    # fragments: at Django's default of 300 entries a quarter of the step page's fragments were
    # culled and rendered again (bench/results/simplification.md).
    "default": env.cache("CACHE_URL", default="locmemcache://?max_entries=20000"),
    # The per-address rates of registration, sign-up, password reset and erasure count here;
    # production shares it among all gunicorn workers (lms/settings/production.py).
    "login": env.cache("LOGIN_CACHE_URL", default="locmemcache://login"),
}

EMAIL_CONFIG = env.email_url("EMAIL_URL", default="consolemail://")
vars().update(EMAIL_CONFIG)
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="Lernpfad <lernpfad@localhost>")
# Account mails (confirmation, password reset) go through the Celery worker, so a request does
# the same work whether its address has an account or not (accounts/mails.py). The tests send
# them in the request instead (lms/settings/test.py).
ACCOUNT_MAILS_QUEUED = True

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # knox tokens, checked without loading the user's other tokens (accounts/auth.py).
        "accounts.auth.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Deny by default: a view that is public says so itself.
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # One JSON parser: too deep, unparseable or lone-surrogate bodies are a 400 parse_error.
    "DEFAULT_PARSER_CLASSES": ["lms.parsers.JSONBodyParser"],
    # Relative next/previous links and the next page number (lms/pagination.py).
    "DEFAULT_PAGINATION_CLASS": "lms.pagination.RelativePageNumberPagination",
    "PAGE_SIZE": 20,
    "DEFAULT_SCHEMA_CLASS": "lms.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "lms.errors.api_exception_handler",
    "DEFAULT_THROTTLE_RATES": {
        # Registration and sign-up, password-reset mails, the password to erase an account;
        # generous: a class signs up together from one address. Log-ins: axes (above).
        "login": env("THROTTLE_LOGIN", default="30/min"),
        "exam": env("THROTTLE_EXAM", default="120/min"),
        "review": env("THROTTLE_REVIEW", default="600/min"),
        # A batch is up to 500 reviews (reviews.services.review_batches).
        "review_batch": env("THROTTLE_REVIEW_BATCH", default="30/min"),
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
    # Relative to the schema's own address: the server that serves the schema serves the API.
    "SERVERS": [{"url": "/", "description": "The server this schema was read from."}],
    # Swagger UI is served from the installed sidecar package, never from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Choice sets whose field name ("status") other components use too get a name of their own.
    "ENUM_NAME_OVERRIDES": {
        "StepProgressStatusEnum": "progress.models.StepProgress.Status",
        "SectionKindEnum": "courses.models.Section.Kind",
        "CardKindEnum": "reviews.models.ReviewCard.Kind",
        "CardStateEnum": "reviews.models.ReviewCard.State",
        "NotificationKindEnum": "reviews.models.Notification.Kind",
        "ProgressEventKindEnum": "progress.models.ProgressEvent.Kind",
        "ProgressEventResultEnum": "progress.models.ProgressEvent.Result",
        "EnrollmentSourceEnum": "progress.models.Enrollment.Source",
        "LanguageEnum": "accounts.models.User.Language",
        "ReviewContentEnum": "quizzes.models.ExamPolicy.ReviewContent",
        "ReviewTimingEnum": "quizzes.models.ExamPolicy.ReviewTiming",
        "GradingMethodEnum": "quizzes.models.ExamPolicy.GradingMethod",
        "QuickCheckRatingEnum": "quizzes.models.QuickCheckRating.Rating",
        "ExamItemKindEnum": "quizzes.models.ExamItem.Kind",
        "ReviewRatingEnum": "reviews.rest.serializers.REVIEW_RATINGS",
        "EligibilityReasonEnum": "quizzes.eligibility.REASON_CODES",
        "SyncResultStatusEnum": "progress.services.sync.SYNC_STATUSES",
    },
    # Ids and step numbers in paths, with the range of their columns (lms/converters.py).
    "PATH_CONVERTER_OVERRIDES": {
        "id": {"type": "integer", "format": "int64", "minimum": 0, "maximum": 2**63 - 1},
        "number": {"type": "integer", "format": "int32", "minimum": 0, "maximum": 2**31 - 1},
    },
    # Every operation also documents the one error shape for its 4xx statuses (lms/openapi.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "lms.openapi.error_responses_add",
        "lms.openapi.object_rules_add",
        "lms.openapi.links_add",
    ],
}

# Celery. The default broker needs no server (a folder on disk), so the run command works on a
# fresh machine; production sets CELERY_BROKER_URL=redis://...
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = LERNPFAD_VAR_DIR / "celery-broker"
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
# django-celery-beat's DatabaseScheduler, which also touches this file after each tick when it is
# set (docker-compose.yml does, for the beat's healthcheck: lms/beat.py).
CELERY_BEAT_SCHEDULER = "lms.beat:DatabaseSchedulerWithHeartbeat"
LERNPFAD_BEAT_HEARTBEAT_FILE = env("LERNPFAD_BEAT_HEARTBEAT_FILE", default="")
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# Where the course documents live; import_course and build_fixtures default to these.
LERNPFAD_DOCUMENTS_DIR = BASE_DIR / "fixtures" / "documents"
LERNPFAD_FIXTURES_DIR = BASE_DIR / "fixtures"
# Authored exam item banks in GIFT, one per module (``<module slug>.gift``): demo_setup imports
# and approves them.
LERNPFAD_EXAM_ITEMS_DIR = BASE_DIR / "fixtures" / "exam-items"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    # axes says INFO for every successful log-in; its failures and lockouts are WARNINGs.
    # fpdf2 subsets the certificate font with fontTools, which logs every table at INFO.
    "loggers": {
        "axes": {"level": env("AXES_LOG_LEVEL", default="WARNING")},
        "fontTools": {"level": "WARNING"},
    },
}

# --- Certificates ------------------------------------------------------------------------------
# The Unicode TrueType font the certificate PDF is set in (DejaVu Sans, Debian's
# fonts-dejavu-core; the Dockerfile and .ci/run install it). Without it the PDF falls back to a
# core font that prints Latin-1 only, and `manage.py check` warns (quizzes.checks).
LERNPFAD_PDF_FONT_DIR = env("LERNPFAD_PDF_FONT_DIR", default="/usr/share/fonts/truetype/dejavu")

# LTI 1.3 (lti/): a worker holding a grade send longer than this is taken as lost (killed) and
# the send is tried again; an old signing key stays in the JWKS this long after its successor.
LTI_GRADE_SEND_LEASE_SECONDS = env.int("LTI_GRADE_SEND_LEASE_SECONDS", default=120)
LTI_KEY_GRACE_DAYS = env.int("LTI_KEY_GRACE_DAYS", default=7)
# --- Single sign-on (django-allauth: OIDC and SAML, one identity provider per institution) ------
# After "web": its templates (web/templates/socialaccount/, allauth/layouts/) take the place of
# allauth's. Only the SSO pages are mounted (lms/urls.py: /sso/); log-in, sign-up, passwords,
# the API token log-in and axes stay Lernpfad's own. Operators' guide: docs/operations/sso.md.
INSTALLED_APPS += [
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.openid_connect",
    "allauth.socialaccount.providers.saml",
]
ACCOUNT_ADAPTER = "web.sso.AccountAdapter"
SOCIALACCOUNT_ADAPTER = "web.sso.SocialAccountAdapter"
# Our own sign-up confirms addresses; an address an institution asserts is the institution's.
ACCOUNT_EMAIL_VERIFICATION = "none"
SOCIALACCOUNT_EMAIL_VERIFICATION = "none"
SOCIALACCOUNT_EMAIL_REQUIRED = False
# An identity is the provider's subject (SocialAccount provider + uid), never the e-mail address:
# a provider asserting someone else's address must not log in as them or attach itself to them.
SOCIALACCOUNT_EMAIL_AUTHENTICATION = False
SOCIALACCOUNT_EMAIL_AUTHENTICATION_AUTO_CONNECT = False
# A new identity gets its account without a form (web.sso derives a free user name).
SOCIALACCOUNT_AUTO_SIGNUP = True
# The log-in buttons are forms (POST): a GET never starts a log-in (no CSRF by link).
SOCIALACCOUNT_LOGIN_ON_GET = False
SOCIALACCOUNT_STORE_TOKENS = False
# Log-ins through a provider keep the session as long as a password log-in does.
ACCOUNT_SESSION_REMEMBER = None
# --- end single sign-on ---
