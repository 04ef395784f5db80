"""The step page of the admin: commands as lines, the import block folded away, and the
preview, which is the learner's page for a reader who is not enrolled."""

from __future__ import annotations

import re

import pytest

from courses.admin import SectionForm
from courses.models import Section

pytestmark = pytest.mark.django_db


def _reading(html: str) -> list[str]:
    """What the learner reads: the heading, the lead and every section (the forms around them
    differ: a preview reader is signed in, the learner page's test reader is not)."""
    start = html.index('<div class="reading"')
    text = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html[start:])
    parts = re.findall(r'<h1 lang="de">.*?</h1>|<p class="lead".*?</p>', text, re.S)
    return parts + re.findall(r'<section class="section.*?</section>', text, re.S)


def test_the_preview_is_the_learners_page(course, admin_client, client):
    step = course.steps.get(number=12)
    preview = admin_client.get(f"/admin/courses/step/{step.pk}/preview/", HTTP_ACCEPT_LANGUAGE="de")
    assert preview.status_code == 200
    learner_page = client.get(f"/modules/{course.slug}/steps/12/", HTTP_ACCEPT_LANGUAGE="de")
    assert learner_page.status_code == 200
    shown = _reading(preview.content.decode())
    assert len(shown) > 5
    assert shown == _reading(learner_page.content.decode())


def test_a_retired_step_has_a_preview_too_and_an_unknown_one_is_404(course, admin_client):
    step = course.steps.get(number=3)
    type(step).objects.filter(pk=step.pk).update(status="retired")
    assert admin_client.get(f"/admin/courses/step/{step.pk}/preview/").status_code == 200
    assert admin_client.get("/admin/courses/step/999999/preview/").status_code == 404


def test_commands_are_edited_one_per_line(course):
    section = Section.objects.filter(step__module=course).exclude(commands=[]).first()
    form = SectionForm(instance=section)
    # One line each, not the stored JSON list.
    assert form["commands"].value() == "\n".join(section.commands)
    assert "[" not in str(form["commands"])
    data = {
        "position": section.position,
        "kind": section.kind,
        "heading": section.heading,
        "body": section.body,
        "commands": "  nvidia-smi \n\n\ndocker ps\n",
    }
    form = SectionForm(data, instance=section)
    assert form.is_valid(), form.errors
    form.save()
    section.refresh_from_db()
    assert section.commands == ["nvidia-smi", "docker ps"]


def test_the_import_block_is_folded_and_kinds_show_their_headings(course, admin_client):
    step = course.steps.get(number=1)
    page = admin_client.get(
        f"/admin/courses/step/{step.pk}/change/", HTTP_ACCEPT_LANGUAGE="de"
    ).content.decode()
    folded = page[page.index('<fieldset class="module aligned collapse') :]
    folded = folded[: folded.index("</fieldset>")]
    assert "Import (nur lesen)" in folded and step.content_hash in folded
    assert '<option value="verstehen" selected>1. Verstehen</option>' in page
    assert "Seite der Lernenden ansehen" in page
