"""Every admin page a course admin opens speaks German: a walk over every page of every model the
`Kursverwaltung` role may see (list, add, change, delete, history and each admin's own pages),
with data in every table, that fails on any text the German catalog does not have.

Misses are caught where they happen: every gettext, ngettext and pgettext call made while a
page renders is checked against the German catalog (Lernpfad's and Django's merged), so an
English string is found even when the page shows it only in a title or a help text."""

from __future__ import annotations

import contextlib

import pytest
from django.contrib import admin
from django.contrib.auth.models import Group
from django.urls import NoReverseMatch, reverse

from tests.factories import exam_bank_approve, learner_create

pytestmark = pytest.mark.django_db

CONTEXT_SEPARATOR = "\x04"


@contextlib.contextmanager
def german_catalog_misses():
    """Collect every message looked up in German that the catalog does not have."""
    from django.utils.translation import trans_real

    cls = trans_real.DjangoTranslation
    plain, plural = cls.gettext, cls.ngettext
    misses: set[str] = set()

    def gettext(self, message):
        result = plain(self, message)
        missing = result == message and message.strip() and self._catalog.get(message) is None
        if self.to_language() == "de" and missing:
            misses.add(message.split(CONTEXT_SEPARATOR)[-1])
        return result

    def ngettext(self, singular, plural_, number):
        result = plural(self, singular, plural_, number)
        if self.to_language() == "de" and result in (singular, plural_):
            try:
                self._catalog.plural(singular, number)
            except KeyError:
                misses.add(singular.split(CONTEXT_SEPARATOR)[-1])
        return result

    cls.gettext, cls.ngettext = gettext, ngettext
    try:
        yield misses
    finally:
        cls.gettext, cls.ngettext = plain, plural


@pytest.fixture
def kurs(client):
    user = learner_create("kurs", is_staff=True)
    user.groups.add(Group.objects.get(name="Kursverwaltung"))
    client.force_login(user)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "de"
    return client


@pytest.fixture
def every_table_filled(course, make_learner, enroll, client_for, exam):
    """A course with an approved bank, two learners who took the exam (one passed), notes,
    progress and reviews: every admin list has a row to open."""
    exam_bank_approve(course)
    for name, correct in (("petra", 10), ("paul", 3)):
        user = make_learner(name, display_name=name.title(), full_name=f"{name.title()} Prüfling")
        enroll(user)
        exam.take(client_for(user), correct=correct)
    return course


def _admin_urls(course):
    """(url, label) of every admin page without a parameter or with one we can fill."""
    for model, model_admin in admin.site._registry.items():
        first = model._default_manager.order_by("pk").first()
        for pattern in model_admin.get_urls():
            name = getattr(pattern, "name", None)
            if not name or name.endswith(("_autocomplete", "_jsi18n")):
                continue
            converters = getattr(pattern.pattern, "converters", {})
            kwargs = {}
            for parameter in converters:
                if parameter in ("object_id", "pk", "id") and first is not None:
                    kwargs[parameter] = first.pk
                elif parameter == "slug":
                    kwargs[parameter] = course.slug
            if len(kwargs) != len(converters):
                continue
            try:
                yield reverse(f"admin:{name}", kwargs=kwargs), name
            except NoReverseMatch:
                continue


def test_every_admin_page_a_course_admin_opens_is_german(every_table_filled, kurs):
    pages = [("/admin/", "index"), *_admin_urls(every_table_filled)]
    opened, misses_by_page = 0, {}
    for url, name in pages:
        with german_catalog_misses() as misses:
            response = kurs.get(url)
        if response.status_code in (302, 403, 404, 405):
            continue  # not this role's page, a download's redirect, or a POST-only endpoint
        assert response.status_code == 200, (url, response.status_code)
        if "html" not in response.get("Content-Type", ""):
            continue
        opened += 1
        if misses:
            misses_by_page[name] = sorted(misses)
    assert opened > 40
    assert misses_by_page == {}


def test_what_the_admin_calls_an_object_is_a_german_sentence_with_names(every_table_filled):
    from django.utils import translation

    from progress.models import Enrollment
    from quizzes.models import ExamAccommodation, ExamPolicy

    petra = Enrollment.objects.get(learner__username="petra")
    policy = ExamPolicy.objects.get(module=every_table_filled)
    accommodation = ExamAccommodation.objects.create(
        learner=petra.learner, module=every_table_filled, extra_time_minutes=15, extra_attempts=1
    )
    with translation.override("de"):
        assert str(petra) == "Petra Prüfling in Modul 27"
        assert str(policy) == "Prüfungsregeln · Modul 27"
        assert str(accommodation) == "Petra Prüfling in Modul 27: +15 min, +1 Versuch(e)"
    with translation.override("en"):
        assert str(policy) == "Exam policy · module 27"
