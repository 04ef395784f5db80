"""From parsed documents to the rows the database holds (pure Python): the importer and the
fixture builder both start from this plan, so they cannot disagree; the renderers turn rows back
into document lines.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from courses.documents import (
    DocumentError,
    ModuleDoc,
    SectionDoc,
    TermCardDoc,
    gettext_noop,
    slugify_term,
)
from courses.quick_check_roles import StepChecks, quick_check_roles


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def quick_check_hash(question: str, answer: str) -> str:
    return _sha256(f"{question}\x1f{answer}")


# The models' SlugField length; a longer slug is cut (a clash this causes is reported).
SLUG_MAX_LENGTH = 120


def step_slug(term: str) -> str:
    return slugify_term(term)[:SLUG_MAX_LENGTH].rstrip("-") or "step"


def module_slug(series: str, number: int) -> str:
    return step_slug(f"{series} {number}")


@dataclass(frozen=True)
class SectionRow:
    position: int
    kind: str
    heading: str
    body: str
    is_truncated: bool
    commands: tuple[str, ...] = ()

    def fields(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "kind": self.kind,
            "heading": self.heading,
            "body": self.body,
            "is_truncated": self.is_truncated,
            "commands": list(self.commands),
        }


@dataclass(frozen=True)
class QuickCheckRow:
    question: str
    answer: str

    @property
    def text_hash(self) -> str:
        return quick_check_hash(self.question, self.answer)


@dataclass(frozen=True)
class StepRow:
    slug: str
    number: int
    total: int
    term: str
    lead: str
    definition: str
    level: str
    as_of: str | None  # ISO date
    source_count: int | None
    source_status: str
    footer: str
    source_line: int
    source_hash: str
    sections: tuple[SectionRow, ...]
    quick_checks: tuple[QuickCheckRow, ...]

    def fields(self) -> dict[str, Any]:
        """The Step model's own columns (content_hash included), in the fixtures' order."""
        names = ("slug", *SERVED_STEP_FIELDS, "source_line", "source_hash", "content_hash")
        return {name: getattr(self, name) for name in names}

    @property
    def content_hash(self) -> str:
        return step_content_hash(
            {name: getattr(self, name) for name in SERVED_STEP_FIELDS},
            [s.fields() for s in self.sections],
            [(q.question, q.answer) for q in self.quick_checks],
        )


@dataclass(frozen=True)
class ModuleRow:
    slug: str
    series: str
    number: int
    title: str
    header: str
    source_path: str
    exam_header: str
    exam_heading: str
    exam_blocks: tuple[tuple[str, ...], ...]
    steps: tuple[StepRow, ...] = field(default=())

    def quick_check_roles(self) -> dict[str, str]:
        """The role of each of the module's quick checks, by text hash."""
        return quick_check_roles(
            StepChecks(
                definition=step.definition,
                quick_checks=tuple((q.text_hash, q.question, q.answer) for q in step.quick_checks),
            )
            for step in self.steps
        )

    def fields(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "series": self.series,
            "number": self.number,
            "title": self.title,
            "header": self.header,
            "source_path": self.source_path,
            "exam_header": self.exam_header,
            "exam_heading": self.exam_heading,
            "exam_blocks": [list(block) for block in self.exam_blocks],
            "exam_block_count": len(self.exam_blocks),
        }


@dataclass(frozen=True)
class TermCardRow:
    path: str
    module_title: str
    slug: str
    term: str
    kind_line: str
    title_line: str
    lead: str
    command: str
    source_path: str
    source_hash: str
    sections: tuple[SectionRow, ...]

    def fields(self) -> dict[str, Any]:
        names = ("slug", *SERVED_CARD_FIELDS, "source_path", "source_hash", "content_hash")
        return {name: getattr(self, name) for name in names}

    @property
    def content_hash(self) -> str:
        return card_content_hash(
            {name: getattr(self, name) for name in SERVED_CARD_FIELDS},
            [s.fields() for s in self.sections],
        )


@dataclass(frozen=True)
class CoursePlan:
    modules: tuple[ModuleRow, ...]
    cards: tuple[TermCardRow, ...]


# The step fields a client sees; a change to any of them must change the ETag.
SERVED_STEP_FIELDS = (
    "number",
    "total",
    "term",
    "lead",
    "definition",
    "level",
    "as_of",
    "source_count",
    "source_status",
    "footer",
)


SERVED_CARD_FIELDS = ("term", "kind_line", "title_line", "lead", "command")


def card_content_hash(
    served_fields: Mapping[str, Any], sections: Iterable[Mapping[str, Any]]
) -> str:
    """Hash of everything a term card serves (part of its step's ETag)."""
    payload = {name: served_fields[name] for name in SERVED_CARD_FIELDS}
    payload["sections"] = _sections_payload(sections)
    return _sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False))


def step_content_hash(
    served_fields: Mapping[str, Any],
    sections: Iterable[Mapping[str, Any]],
    quick_checks: Iterable[tuple[str, str]],
) -> str:
    """Hash of everything the step detail serves (used as its ETag)."""
    payload = {
        "fields": {name: _jsonable(served_fields[name]) for name in SERVED_STEP_FIELDS},
        "sections": _sections_payload(sections),
        "quick_checks": [list(qc) for qc in quick_checks],
    }
    return _sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False))


def _sections_payload(sections: Iterable[Mapping[str, Any]]) -> list[list]:
    return [
        [s["kind"], s["heading"], s["body"], bool(s["is_truncated"]), list(s["commands"])]
        for s in sections
    ]


def _jsonable(value: Any) -> Any:
    return value.isoformat() if hasattr(value, "isoformat") else value


def _section_rows(sections: Sequence[SectionDoc]) -> tuple[SectionRow, ...]:
    return tuple(
        SectionRow(
            position=index,
            kind=section.kind,
            heading=section.heading,
            body="\n".join(section.lines),
            is_truncated=section.truncated,
            commands=tuple(section.commands),
        )
        for index, section in enumerate(sections, start=1)
    )


def plan_module(doc: ModuleDoc) -> ModuleRow:
    steps = []
    seen: dict[str, int] = {}
    for step in doc.steps:
        slug = step_slug(step.term)
        if slug in seen:
            raise DocumentError(
                doc.path,
                step.line,
                gettext_noop("step %(step)s repeats the term of step %(other)s (%(term)s)"),
                {"step": step.number, "other": seen[slug], "term": repr(step.term)},
            )
        seen[slug] = step.number
        steps.append(
            StepRow(
                slug=slug,
                number=step.number,
                total=step.total,
                term=step.term,
                lead="\n".join(step.lead),
                definition=step.definition,
                level=step.level,
                as_of=step.as_of.isoformat() if step.as_of else None,
                source_count=step.source_count,
                source_status=step.status,
                footer=step.footer,
                source_line=step.line,
                source_hash=step.source_hash,
                sections=_section_rows(step.sections),
                quick_checks=tuple(QuickCheckRow(q.question, q.answer) for q in step.quick_checks),
            )
        )
    exam = doc.exam
    return ModuleRow(
        slug=module_slug(doc.series, doc.number),
        series=doc.series,
        number=doc.number,
        title=doc.title,
        header=doc.header,
        source_path=PurePath(doc.path).name,
        exam_header=exam.header if exam else "",
        exam_heading=exam.heading if exam else "",
        exam_blocks=tuple(tuple(block) for block in exam.blocks) if exam else (),
        steps=tuple(steps),
    )


def plan_card(doc: TermCardDoc) -> TermCardRow:
    return TermCardRow(
        path=doc.path,
        module_title=doc.module_title,
        slug=step_slug(doc.term),
        term=doc.term,
        kind_line=doc.kind_line,
        title_line=doc.title_line,
        lead="\n".join(doc.lead),
        command=doc.command or "",
        source_path=PurePath(doc.path).name,
        source_hash=doc.source_hash,
        sections=_section_rows(doc.sections),
    )


def plan_documents(docs: Iterable[ModuleDoc | TermCardDoc]) -> CoursePlan:
    """Plan every document; raises DocumentError (file:line) for conflicts between them."""
    modules: list[ModuleRow] = []
    cards: list[TermCardRow] = []
    for doc in docs:
        if isinstance(doc, ModuleDoc):
            row = plan_module(doc)
            clash = next((m for m in modules if m.slug == row.slug), None)
            if clash:
                raise DocumentError(
                    doc.path,
                    1,
                    gettext_noop("module %(slug)s is also defined in %(other)s"),
                    {"slug": repr(row.slug), "other": clash.source_path},
                )
            modules.append(row)
        else:
            card = plan_card(doc)
            # Two documents for one card would overwrite each other: the import is not lossless.
            twin = next(
                (c for c in cards if (c.module_title, c.slug) == (card.module_title, card.slug)),
                None,
            )
            if twin:
                raise DocumentError(
                    doc.path,
                    2,
                    gettext_noop("term card %(term)s is also defined in %(other)s"),
                    {"term": repr(card.term), "other": twin.source_path},
                )
            cards.append(card)
    return CoursePlan(modules=tuple(modules), cards=tuple(cards))


def render_step_lines(step: Mapping[str, Any], sections: Iterable[Mapping[str, Any]]) -> list[str]:
    """The step's document block rebuilt from stored values (non-empty lines only)."""
    lines = [f"Schritt {step['number']} / {step['total']}", step["term"]]
    lines += [line for line in str(step["lead"]).split("\n") if line]
    lines.append(step["level"])
    for section in sections:
        lines.append(section["heading"])
        lines += [line for line in str(section["body"]).split("\n") if line]
    if step.get("footer"):
        lines.append(step["footer"])
    return lines


def render_card_lines(card: Mapping[str, Any], sections: Iterable[Mapping[str, Any]]) -> list[str]:
    """The term card rebuilt from stored values (non-empty lines only)."""
    lines = [card["kind_line"], card["title_line"]]
    lines += [line for line in str(card["lead"]).split("\n") if line]
    for section in sections:
        lines.append(section["heading"])
        lines += [line for line in str(section["body"]).split("\n") if line]
    return lines
