"""Repetition across a module's steps: sections whose text is word for word the same in several
steps ("Anwenden: in 32 von 32 Schritten wortgleich") and quick-check questions asked by several
steps, so a course admin sees it before learners do. Plain Python over (heading, body).

A text that differs only by the step's own term and definition counts as the same: a template
with the term filled in teaches nothing new either."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# Text repeated in fewer steps than this is not reported (two steps may share a sentence).
MIN_STEPS = 2


@dataclass(frozen=True)
class RepeatedSection:
    heading: str
    steps: int  # how many steps carry the most common text of this section
    total: int  # how many steps have the section at all


@dataclass(frozen=True)
class RepeatedQuestion:
    question: str
    steps: int
    total: int  # the module's steps


@dataclass(frozen=True)
class RepetitionReport:
    sections: tuple[RepeatedSection, ...] = ()
    questions: tuple[RepeatedQuestion, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.sections or self.questions)


@dataclass(frozen=True)
class StepText:
    """What the report reads of one step: its sections as (heading, body), its questions."""

    sections: Sequence[tuple[str, str]]
    questions: Sequence[str] = ()
    term: str = ""
    definition: str = ""


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()


def _template(body: str, *, term: str, definition: str) -> str:
    """The body with the step's definition and term (whole words, any case) left out."""
    text = _normal(body)
    for own in (_normal(definition), _normal(term)):
        if own:
            text = re.sub(rf"(?<!\w){re.escape(own)}(?!\w)", "…", text)
    return text


def repetition_report(steps: Iterable[StepText]) -> RepetitionReport:
    """Per section heading, the steps sharing its most common text (when at least MIN_STEPS
    do); per quick-check question, the steps asking it. Most repeated first."""
    steps = list(steps)
    bodies: dict[str, Counter] = defaultdict(Counter)
    headings: dict[str, str] = {}
    asked: Counter = Counter()
    questions: dict[str, str] = {}
    for step in steps:
        for heading, body in step.sections:
            key = _normal(heading)
            headings.setdefault(key, heading)
            if body.strip():
                bodies[key][_template(body, term=step.term, definition=step.definition)] += 1
        for question in {_normal(q): q for q in step.questions if q.strip()}.items():
            asked[question[0]] += 1
            questions.setdefault(question[0], question[1])
    sections = [
        RepeatedSection(heading=headings[key], steps=top, total=sum(texts.values()))
        for key, texts in bodies.items()
        for _text, top in texts.most_common(1)
        if top >= MIN_STEPS
    ]
    repeated = [
        RepeatedQuestion(question=questions[key], steps=count, total=len(steps))
        for key, count in asked.items()
        if count >= MIN_STEPS
    ]
    return RepetitionReport(
        sections=tuple(sorted(sections, key=lambda s: (-s.steps, s.heading))),
        questions=tuple(sorted(repeated, key=lambda q: (-q.steps, q.question))),
    )
