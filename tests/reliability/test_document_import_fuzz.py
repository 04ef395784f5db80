"""Mutated seed documents against a database that already holds the course.

Hypothesis drops, duplicates, swaps and transplants lines, cuts files short, inserts garbage
bytes and re-encodes files. Every mutant either imports losslessly (the database then equals the
mutated documents, rendered back line by line) or fails with a ``DocumentError`` that names the
file and a line in it, and leaves every content row exactly as it was. Nothing else may escape
``course_import`` (no IntegrityError, DataError, KeyError...), and nothing is half-imported.

``tests/courses/test_documents.py`` fuzzes the pure parser; this suite goes through the database.
Examples: ``LERNPFAD_FUZZ_EXAMPLES`` (CI default 60; ``make fuzz`` raises it).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from pathlib import Path

import pytest
from django.db import transaction
from hypothesis import HealthCheck, event, example, given, note, settings
from hypothesis import strategies as st

from courses.content_plan import module_slug, render_card_lines, render_step_lines, step_slug
from courses.documents import DocumentError, ModuleDoc, TermCardDoc, parse_document
from courses.models import Module, QuickCheck, Section, Step, StepQuickCheck, TermCard
from courses.services.importing import course_import

pytestmark = pytest.mark.django_db

SEED_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "documents"
SEED_PATHS = sorted(SEED_DIR.glob("*.txt"))
SEED_BYTES = {path.name: path.read_bytes() for path in SEED_PATHS}
SEED_LINES = {name: data.splitlines(keepends=True) for name, data in SEED_BYTES.items()}
EXAMPLES = int(os.environ.get("LERNPFAD_FUZZ_EXAMPLES", "60"))
# CI draws the same mutants every run; `make fuzz` (LERNPFAD_FUZZ_SEED=random) draws new ones.
DERANDOMIZE = os.environ.get("LERNPFAD_FUZZ_SEED", "8") != "random"
CONTENT_MODELS = (Module, Step, Section, QuickCheck, StepQuickCheck, TermCard)
ERROR_RE = r"^{path}:(\d+): \S"


# --- mutations -----------------------------------------------------------------------------


def _line_mutation(name: str, lines: list[bytes], op: tuple) -> list[bytes]:
    kind = op[0]
    if not lines:
        return lines
    i = op[1] % len(lines)
    if kind == "drop":
        return lines[:i] + lines[i + 1 :]
    if kind == "duplicate":
        return [*lines[: i + 1], lines[i], *lines[i + 1 :]]
    if kind == "swap":
        j = op[2] % len(lines)
        swapped = list(lines)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        return swapped
    if kind == "transplant":
        # A line copied in from another seed document (a copy-paste mistake).
        donor = SEED_LINES[sorted(SEED_LINES)[op[2] % len(SEED_LINES)]]
        return [*lines[:i], donor[op[3] % len(donor)], *lines[i + 1 :]]
    if kind == "replace_text":
        newline = b"\n" if lines[i].endswith(b"\n") else b""
        return [*lines[:i], op[2].encode("utf-8") + newline, *lines[i + 1 :]]
    raise AssertionError(kind)


def _byte_mutation(data: bytes, op: tuple) -> bytes:
    kind = op[0]
    if kind == "truncate":
        return data[: op[1] % (len(data) + 1)]
    if kind == "garbage":
        at = op[1] % (len(data) + 1)
        return data[:at] + op[2] + data[at:]
    if kind == "reencode":
        # The document saved in another encoding (characters it cannot hold become '?').
        return data.decode("utf-8").encode(op[1], errors="replace")
    raise AssertionError(kind)


index = st.integers(min_value=0, max_value=10_000)
line_ops = st.one_of(
    st.tuples(st.just("drop"), index),
    st.tuples(st.just("duplicate"), index),
    st.tuples(st.just("swap"), index, index),
    st.tuples(st.just("transplant"), index, index, index),
    st.tuples(st.just("replace_text"), index, st.text(max_size=40)),
)
byte_ops = st.one_of(
    st.tuples(st.just("truncate"), st.integers(min_value=0, max_value=200_000)),
    st.tuples(
        st.just("garbage"),
        st.integers(min_value=0, max_value=200_000),
        st.binary(min_size=1, max_size=8),
    ),
    st.tuples(
        st.just("reencode"),
        st.sampled_from(["latin-1", "cp1252", "utf-16", "utf-8-sig", "mac_roman", "ascii"]),
    ),
)
mutants = st.tuples(
    st.sampled_from(sorted(SEED_BYTES)),
    st.lists(line_ops, max_size=3),
    st.lists(byte_ops, max_size=2),
).filter(lambda m: bool(m[1] or m[2]))


def mutate(name: str, line_ops_: list[tuple], byte_ops_: list[tuple]) -> bytes:
    lines = list(SEED_LINES[name])
    for op in line_ops_:
        lines = _line_mutation(name, lines, op)
    data = b"".join(lines)
    for op in byte_ops_:
        if op[0] == "reencode":
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                continue  # already garbage; re-encoding needs text
        data = _byte_mutation(data, op)
    return data


# --- what the database holds ---------------------------------------------------------------


def content_fingerprint() -> str:
    """A hash over every content row (all columns), so any write at all changes it."""
    digest = hashlib.sha256()
    for model in CONTENT_MODELS:
        for row in model.objects.order_by("pk").values_list():
            digest.update(repr(row).encode())
        digest.update(b"|")
    return digest.hexdigest()


def _sections(owner) -> list[dict]:
    return [{"heading": s.heading, "body": s.body} for s in owner.sections.order_by("position")]


def assert_database_equals(docs: list[ModuleDoc | TermCardDoc]) -> None:
    """The imported documents, rendered back from the database, equal their source lines."""
    for doc in docs:
        if isinstance(doc, ModuleDoc):
            module = Module.objects.get(slug=module_slug(doc.series, doc.number))
            assert module.header == doc.header
            active = list(module.steps.filter(status=Step.Status.ACTIVE).order_by("number"))
            assert [s.number for s in active] == [s.number for s in doc.steps]
            for step, step_doc in zip(active, doc.steps, strict=True):
                fields = {
                    name: getattr(step, name)
                    for name in ("number", "total", "term", "lead", "level", "footer")
                }
                rendered = render_step_lines(fields, _sections(step))
                assert rendered == list(step_doc.source_lines), f"step {step.number} differs"
                links = step.quick_check_links.select_related("quick_check").order_by("position")
                assert [(q.quick_check.question, q.quick_check.answer) for q in links] == [
                    (q.question, q.answer) for q in step_doc.quick_checks
                ]
            if doc.exam is not None:
                assert (module.exam_header, module.exam_heading) == (
                    doc.exam.header,
                    doc.exam.heading,
                )
                assert [tuple(block) for block in module.exam_blocks] == list(doc.exam.blocks)
        else:
            card = TermCard.objects.select_related("step").get(
                module__title=doc.module_title, slug=step_slug(doc.term)
            )
            fields = {"kind_line": card.kind_line, "title_line": card.title_line, "lead": card.lead}
            assert render_card_lines(fields, _sections(card)) == list(doc.source_lines)
            assert card.step.is_active and card.step.slug == card.slug


# --- the property ---------------------------------------------------------------------------


@pytest.fixture
def document_dir(tmp_path) -> Path:
    for path in SEED_PATHS:
        shutil.copy(path, tmp_path / path.name)
    return tmp_path


@settings(
    max_examples=EXAMPLES,
    derandomize=DERANDOMIZE,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(mutant=mutants)
# Found by this test: a card's title line pasted into another card made both documents write
# one card (the second silently overwrote the first).
@example(mutant=(SEED_PATHS[1].name, [("transplant", 1, 0, 1)], []))
def test_mutated_document_imports_losslessly_or_fails_cleanly(course, document_dir, mutant):
    name, line_ops_, byte_ops_ = mutant
    data = mutate(name, line_ops_, byte_ops_)
    note(f"mutant of {name}: line ops {line_ops_}, byte ops {byte_ops_}")
    target = document_dir / name
    paths = [document_dir / path.name for path in SEED_PATHS]
    # Each example starts from the imported seed course and is rolled back afterwards.
    with transaction.atomic():
        before = content_fingerprint()
        target.write_bytes(data)
        try:
            course_import(paths=paths)
        except DocumentError as error:
            match = re.match(ERROR_RE.format(path=re.escape(str(target))), str(error))
            assert match, f"error does not name the mutated file: {error}"
            assert 1 <= int(match.group(1)) <= max(1, data.count(b"\n") + data.count(b"\r") + 1)
            assert content_fingerprint() == before, "a failed import wrote rows"
            event(f"rejected: {error.message.split(':')[0][:40]}")
        else:
            docs = [parse_document(path.read_bytes(), path=str(path)) for path in paths]
            assert_database_equals(docs)
            # Importing the same documents again writes nothing.
            assert course_import(paths=paths).rows_written == 0
            event("imported")
        finally:
            target.write_bytes(SEED_BYTES[name])
        transaction.set_rollback(True)


def test_fingerprint_sees_a_single_changed_column(course):
    """Guard for the property above: the fingerprint must notice the smallest write."""
    before = content_fingerprint()
    Section.objects.filter(pk=Section.objects.order_by("pk").values("pk")[:1]).update(body="x")
    assert content_fingerprint() != before


def test_unchanged_seed_documents_reimport_without_writes(course, document_dir):
    paths = [document_dir / path.name for path in SEED_PATHS]
    before = content_fingerprint()
    assert course_import(paths=paths).rows_written == 0
    assert content_fingerprint() == before
    assert_database_equals([parse_document(p.read_bytes(), path=str(p)) for p in paths])
