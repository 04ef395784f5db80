"""Local development: the embedded PostgreSQL, a folder broker and mail printed to the console by
default."""

from lms.settings.base import *  # noqa: F403
from lms.settings.base import env

DEBUG = env.bool("DJANGO_DEBUG", default=True)
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["*"])
