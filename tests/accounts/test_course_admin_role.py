"""The course-admin role "Kursverwaltung" (accounts/roles.py): the group the migration made, what
its members may open, and that the infrastructure is for superusers only (lms/admin_site.py)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, Permission
from django.core.management import call_command

from accounts.roles import COURSE_ADMIN_GROUP, course_admin_permission_codenames
from tests.factories import learner_create

pytestmark = pytest.mark.django_db

INFRASTRUCTURE_PAGES = [
    "/admin/django_celery_beat/periodictask/",
    "/admin/django_celery_beat/crontabschedule/",
    "/admin/django_celery_beat/intervalschedule/",
    "/admin/django_celery_beat/solarschedule/",
    "/admin/django_celery_beat/clockedschedule/",
    "/admin/knox/authtoken/",
    "/admin/accounts/device/",
    "/admin/reviews/reminderdigest/",
    "/admin/axes/accessattempt/",
    "/admin/auth/group/",
]

COURSE_PAGES = [
    "/admin/courses/module/",
    "/admin/courses/step/",
    "/admin/progress/enrollment/",
    "/admin/progress/stepprogress/",
    "/admin/quizzes/examitem/",
    "/admin/quizzes/exampolicy/",
    "/admin/quizzes/examaccommodation/",
    "/admin/quizzes/certificate/",
    "/admin/quizzes/examattempt/",
    "/admin/accounts/user/",
]


@pytest.fixture
def course_admin(client):
    user = learner_create("karla", is_staff=True)
    user.groups.add(Group.objects.get(name=COURSE_ADMIN_GROUP))
    client.force_login(user)
    return user


def test_the_migration_made_the_group_with_exactly_the_roles_permissions():
    group = Group.objects.get(name=COURSE_ADMIN_GROUP)
    held = {
        (p.content_type.app_label, p.codename)
        for p in group.permissions.select_related("content_type")
    }
    assert held == course_admin_permission_codenames()
    assert ("progress", "view_stepprogress") in held
    # Learner progress is read only; infrastructure is not the role's.
    assert ("progress", "change_stepprogress") not in held
    assert not {label for label, _codename in held} & {"knox", "django_celery_beat", "axes"}
    assert ("courses", "change_step") in held and ("quizzes", "change_examitem") in held


@pytest.mark.parametrize("url", COURSE_PAGES)
def test_a_course_admin_opens_the_course_pages(course, course_admin, client, url):
    assert client.get(url).status_code == 200


@pytest.mark.parametrize("url", INFRASTRUCTURE_PAGES)
def test_the_infrastructure_answers_403_to_a_course_admin(course_admin, client, url):
    assert client.get(url).status_code == 403


def test_the_infrastructure_is_for_superusers_even_with_a_permission_given(course_admin, client):
    course_admin.user_permissions.add(
        *Permission.objects.filter(content_type__app_label__in=["django_celery_beat", "knox"])
    )
    assert client.get("/admin/django_celery_beat/periodictask/").status_code == 403
    assert client.get("/admin/knox/authtoken/").status_code == 403
    assert "django_celery_beat" not in client.get("/admin/").content.decode()


def test_the_index_shows_only_course_things(course_admin, client):
    page = client.get("/admin/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "/admin/courses/step/" in page and "/admin/progress/enrollment/" in page
    for url in INFRASTRUCTURE_PAGES:
        assert url not in page
    assert "Lernpfad · Kursverwaltung" in page


@pytest.mark.parametrize("url", INFRASTRUCTURE_PAGES[:6])
def test_a_superuser_still_opens_the_infrastructure(admin_client, url):
    assert admin_client.get(url).status_code == 200


def test_a_course_admin_neither_sets_passwords_nor_grants_permissions(course_admin, client):
    learner = learner_create("lena")
    assert client.get(f"/admin/accounts/user/{learner.pk}/password/").status_code == 403
    assert client.get("/admin/accounts/user/add/").status_code == 403
    page = client.get(f"/admin/accounts/user/{learner.pk}/change/").content.decode()
    assert 'name="display_name"' in page
    assert 'name="is_superuser"' not in page and 'name="groups"' not in page
    # A posted superuser flag is not a field of the form: it is ignored.
    client.post(
        f"/admin/accounts/user/{course_admin.pk}/change/",
        {"username": "karla", "email": "karla@example.org", "is_superuser": "on"},
    )
    course_admin.refresh_from_db()
    assert not course_admin.is_superuser


def test_demo_setup_creates_the_demo_course_admin(capsys):
    call_command("demo_setup")
    from accounts.models import User

    kurs = User.objects.get(username="kurs")
    assert kurs.is_staff and not kurs.is_superuser
    assert list(kurs.groups.values_list("name", flat=True)) == [COURSE_ADMIN_GROUP]
    assert kurs.check_password("lernpfad-kurs-demo")
    assert "kurs  / lernpfad-kurs-demo" in capsys.readouterr().out
