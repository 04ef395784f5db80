"""What a review card shows on its front, so that it can be answered on its own. Plain Python.

A definition card shows its step's term. A quick-check card shows its question, and in front of
it the step's term unless the question already names it: "Was ist der Zweck?" alone cannot be
answered, "GPU compute: Was ist der Zweck?" can. Both come with the module's title as context
(``DueCard.module_title``), which the review page shows above the front.
"""

from __future__ import annotations

DEFINITION = "definition"


def card_front(*, kind: str, term: str, question: str | None) -> str:
    """The front text of a card of ``kind`` made for the step with ``term``."""
    if kind == DEFINITION or not question:
        return term
    if term and term.casefold() in question.casefold():
        return question
    return f"{term}: {question}"
