"""GIFT import and export of the item bank: the service (all or nothing, duplicates), the
round trip, the Moodle sample graded through the attempt services, and the admin pages."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation

from quizzes.models import ExamAttemptItem, ExamItem
from tests.factories import exam_typed_answer, exam_typed_items_create, learner_create

pytestmark = pytest.mark.django_db

SAMPLE = Path(__file__).parent / "data" / "moodle-sample.gift"
BROKEN = "::Gut::Frage {=a ~b}\n\n::Kaputt::Frage\n{=a ~b\n\n::Zahl::Wie viel? {#vierzehn}\n"


@pytest.fixture
def empty_module(db):
    from courses.models import Module

    return Module.objects.create(
        slug="leer-1", series="Leer", number=1, title="Ein leeres Modul", header="Leer 1"
    )


def _item_fields(module) -> list[tuple]:
    return list(
        ExamItem.objects.filter(module=module)
        .order_by("id")
        .values_list("kind", "prompt", "options", "correct_keys", "answer_key", "explanation")
    )


def test_round_trip_export_import_into_an_empty_module_export_again(course, bank, empty_module):
    """The seed bank (generated items), typed items and a titled hand-written one: exported,
    imported into an empty module, exported again: the same text, the same items."""
    from quizzes.selectors import item_bank_gift
    from quizzes.services.gift_import import exam_items_gift_import

    exam_typed_items_create(course, count=2)
    ExamItem.objects.create(
        module=course,
        kind="multiple_choice",
        title="Präzisionen: 16 Bit",
        prompt="Welche Formate haben 16 Bit? {Klammern} = ~ # : \\",
        options=[
            {"key": "x", "text": "FP16"},
            {"key": "y", "text": "BF16"},
            {"key": "z", "text": "FP32"},
        ],
        correct_keys=["x", "y"],
        explanation="FP16 und BF16.",
    )
    # An item switched off is not drawn, so not exported either.
    switched_off = ExamItem.objects.filter(module=course).order_by("id").first()
    ExamItem.objects.filter(pk=switched_off.pk).update(is_active=False)
    exported = item_bank_gift(module_id=course.id)
    drawable = ExamItem.objects.filter(module=course, is_active=True, is_retired=False).count()
    assert exported.count("\n\n") == drawable  # one block per drawable item

    with translation.override("en"):
        report = exam_items_gift_import(
            module_id=empty_module.id, data=exported, source="bank.gift"
        )
    assert report.created == drawable
    # The empty module has none of the steps the items name: one warning per step, and the
    # tags stay in the comments, so the export is the same text.
    assert report.plan.warnings and all(
        "the module has no active step" in warning for warning in report.plan.warnings
    )
    assert len(report.plan.warnings) == len(set(re.findall(r"\[tag:step:([\w-]+)\]", exported)))
    again = item_bank_gift(module_id=empty_module.id)
    assert again == exported

    original = ExamItem.objects.filter(module=course, is_active=True, is_retired=False)
    copies = ExamItem.objects.filter(module=empty_module)
    for source, copy in zip(original.order_by("id"), copies.order_by("id"), strict=True):
        assert (copy.kind, copy.prompt, copy.explanation, copy.title) == (
            source.kind,
            source.prompt,
            source.explanation,
            source.title,
        )
        assert [o["text"] for o in copy.options] == [o["text"] for o in source.options]
        assert copy.answer_key == source.answer_key
        position = {o["key"]: i for i, o in enumerate(source.options)}
        copy_keys = [o["key"] for o in copy.options]
        assert sorted(copy.correct_keys) == sorted(
            copy_keys[position[key]] for key in source.correct_keys
        )
        assert copy.origin == "hand_written" and copy.step_id is None and copy.is_active


def test_importing_the_same_file_again_adds_nothing(empty_module):
    from quizzes.services.gift_import import exam_items_gift_import

    text = SAMPLE.read_bytes()
    first = exam_items_gift_import(module_id=empty_module.id, data=text, source="s.gift")
    assert first.created == 13
    with translation.override("en"):
        second = exam_items_gift_import(module_id=empty_module.id, data=text, source="s.gift")
    assert second.created == 0 and len(second.plan.duplicates) == 13
    assert any("already in the bank" in warning for warning in second.plan.warnings)
    assert ExamItem.objects.filter(module=empty_module).count() == 13


def test_a_malformed_file_imports_nothing_and_names_file_and_line(empty_module):
    from quizzes.services.gift_import import GiftImportFailed, exam_items_gift_import

    with translation.override("en"), pytest.raises(GiftImportFailed) as failed:
        exam_items_gift_import(module_id=empty_module.id, data=BROKEN, source="broken.gift")
    assert failed.value.problems == [
        "broken.gift:4: The answer block opened here is not closed with }.",
        "broken.gift:6: vierzehn is not a number: write {#14}, {#14:0.5} (value:tolerance) or "
        "{#13..15} (range).",
    ]
    assert not ExamItem.objects.filter(module=empty_module).exists()


def test_problems_are_in_the_admins_language(empty_module):
    from quizzes.services.gift_import import GiftImportFailed, exam_items_gift_plan

    with translation.override("de"), pytest.raises(GiftImportFailed) as failed:
        exam_items_gift_plan(module_id=empty_module.id, data=BROKEN, source="kaputt.gift")
    assert failed.value.problems[0] == (
        "kaputt.gift:4: Der hier geöffnete Antwortblock wird nicht mit } geschlossen."
    )
    assert failed.value.problems[1].startswith("kaputt.gift:6: vierzehn ist keine Zahl")


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"\xff\xfe F\x00r\x00a\x00g\x00e\x00", "s.gift:1: The file is not UTF-8 text"),
        (b"x" * 1_000_001, "s.gift: the file is larger than 1000 kB."),
        (b"// nichts\n", "s.gift:1: The file holds no question to import."),
    ],
)
def test_files_that_cannot_be_read(empty_module, data, problem):
    from quizzes.services.gift_import import GiftImportFailed, exam_items_gift_plan

    with translation.override("en"), pytest.raises(GiftImportFailed) as failed:
        exam_items_gift_plan(module_id=empty_module.id, data=data, source="s.gift")
    assert failed.value.problems[0].startswith(problem)


def test_approving_on_import_records_the_reviewer(empty_module):
    """Imported items start as drafts; an admin may approve them on import (who and when is
    recorded)."""
    from quizzes.services.gift_import import exam_items_gift_import

    admin = learner_create("autorin", is_staff=True)
    exam_items_gift_import(module_id=empty_module.id, data="Frage {T}", source="a.gift")
    exam_items_gift_import(
        module_id=empty_module.id, data="Zweite {F}", source="b.gift", approved_by_id=admin.pk
    )
    draft, approved = ExamItem.objects.order_by("id")
    assert draft.status == "draft"
    assert approved.status == "approved" and approved.reviewed_by_id == admin.pk
    assert approved.reviewed_at is not None


# --- the Moodle sample, answered through the attempt services -----------------------------------


@pytest.fixture
def sample_exam(course, policy):
    """The seed module's bank is the Moodle sample alone: 13 items, all drawn."""
    from quizzes.services.gift_import import exam_items_gift_import

    report = exam_items_gift_import(module_id=course.id, data=SAMPLE.read_bytes(), source="s")
    policy.items_per_attempt = report.created
    policy.required_step_share = 0
    policy.save()
    return report


def _take(learner, course, answer):
    from quizzes.services.attempt_answers import exam_attempt_answers_save
    from quizzes.services.attempt_finalize import exam_attempt_submit
    from quizzes.services.attempt_start import exam_attempt_start

    started = exam_attempt_start(
        learner_id=learner.pk, module_slug=course.slug, full_name_given=True
    )
    rows = list(ExamAttemptItem.objects.filter(attempt=started.attempt).order_by("position"))
    exam_attempt_answers_save(
        learner_id=learner.pk,
        attempt_id=started.attempt.pk,
        answers=[answer(row) for row in rows],
    )
    done = exam_attempt_submit(learner=learner, attempt_id=started.attempt.pk)
    return rows, done


def _right(row):
    if row.kind in ("short_answer", "numerical", "matching"):
        return exam_typed_answer(row, right=True)
    return {"item": row.pk, "selected": list(row.correct_keys)}


def _wrong(row):
    if row.kind in ("short_answer", "numerical", "matching"):
        return exam_typed_answer(row, right=False)
    others = [o["key"] for o in row.options if o["key"] not in row.correct_keys]
    return {"item": row.pk, "selected": others[:1]}


def test_the_moodle_sample_imports_and_grades_right_answers_right(
    make_learner, enroll, course, sample_exam
):
    learner = make_learner()
    enroll(learner)
    rows, done = _take(learner, course, _right)
    assert {row.kind for row in rows} == {
        "single_choice",
        "multiple_choice",
        "true_false",
        "short_answer",
        "numerical",
        "matching",
    }
    assert [item.is_correct for item in done.items] == [True] * 13
    assert done.attempt.result.score_percent == Decimal("100.00")


def test_the_moodle_sample_grades_wrong_answers_wrong(make_learner, enroll, course, sample_exam):
    learner = make_learner()
    enroll(learner)
    _rows, done = _take(learner, course, _wrong)
    assert [item.is_correct for item in done.items] == [False] * 13
    assert done.attempt.result.score_percent == Decimal("0.00")


@pytest.mark.parametrize(
    ("title", "answer", "right"),
    [
        ("Umlaute", {"text": "praezision"}, True),
        ("Umlaute", {"text": "GENAUIGKEIT."}, True),
        ("Umlaute", {"text": "Präzisionen"}, False),
        ("Compiler", {"text": "gcc"}, False),  # the 50 % answer was left out
        ("Compiler", {"text": "nvidia cuda compiler"}, True),
        ("VRAM 7B", {"number": "13,5"}, True),
        ("VRAM 7B", {"number": "14.5"}, True),
        ("VRAM 7B", {"number": "14,6"}, False),
        ("Bereich", {"number": "7"}, True),
        ("Bereich", {"number": "9,0"}, True),
        ("Bereich", {"number": "9,01"}, False),
        ("Mehrere Werte", {"number": "32"}, True),
        ("Mehrere Werte", {"number": "8"}, False),  # 50 %: left out
        ("FP16 Speicherbedarf", {"selected": "1 Byte"}, False),  # partial credit: wrong
        ("FP16 Speicherbedarf", {"selected": "2 Byte"}, True),
        ("Präzisionen", {"selected": "FP16"}, False),  # all or nothing
        ("Präzisionen", {"selected": "FP16|BF16"}, True),
        ("Escapes : Zeichen", {"selected": "ein Doppelpunkt"}, True),
        ("Klartext", {"selected": "Richtig"}, True),
    ],
)
def test_single_items_of_the_sample(
    make_learner, enroll, course, sample_exam, title, answer, right
):
    learner = make_learner()
    enroll(learner)
    item_id = ExamItem.objects.get(module=course, title=title).pk

    def respond(row):
        if row.item_id != item_id:
            return _wrong(row)
        if "selected" in answer:
            texts = answer["selected"].split("|")
            return {
                "item": row.pk,
                "selected": [o["key"] for o in row.options if o["text"] in texts],
            }
        return {"item": row.pk, **answer}

    _rows, done = _take(learner, course, respond)
    assert done.attempt.result.correct_count == (1 if right else 0)


# --- the admin ----------------------------------------------------------------------------------


@pytest.fixture
def admin_client_(client, db):
    admin = learner_create("admin", is_staff=True, is_superuser=True)
    client.force_login(admin)
    return client


def _upload(name: str, content: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="text/plain")


def test_admin_previews_then_imports_a_gift_file(admin_client_, empty_module):
    url = "/admin/quizzes/examitem/gift-import/"
    page = admin_client_.get(url, HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200 and b'enctype="multipart/form-data"' in page.content
    preview = admin_client_.post(
        url,
        {"module": empty_module.slug, "file": _upload("sample.gift", SAMPLE.read_bytes())},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert preview.status_code == 200
    text = preview.content.decode()
    assert "sample.gift: 13 new questions for leer-1." in text
    assert "single choice: 3" in text and "matching: 1" in text and "numerical: 3" in text
    assert "sample.gift:70: Skipped: an essay question" in text
    assert not ExamItem.objects.exists()  # a preview writes nothing
    payload = preview.context["payload"]
    done = admin_client_.post(url, {"payload": payload}, HTTP_ACCEPT_LANGUAGE="en")
    assert done.status_code == 302
    assert done["Location"].endswith(f"?module__id__exact={empty_module.id}")
    assert ExamItem.objects.filter(module=empty_module).count() == 13
    listed = admin_client_.get(done["Location"], HTTP_ACCEPT_LANGUAGE="en")
    assert "13 question(s) imported from sample.gift into leer-1" in listed.content.decode()


def test_admin_shows_every_problem_of_a_broken_file_and_imports_nothing(
    admin_client_, empty_module
):
    response = admin_client_.post(
        "/admin/quizzes/examitem/gift-import/",
        {"module": empty_module.slug, "file": _upload("kaputt.gift", BROKEN.encode())},
        HTTP_ACCEPT_LANGUAGE="de",
    )
    assert response.status_code == 200
    text = response.content.decode()
    assert "kaputt.gift:4: Der hier geöffnete Antwortblock wird nicht mit } geschlossen." in text
    assert "kaputt.gift:6: vierzehn ist keine Zahl" in text
    assert "Die Datei wurde nicht importiert" in text
    assert not ExamItem.objects.exists()


def test_admin_refuses_a_changed_preview(admin_client_, empty_module):
    preview = admin_client_.post(
        "/admin/quizzes/examitem/gift-import/",
        {"module": empty_module.slug, "file": _upload("a.gift", b"Frage {T}")},
    )
    payload = preview.context["payload"]
    response = admin_client_.post(
        "/admin/quizzes/examitem/gift-import/",
        {"payload": payload[:-2] + "xx"},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 200
    assert "The preview is too old or was changed" in response.content.decode()
    assert not ExamItem.objects.exists()


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("fragen.pdf", b"Frage {T}", "Choose a .gift or .txt file."),
        ("leer.gift", b"", "The submitted file is empty."),
    ],
)
def test_admin_upload_form_checks_the_file(admin_client_, empty_module, name, content, message):
    response = admin_client_.post(
        "/admin/quizzes/examitem/gift-import/",
        {"module": empty_module.slug, "file": _upload(name, content)},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 200 and message in response.content.decode()


def test_admin_exports_a_module_and_selected_items(admin_client_, course, bank):
    from quizzes.selectors import item_bank_gift

    page = admin_client_.get("/admin/quizzes/examitem/gift-export/")
    assert page.status_code == 200 and course.slug.encode() in page.content
    download = admin_client_.get(f"/admin/quizzes/examitem/gift-export/?module={course.slug}")
    assert download.status_code == 200
    assert download["Content-Type"] == "text/plain; charset=utf-8"
    assert download["Content-Disposition"] == f'attachment; filename="{course.slug}.gift"'
    assert download.content.decode() == item_bank_gift(module_id=course.id)
    assert admin_client_.get("/admin/quizzes/examitem/gift-export/?module=nope").status_code == 404
    chosen = list(ExamItem.objects.filter(module=course).order_by("id")[:3])
    action = admin_client_.post(
        "/admin/quizzes/examitem/",
        {"action": "export_gift", "_selected_action": [item.pk for item in chosen]},
    )
    assert action.status_code == 200
    assert action.content.decode() == item_bank_gift(item_ids=[item.pk for item in chosen])
    assert action.content.decode().count("\n\n") == 3


def test_gift_pages_need_staff(client, course):
    learner = learner_create("lena")
    client.force_login(learner)
    for url in ("/admin/quizzes/examitem/gift-import/", "/admin/quizzes/examitem/gift-export/"):
        response = client.get(url)
        assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_admin_change_form_edits_a_typed_item(admin_client_, course):
    """A hand-written short-answer item through the admin form (accepted answers as rows, no
    JSON); an item without an accepted answer is refused with the reason."""
    url = "/admin/quizzes/examitem/add/"
    base = {
        "module": course.pk,
        "kind": "short_answer",
        "prompt": "Wie heißt der Compiler?",
        "text_format": "plain",
        "title": "",
        "explanation": "",
        "is_active": "on",
        "status": "draft",
    }
    refused = admin_client_.post(url, base)
    assert refused.status_code == 200
    assert "Geben Sie mindestens eine akzeptierte Antwort an." in refused.content.decode()
    saved = admin_client_.post(url, {**base, "accepted_rows-0-text": "nvcc"})
    assert saved.status_code == 302, saved.content.decode()[:2000]
    item = ExamItem.objects.get()
    assert item.answer_key == {"accepted": ["nvcc"]}
    assert item.options == [] and item.correct_keys == []


def test_a_step_tag_links_the_item_to_the_modules_step_and_an_unknown_one_warns(course):
    """An imported question with ``[tag:step:<slug>]`` belongs to that active step of the module
    (the failed attempt's result page names it); a slug the module lacks is a warning, and the
    question comes in without a step. The export writes the tag back."""
    from quizzes.selectors import item_bank_gift
    from quizzes.services.gift_import import exam_items_gift_import, exam_items_gift_plan

    text = (
        "// [tag:step:vram-fragmentation]\n::Bekannt::Fragmentierung ist ein Leck. {F}\n\n"
        "// [tag:step:gibt-es-nicht]\n::Unbekannt::Ein Schritt fehlt. {T}\n"
    )
    with translation.override("de"):
        plan = exam_items_gift_plan(module_id=course.pk, data=text, source="schritte.gift")
    assert [w for w in plan.warnings if "Schritt" in w] == [
        "schritte.gift:5: Das Modul hat keinen aktiven Schritt „gibt-es-nicht“: 1 Frage wird "
        "ohne Schritt importiert (das Tag bleibt in ihrem Kommentar)."
    ]
    exam_items_gift_import(module_id=course.pk, data=text, source="schritte.gift")
    known = ExamItem.objects.get(module=course, title="Bekannt")
    assert (known.step.slug, known.step.module_id) == ("vram-fragmentation", course.pk)
    unknown = ExamItem.objects.get(module=course, title="Unbekannt")
    assert unknown.step_id is None
    exported = item_bank_gift(item_ids=[known.pk, unknown.pk])
    assert "// [tag:step:vram-fragmentation]\n::Bekannt::" in exported
    assert "// [tag:step:gibt-es-nicht]\n::Unbekannt::" in exported
