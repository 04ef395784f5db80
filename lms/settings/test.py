"""Test settings: fast hashing, in-memory mail; DATABASE_URL decides SQLite or PostgreSQL."""

from lms.settings.base import *  # noqa: F403

DEBUG = False
ALLOWED_HOSTS = ["*"]
# Argon2 stays first in base; tests hash with MD5 only to stay fast.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
