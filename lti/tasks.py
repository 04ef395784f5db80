"""Celery tasks of the LTI app: sending scores, the retry sweep, the roster sync."""

from celery import shared_task

from lti import services


@shared_task(name="lti.tasks.grade_send", ignore_result=True)
def grade_send(grade_send_id: int) -> str | None:
    """Send one score; a failure is recorded on the row and retried by the sweep."""
    return services.grade_send(grade_send_id=grade_send_id)


@shared_task(name="lti.tasks.grade_sends_retry", ignore_result=True)
def grade_sends_retry() -> int:
    """Enqueue every send that is due: first tries whose task was lost, retries after a
    refusal, sends held by a worker that died."""
    due = services.grade_sends_due()
    for pk in due:
        grade_send.delay(pk)
    return len(due)


@shared_task(name="lti.tasks.roster_sync", ignore_result=True)
def roster_sync(context_id: int) -> None:
    """Bring a platform course's members in (NRPS)."""
    services.roster_sync(context_id=context_id)
