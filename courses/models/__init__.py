"""Models of the courses app: content (from documents) and, later, learner progress."""

from courses.models.content import (
    Module,
    QuickCheck,
    Section,
    Step,
    StepQuickCheck,
    TermCard,
)

__all__ = ["Module", "QuickCheck", "Section", "Step", "StepQuickCheck", "TermCard"]
