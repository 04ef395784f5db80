"""Models of the courses app: content (from documents) and learner progress."""

from courses.models.content import (
    Module,
    QuickCheck,
    Section,
    Step,
    StepQuickCheck,
    TermCard,
)
from courses.models.progress import Enrollment, ProgressEvent, StepNote, StepProgress

__all__ = [
    "Enrollment",
    "Module",
    "ProgressEvent",
    "QuickCheck",
    "Section",
    "Step",
    "StepNote",
    "StepProgress",
    "StepQuickCheck",
    "TermCard",
]
