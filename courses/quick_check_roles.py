"""What a quick check is for (plain Python; stored in ``QuickCheck.role``). The first rule
that holds decides:

1. **definition** - its answer is the definition of a step that shows it: it is that step's
   definition card, so it makes no second card with the same back.
2. **generic** - shown by at least half (``GENERIC_SHARE``) and ``GENERIC_MIN_STEPS`` of the
   module's steps: it names no step, so it is a reflection prompt without a card.
3. **instruction** - its answer starts with an imperative asking the learner to produce one
   (``INSTRUCTION_VERBS``; procedural ones like "Prüfe …" do answer a "Wie …?"): a prompt too.
4. **flashcard** - everything else.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

FLASHCARD = "flashcard"
DEFINITION = "definition"
GENERIC = "generic"
INSTRUCTION = "instruction"
ROLES = (FLASHCARD, DEFINITION, GENERIC, INSTRUCTION)
# The roles the step page shows as a reflection prompt (no rating, no review card).
REFLECTION_ROLES = frozenset({GENERIC, INSTRUCTION})

GENERIC_SHARE = 0.5
GENERIC_MIN_STEPS = 3

# Imperatives (du-form, and English for English content) that ask the learner to produce an
# answer rather than giving one. Lower case; compared with the answer's first word.
INSTRUCTION_VERBS = frozenset(
    {
        # German
        "analysiere",
        "begründe",
        "beschreibe",
        "beurteile",
        "bewerte",
        "definiere",
        "diskutiere",
        "erkläre",
        "erläutere",
        "fasse",
        "formuliere",
        "gib",
        "liste",
        "nenne",
        "ordne",
        "reflektiere",
        "schildere",
        "skizziere",
        "stelle",
        "überlege",
        "vergleiche",
        "zähle",
        # English
        "compare",
        "define",
        "describe",
        "discuss",
        "explain",
        "justify",
        "list",
        "name",
        "outline",
        "reflect",
        "state",
        "summarise",
        "summarize",
    }
)

_FIRST_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


@dataclass(frozen=True)
class StepChecks:
    """A step's definition and the quick checks it shows as (key, question, answer); the key is
    the caller's (a text hash in the plan, an id in the database)."""

    definition: str
    quick_checks: tuple[tuple[Hashable, str, str], ...]


def _normalized(text: str) -> str:
    """Case, runs of whitespace and closing punctuation aside."""
    return " ".join(text.split()).casefold().rstrip(" .!?;:")


def is_instruction(answer: str) -> bool:
    """The answer's first word is an imperative that asks the learner to produce an answer."""
    match = _FIRST_WORD.search(answer)
    return bool(match) and match.group(0).casefold() in INSTRUCTION_VERBS


def quick_check_roles(steps: Iterable[StepChecks]) -> dict[Hashable, str]:
    """The role of every quick check shown by ``steps`` (all the module's current steps), by key."""
    steps = list(steps)
    shown_by: dict[Hashable, int] = {}
    texts: dict[Hashable, tuple[str, str]] = {}
    echoes_definition: set[Hashable] = set()
    for step in steps:
        definition = _normalized(step.definition)
        for key in {key for key, _q, _a in step.quick_checks}:
            shown_by[key] = shown_by.get(key, 0) + 1
        for key, question, answer in step.quick_checks:
            texts[key] = (question, answer)
            if definition and _normalized(answer) == definition:
                echoes_definition.add(key)
    roles: dict[Hashable, str] = {}
    for key, (_question, answer) in texts.items():
        if key in echoes_definition:
            roles[key] = DEFINITION
        elif shown_by[key] >= GENERIC_MIN_STEPS and shown_by[key] >= GENERIC_SHARE * len(steps):
            roles[key] = GENERIC
        elif is_instruction(answer):
            roles[key] = INSTRUCTION
        else:
            roles[key] = FLASHCARD
    return roles
