"""A module (or a term card) as a document again, admin edits written back.

Blocks still stored as imported are copied byte for byte from the document last published (the
base); only edited or new steps are rendered from the rows, so an unedited module comes back as
imported. Without a base the whole document is rendered. Reads only, fixed queries.
"""

from __future__ import annotations

from courses.content_plan import plan_card, plan_module, render_card_lines
from courses.documents import (
    EXAM_HEADING,
    DocumentError,
    ModuleDoc,
    TermCardDoc,
    parse_document,
)
from courses.import_preview import stored_step_lines
from courses.models import Module, Section, Step, StepQuickCheck, TermCard


def normalized_text(data: bytes | str) -> str:
    """A document's text with LF line endings (as stored, as downloaded)."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _spaced(lines: list[str]) -> list[str]:
    """Rendered lines in the documents' layout: a blank line after each."""
    out: list[str] = []
    for line in lines:
        out += [line, ""]
    return out


def _pruefen_body(section: Section, links: list[tuple[str, str]]) -> str:
    """The "5. Prüfen" lines from the step's quick checks when an admin edited those."""
    shown = [line for line in section.body.split("\n") if line]
    parsed = []
    for line in shown:
        question, separator, answer = line.partition("? ")
        parsed.append((question + "?", answer.strip()) if separator else None)
    if parsed == links:
        return section.body
    return "\n".join(f"{question} {answer}" for question, answer in links)


def _step_block(step: Step, sections: list[Section], links: list[tuple[str, str]]) -> list[str]:
    rendered_sections = []
    for section in sections:
        if section.kind == "pruefen" and links:
            section = Section(heading=section.heading, body=_pruefen_body(section, links))
        rendered_sections.append(section)
    return _spaced(stored_step_lines(step, rendered_sections))


def module_document(*, module_id: int, base_text: str | None = None) -> str:
    """The module's document: ``base_text`` (the document last published) with every block an
    admin edited replaced by the stored content. Five queries."""
    module = Module.objects.get(pk=module_id)
    steps = list(Step.objects.active().filter(module_id=module_id).order_by("number"))
    sections: dict[int, list[Section]] = {step.pk: [] for step in steps}
    for section in Section.objects.filter(step_id__in=list(sections)).order_by(
        "step_id", "position"
    ):
        sections[section.step_id].append(section)
    links: dict[int, list[tuple[str, str]]] = {step.pk: [] for step in steps}
    for step_id, question, answer in (
        StepQuickCheck.objects.filter(step_id__in=list(links))
        .order_by("step_id", "position")
        .values_list("step_id", "quick_check__question", "quick_check__answer")
    ):
        links[step_id].append((question, answer))

    base = _module_base(base_text, module.slug)
    if base is None:
        lines = _spaced([module.header])
        for step in steps:
            lines += _step_block(step, sections[step.pk], links[step.pk])
        lines += _exam_lines(module)
        return "\n".join(lines).rstrip("\n") + "\n"

    doc, base_lines, rows = base
    starts = [step.line for step in doc.steps]
    exam_start = doc.exam.line if doc.exam else len(base_lines) + 1
    blocks = {
        step.slug: base_lines[start - 1 : end - 1]
        for step, start, end in zip(rows.steps, starts, [*starts[1:], exam_start], strict=True)
    }
    base_by_slug = {row.slug: row for row in rows.steps}
    out = base_lines[: starts[0] - 1] if module.header == doc.header else _spaced([module.header])
    for step in steps:
        row = base_by_slug.get(step.slug)
        unedited = (
            row is not None and row.number == step.number and row.content_hash == step.content_hash
        )
        if unedited:
            out += blocks[step.slug]
        else:
            out += _step_block(step, sections[step.pk], links[step.pk])
    exam_same = (module.exam_header, module.exam_heading, module.exam_blocks) == (
        rows.exam_header,
        rows.exam_heading,
        [list(block) for block in rows.exam_blocks],
    )
    if exam_same:
        out += base_lines[exam_start - 1 :]
    else:
        out += _exam_lines(module)
    text = "\n".join(out)
    return text if text.endswith("\n") or not base_text.endswith("\n") else text + "\n"


def _module_base(base_text: str | None, slug: str):
    if not base_text:
        return None
    text = normalized_text(base_text)
    try:
        doc = parse_document(text, path=slug)
    except DocumentError:
        return None
    if not isinstance(doc, ModuleDoc):
        return None
    rows = plan_module(doc)
    if rows.slug != slug:
        return None
    return doc, text.split("\n"), rows


def _exam_lines(module: Module) -> list[str]:
    if not module.exam_heading:
        return []
    lines = [module.exam_header, module.exam_heading or EXAM_HEADING]
    lines += [line for block in module.exam_blocks for line in block]
    return _spaced(lines)


def card_document(*, card_id: int, base_text: str | None = None) -> str:
    """A term card as a document: ``base_text`` when the card is stored as imported, else
    rendered from the rows. Two queries."""
    card = TermCard.objects.get(pk=card_id)
    sections = list(card.sections.order_by("position"))
    if base_text:
        text = normalized_text(base_text)
        try:
            doc = parse_document(text, path=card.source_path)
        except DocumentError:
            doc = None
        if isinstance(doc, TermCardDoc) and plan_card(doc).content_hash == card.content_hash:
            return text
    lines = render_card_lines(
        {"kind_line": card.kind_line, "title_line": card.title_line, "lead": card.lead},
        [{"heading": s.heading, "body": s.body} for s in sections],
    )
    return "\n".join(_spaced(lines)).rstrip("\n") + "\n"
