"""Test settings: fast hashing, in-memory mail; DATABASE_URL names the PostgreSQL
(tests/embedded_postgres.py starts one when it is not set)."""

from lms.settings.base import *  # noqa: F403

DEBUG = False
ALLOWED_HOSTS = ["*"]
# Argon2 stays first in base; tests hash with MD5 only to stay fast.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
# Account mails are sent in the request (after the commit) instead of by a worker; the tests of
# the queued path turn this on and count what is handed to the broker.
ACCOUNT_MAILS_QUEUED = False
