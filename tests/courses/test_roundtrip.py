"""Lossless import: every step and card rendered back from the database equals its source."""

import pytest

from courses.content_plan import render_card_lines, render_step_lines
from courses.documents import normalize_lines
from courses.models import Module, Step, TermCard

pytestmark = pytest.mark.django_db


def _section_dicts(sections):
    return [{"heading": s.heading, "body": s.body} for s in sections.order_by("position")]


def _step_blocks(path) -> dict[int, list[str]]:
    """Source blocks by step number: non-empty lines from 'Schritt i / n' to the footer."""
    lines = [line for line in normalize_lines(path.read_bytes(), path=str(path)) if line]
    blocks: dict[int, list[str]] = {}
    current = None
    for line in lines:
        if line.startswith("Schritt ") and " / " in line:
            current = int(line.split()[1])
            blocks[current] = []
        elif current is not None and line == lines[0]:
            current = None  # the repeated header opens the exam block
        if current is not None:
            blocks[current].append(line)
    return blocks


def test_every_step_renders_back_line_by_line(course, seed_paths):
    module_path = next(p for p in seed_paths if p.name.startswith("003_"))
    blocks = _step_blocks(module_path)
    assert len(blocks) == 32
    for step in Step.objects.filter(module=course).order_by("number"):
        fields = {
            "number": step.number,
            "total": step.total,
            "term": step.term,
            "lead": step.lead,
            "level": step.level,
            "footer": step.footer,
        }
        rendered = render_step_lines(fields, _section_dicts(step.sections))
        assert rendered == blocks[step.number], f"step {step.number} differs"


def test_header_and_exam_block_are_kept(course, seed_paths):
    module_path = next(p for p in seed_paths if p.name.startswith("003_"))
    lines = [line for line in normalize_lines(module_path.read_bytes(), path="x") if line]
    exam_start = lines.index("Abschlussprüfung") - 1
    rendered = [course.exam_header, course.exam_heading]
    rendered += [line for block in course.exam_blocks for line in block]
    assert lines[0] == course.header
    assert rendered == lines[exam_start:]


def test_every_card_renders_back_line_by_line(course, seed_paths):
    for path in (p for p in seed_paths if not p.name.startswith("003_")):
        source = [line for line in normalize_lines(path.read_bytes(), path=str(path)) if line]
        card = TermCard.objects.get(source_path=path.name)
        rendered = render_card_lines(
            {"kind_line": card.kind_line, "title_line": card.title_line, "lead": card.lead},
            _section_dicts(card.sections),
        )
        # The source glues the command to the next heading ("nvidia-smiQuick-Check"):
        # the import splits it, so the rendered card has that one line as its two parts.
        glued = next(i for i, line in enumerate(source) if line.endswith("Quick-Check"))
        expected = [
            *source[:glued],
            source[glued].removesuffix("Quick-Check"),
            "Quick-Check",
            *source[glued + 1 :],
        ]
        assert rendered == expected, path.name


def test_unseen_document_imports_losslessly(db, module_document):
    from courses.services.importing import course_import

    path = module_document(series="Homelab", number=3, level="B2")
    course_import(paths=[path])
    module = Module.objects.get(slug="homelab-3")
    assert module.title == "Netzwerk und DNS"
    assert module.exam_block_count == 0
    blocks = _step_blocks(path)
    steps = module.steps.order_by("number")
    assert [s.term for s in steps] == ["DNS", "Reverse Proxy", "VLAN", "DHCP", "Firewall"]
    for step in steps:
        fields = {
            "number": step.number,
            "total": step.total,
            "term": step.term,
            "lead": step.lead,
            "level": step.level,
            "footer": step.footer,
        }
        assert render_step_lines(fields, _section_dicts(step.sections)) == blocks[step.number]
    assert steps[0].level == "B2" and str(steps[0].as_of) == "2025-01-31"
    assert steps[0].source_status == "reviewed"
    assert steps[0].quick_checks.count() == 2
