"""What a quick check is for: a flashcard, the step's definition again, a generic reflection
prompt, or an instruction. Plain Python; the import (``courses.content_plan``), the admin's edits
and a migration store the result in ``QuickCheck.role``.

The rules, in this order (the first that holds decides):

1. **definition** - its answer is the definition of a step that shows it (case, whitespace and
   the closing full stop aside). It *is* that step's definition card: rating it on the step page
   is that card's review, and it makes no second card with the same back.
2. **generic** - it recurs in most steps of its module: shown by at least ``GENERIC_SHARE``
   (half) of the module's steps, and by at least ``GENERIC_MIN_STEPS`` of them, so a module of
   one or two steps keeps its checks. "Wie prüfst du sicher? Sollzustand notieren …" in all 32
   steps names no step, so as a flashcard it cannot be answered on its own: the step page shows
   it as a reflection prompt, without a rating, and it makes no review card.
3. **instruction** - its "answer" is a task for the learner ("Erkläre die Rolle im Modul …"):
   the first word is an imperative from ``INSTRUCTION_VERBS``, verbs that ask the learner to
   produce an answer (explain, name, describe …). There is nothing to check a recall against,
   so it is a reflection prompt too. Procedural imperatives ("Prüfe mit nvidia-smi …",
   "Führe … aus") are not in the list: they do answer a "Wie …?" question.
4. **flashcard** - everything else: a review card whose front names its step's term.
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
    """A step as the rules see it: its definition and the quick checks it shows, each as
    (key, question, answer); the key is whatever names a quick check for the caller (its text
    hash in the import plan, its id in the database)."""

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
    """The role of every quick check the module's ``steps`` show, by key (rules: module
    docstring). ``steps`` are the module's current steps, all of them: the share is theirs."""
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
