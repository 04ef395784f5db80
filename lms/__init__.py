"""Lernpfad project package: settings, URLs, Celery app and cross-cutting pieces."""

from lms.celery import app as celery_app

__all__ = ("celery_app",)
