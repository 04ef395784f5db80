"""Local development: the embedded PostgreSQL, a folder broker, and mail written to var/mail/
(shown at /dev/outbox/) unless EMAIL_URL names a mail server."""

from lms.settings.base import *  # noqa: F403
from lms.settings.base import env

DEBUG = env.bool("DJANGO_DEBUG", default=True)
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["*"])

# Without EMAIL_URL, mail goes to files in var/mail/ (Django's file backend), which the dev outbox
# page /dev/outbox/ lists, so a new account can be confirmed without a mail server.
if not env("EMAIL_URL", default=""):
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    EMAIL_FILE_PATH = str(LERNPFAD_VAR_DIR / "mail")  # noqa: F405
