"""Models of the courses app: content (from documents) and, later, learner progress."""

from courses.models.content import (
    Module,
    QuickCheck,
    Section,
    Step,
    StepQuickCheck,
    TermCard,
)
from courses.models.progress import Enrollment, StepProgress

__all__ = [
    "Enrollment",
    "Module",
    "QuickCheck",
    "Section",
    "Step",
    "StepProgress",
    "StepQuickCheck",
    "TermCard",
]
