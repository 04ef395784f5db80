"""Celery tasks of the quizzes app (scheduled by django-celery-beat, see migration 0002)."""

from celery import shared_task

from quizzes.services.attempt_finalize import exam_attempts_finalize_expired as finalize_expired


@shared_task(name="quizzes.tasks.exam_attempts_finalize_expired", ignore_result=True)
def exam_attempts_finalize_expired() -> int:
    """Grade attempts whose deadline plus grace has passed, with the answers saved in time."""
    return finalize_expired()
