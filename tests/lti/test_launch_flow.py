"""Registration, Deep Linking and launches against the platform process, over HTTP."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.lti.conftest import deep_link, learner_opens

pytestmark = pytest.mark.django_db(transaction=True)
EXAM = "exam:self-hosting-27"


def test_dynamic_registration_records_the_platform_inactive(tool, lti_platform):
    from lti_tool.models import LtiDeployment, LtiRegistration

    from tests.lti.conftest import ScriptlessBrowser

    offer = lti_platform.client.registration_token()
    browser = ScriptlessBrowser()
    confirm = browser.http.get(tool + "/lti/register/", params=offer, timeout=30)
    assert "Lernpfad bei lernpfad-test-platform registrieren" in confirm.text
    done = browser.submit(confirm)
    assert "Lernpfad ist registriert" in done.text
    registration = LtiRegistration.objects.get(issuer=lti_platform.url)
    assert registration.is_active is False
    tool_on_platform = lti_platform.client.state()["tools"]
    (client_id,) = tool_on_platform
    assert registration.client_id == client_id
    assert LtiDeployment.objects.filter(registration=registration, is_active=True).count() == 1
    # The token is used: a second registration with it is refused, nothing more recorded.
    again = browser.submit(confirm)
    assert again.status_code == 502
    assert LtiRegistration.objects.count() == 1


def test_teacher_links_the_exam_and_a_learner_opens_it(registered, lti_platform, course):
    from lti_tool.models import LtiUser

    from lti.models import LinkTarget
    from progress.models import Enrollment

    link = deep_link(lti_platform, EXAM)
    assert link["custom"] == {"lernpfad_target": EXAM}
    state = lti_platform.client.state()
    (column,) = (
        state["line_items"].values()
        if isinstance(state["line_items"], dict)
        else state["line_items"]
    )
    assert column["scoreMaximum"] == 100
    assert column["resourceId"] == EXAM

    browser = learner_opens(lti_platform, link)
    assert browser.landed.endswith("/modules/self-hosting-27/exam/")
    learner = LtiUser.objects.get(sub="learner-1").auth_user
    assert learner is not None and not learner.has_usable_password()
    assert Enrollment.objects.get(learner=learner, module=course).source == "platform"
    target = LinkTarget.objects.get()
    assert target.kind == "exam" and target.line_item.url == column["id"]


def test_a_teacher_who_opens_a_link_administers_that_module_only(
    registered, lti_platform, course, second_module
):
    """A platform's teacher becomes a course admin of the linked module, not of the site."""
    from django.test import Client
    from lti_tool.models import LtiUser

    from courses.models import ModuleAdministrator

    link = deep_link(lti_platform, "module:self-hosting-27")
    learner_opens(lti_platform, link, user="teacher-1")
    teacher = LtiUser.objects.get(sub="teacher-1").auth_user
    assert teacher.is_staff and teacher.groups.filter(name="Kursverwaltung").exists()
    row = ModuleAdministrator.objects.get(user=teacher)
    assert (row.module, row.source) == (course, "platform")
    admin = Client()
    admin.force_login(teacher)
    modules = admin.get(reverse("admin:courses_module_changelist")).context["cl"].queryset
    assert list(modules) == [course]
    other = reverse("admin:quizzes_module_dashboard", args=[second_module.slug])
    assert admin.get(other).status_code == 404
    change = reverse("admin:courses_module_change", args=[second_module.pk])
    assert admin.get(change).status_code == 404


def test_a_learner_from_a_platform_deletes_their_account_with_their_user_name(
    registered, lti_platform
):
    """Without a password, the deletion page asks for the user name; the platform's identity
    (name, address) goes with the account."""
    from lti_tool.models import LtiUser

    from accounts.models import User

    browser = learner_opens(lti_platform, deep_link(lti_platform, "module:self-hosting-27"))
    learner = LtiUser.objects.get(sub="learner-1").auth_user
    url = browser.landed.split("/modules/")[0] + "/settings/delete/"
    form = browser.http.get(url, timeout=30)
    assert "Dein Konto hat hier kein Passwort" in form.text and learner.username in form.text
    wrong = browser.submit(form, action_ends="/settings/delete/", username="someone-else")
    assert "Das ist nicht dein Benutzername. Es wurde nichts gelöscht." in wrong.text
    assert User.objects.filter(pk=learner.pk).exists()
    gone = browser.submit(wrong, action_ends="/settings/delete/", username=learner.username)
    assert gone.url.endswith("/account-deleted/")
    assert not User.objects.filter(pk=learner.pk).exists()
    assert not LtiUser.objects.filter(sub="learner-1").exists()
