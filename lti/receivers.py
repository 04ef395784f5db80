"""The quizzes app's announcements, heard here (it must not import lti)."""

from django.db import transaction
from django.dispatch import receiver

from lti import services, tasks
from quizzes.api import exam_grade_changed


@receiver(exam_grade_changed, dispatch_uid="lti.grade_sends_queue")
def grade_sends_queue(sender, *, learner_id, module_id, cause, at, **kwargs):
    """Queue the score sends with the grade change; enqueue them once it commits (the
    periodic sweep catches a task lost in between)."""
    ids = services.grade_sends_queue(learner_id=learner_id, module_id=module_id, cause=cause, at=at)
    if ids:
        # robust: a broker that is down must not turn the learner's submit into an error; the
        # rows are committed and the periodic sweep sends them.
        transaction.on_commit(lambda: [tasks.grade_send.delay(pk) for pk in ids], robust=True)
