"""Production: secrets must come from the environment; start-up fails clearly without them."""

from django.core.exceptions import ImproperlyConfigured

from lms.settings.base import *  # noqa: F403
from lms.settings.base import CACHES, MIDDLEWARE, env

REQUIRED = ("DJANGO_SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_ALLOWED_HOSTS")
_missing = [name for name in REQUIRED if not env.str(name, default="")]
if _missing:
    raise ImproperlyConfigured(
        "Lernpfad production settings need these environment variables: " + ", ".join(_missing)
    )

SECRET_KEY = env("DJANGO_SECRET_KEY")
DEBUG = False
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# The log-in throttles need one count for all gunicorn workers: with a per-process memory cache
# each of the 3 workers would allow the full rate, three times the limit on password guessing.
# The database holds it (lernpfad_cache, created by migrate: lms.models.CacheEntry), so nothing
# but PostgreSQL is needed to log in, even with Redis down. It costs about six statements per
# log-in request; the exam and review throttles, on every answer and review, stay in the memory
# cache (counted per worker) unless CACHE_URL names a shared one.
CACHES = {
    **CACHES,
    "login": env.cache("LOGIN_CACHE_URL", default="dbcache://lernpfad_cache?max_entries=10000"),
}

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
SESSION_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SECURE = True
CSRF_COOKIE_HTTPONLY = True
CSRF_COOKIE_SAMESITE = "Lax"
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
MIDDLEWARE = [*MIDDLEWARE, "lms.middleware.ContentSecurityPolicyMiddleware"]
