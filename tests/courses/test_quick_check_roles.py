"""What a quick check is for (courses.quick_check_roles): the rules, the seed module's quick
checks after the import, and the roles following the content (re-import, admin edit)."""

from __future__ import annotations

import pytest

from courses.content_plan import plan_documents
from courses.models import QuickCheck, StepQuickCheck
from courses.quick_check_roles import StepChecks, is_instruction, quick_check_roles
from courses.services.importing import (
    course_import,
    documents_parse,
    quick_check_roles_refresh,
)


def _steps(*checks_per_step, definitions=None):
    definitions = definitions or [f"Definition {i}." for i in range(len(checks_per_step))]
    return [
        StepChecks(definition=definition, quick_checks=tuple(checks))
        for definition, checks in zip(definitions, checks_per_step, strict=True)
    ]


GENERIC = ("g", "Wie prüfst du sicher?", "Sollzustand notieren, Belege sichern.")


def test_a_line_in_half_the_steps_and_at_least_three_is_generic():
    four = _steps([GENERIC], [GENERIC], [], [])
    assert quick_check_roles(four) == {"g": "flashcard"}  # 2 of 4: half, but only two steps
    six = _steps([GENERIC], [GENERIC], [GENERIC], [], [], [])
    assert quick_check_roles(six) == {"g": "generic"}  # 3 of 6
    seven = _steps([GENERIC], [GENERIC], [GENERIC], [], [], [], [])
    assert quick_check_roles(seven) == {"g": "flashcard"}  # 3 of 7: less than half
    # A module of one or two steps keeps its checks, however often they recur.
    assert quick_check_roles(_steps([GENERIC], [GENERIC])) == {"g": "flashcard"}


def test_a_line_repeating_the_definition_is_the_definition_card():
    echo = ("e", "Was ist der Zweck?", "  cuda ist  NVIDIAs Plattform  ")
    steps = _steps([echo], [], definitions=["CUDA ist NVIDIAs Plattform.", "Etwas anderes."])
    assert quick_check_roles(steps) == {"e": "definition"}
    other = ("o", "Was ist der Zweck?", "CUDA ist NVIDIAs Plattform für GPUs.")
    steps = _steps([other], [], definitions=["CUDA ist NVIDIAs Plattform.", "x"])
    assert quick_check_roles(steps) == {"o": "flashcard"}  # not the same text


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Erkläre die Rolle im Modul und nenne Ein- sowie Ausgabe.", True),
        ("„Nenne drei Gründe.“", True),
        ("Beschreibe den Ablauf.", True),
        ("Explain the role of the driver.", True),
        ("Prüfe mit nvidia-smi den belegten Speicher.", False),  # does answer a "Wie …?"
        ("Führe nvidia-smi aus.", False),
        ("Mit dem Befehl nvidia-smi.", False),
        ("Eine Nennung reicht.", False),
        ("", False),
    ],
)
def test_an_instruction_starts_with_an_imperative_that_asks_for_an_answer(answer, expected):
    assert is_instruction(answer) is expected


def test_an_instruction_makes_no_card_and_the_rules_apply_in_order():
    instruction = ("i", "Was ist der Zweck?", "Erkläre die Rolle im Modul.")
    plain = ("p", "Welcher Befehl?", "nvidia-smi.")
    steps = _steps([instruction, plain], [], [])
    assert quick_check_roles(steps) == {"i": "instruction", "p": "flashcard"}
    # An instruction every step shows is generic first.
    steps = _steps([instruction], [instruction], [instruction])
    assert quick_check_roles(steps) == {"i": "generic"}


def test_the_seed_modules_quick_checks(seed_paths):
    """Six per step: the definition again, and five lines all 32 steps share (one of them an
    instruction): none is a flashcard."""
    (module,) = plan_documents(documents_parse(seed_paths)).modules
    roles = module.quick_check_roles()
    assert sorted(roles.values()).count("definition") == 32
    assert sorted(roles.values()).count("generic") == 5
    assert set(roles.values()) == {"definition", "generic"}


@pytest.mark.django_db
def test_the_import_stores_the_roles_and_follows_the_module_as_it_grows(module_document):
    """ "Wie prüfst du es? Mit ip addr show." in every step: a flashcard while the module has two
    steps, generic once it has five (the re-import changes the role)."""
    two = module_document(terms=("DNS", "VLAN"))
    course_import(paths=[two])
    line = QuickCheck.objects.get(question="Wie prüfst du es?")
    assert line.role == "flashcard"
    five = module_document(terms=("DNS", "VLAN", "DHCP", "Firewall", "NTP"))
    report = course_import(paths=[five])
    line.refresh_from_db()
    assert line.role == "generic" and report.rows_written > 0
    own = QuickCheck.objects.get(question="Was ist DNS?")
    assert own.role == "flashcard"
    # Importing the same documents again writes nothing.
    assert course_import(paths=[five]).rows_written == 0


@pytest.mark.django_db
def test_an_admin_edit_decides_the_roles_again(course):
    step = course.steps.get(number=1)
    generic = QuickCheck.objects.filter(module=course, role="generic").first()
    # The admin takes the generic line out of all but two steps: it is no longer "most steps".
    StepQuickCheck.objects.filter(quick_check=generic).exclude(step__number__in=(1, 2)).delete()
    assert quick_check_roles_refresh(module_id=course.pk) == 1
    generic.refresh_from_db()
    assert generic.role == "flashcard"
    assert quick_check_roles_refresh(module_id=course.pk) == 0
    assert step.quick_check_links.filter(quick_check=generic).exists()


@pytest.mark.django_db
def test_editing_a_quick_check_in_the_admin_decides_its_role_again(
    course, flashcards, admin_client
):
    """An admin who turns a flashcard's answer into an instruction makes it a reflection prompt
    (QuickCheckAdmin.save_model)."""
    quick_check = flashcards["own"][2]
    response = admin_client.post(
        f"/admin/courses/quickcheck/{quick_check.pk}/change/",
        {
            "question": quick_check.question,
            "answer": "Erkläre, was nvidia-smi anzeigt.",
            "is_active": "on",
        },
    )
    assert response.status_code == 302, response.content[:500]
    quick_check.refresh_from_db()
    assert quick_check.role == "instruction"
