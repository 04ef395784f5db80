"""What a review card shows on its front, so it can be answered on its own: the term, or the
question with the term in front unless it names it. Plain Python."""

from __future__ import annotations

DEFINITION = "definition"


def card_front(*, kind: str, term: str, question: str | None) -> str:
    """The front text of a card of ``kind`` made for the step with ``term``."""
    if kind == DEFINITION or not question:
        return term
    if term and term.casefold() in question.casefold():
        return question
    return f"{term}: {question}"
