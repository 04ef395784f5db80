"""What the quizzes app announces to apps above it, which it must not import.

``exam_grade_changed`` is sent inside the transaction that changes a learner's final exam grade
(an attempt finalized, a regrade), so a receiver's own writes commit or roll back with it.
Arguments: ``learner_id``, ``module_id``, ``cause`` (``"attempt:<id>"`` or ``"regrade:<id>"``:
one change, named once) and ``at`` (when it happened).
"""

from django.dispatch import Signal

exam_grade_changed = Signal()
