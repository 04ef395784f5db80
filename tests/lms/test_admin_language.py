"""The admin speaks the admin's language: every list and add page in German names its models,
columns, fields and filters in German (no "module zur Änderung auswählen"), and in English for
an English admin. The names come from each model's translated verbose names."""

from __future__ import annotations

import html
import re

import pytest
from django.apps import apps
from django.contrib import admin
from django.urls import reverse
from django.utils import translation

pytestmark = pytest.mark.django_db

OWN_APPS = ("accounts", "courses", "progress", "quizzes", "reviews")
# Words that are the same in both languages.
SAME_IN_BOTH = {"status", "code", "token", "position", "name", "definition", "id", "ID"}

TEXT_OF = re.compile(
    r"<(?:th[^>]*scope=\"col\"[^>]*|label[^>]*|h1|h2|h3|title|option[^>]*)>(.*?)</", re.S
)


def _labels(language: str) -> dict[str, str]:
    """English label -> label in ``language`` of every model and field of Lernpfad's apps."""
    result = {}
    for app_label in OWN_APPS:
        for model in apps.get_app_config(app_label).get_models():
            opts = model._meta
            names = [opts.verbose_name, opts.verbose_name_plural]
            names += [f.verbose_name for f in opts.get_fields() if hasattr(f, "verbose_name")]
            for name in names:
                with translation.override("en"):
                    english = str(name)
                with translation.override(language):
                    result[english] = str(name)
    return result


def test_every_model_and_field_has_a_german_name():
    untranslated = sorted(
        english
        for english, german in _labels("de").items()
        if english == german and english not in SAME_IN_BOTH
    )
    assert untranslated == []


def _admin_pages():
    for model, model_admin in admin.site._registry.items():
        opts = model._meta
        yield model, f"admin:{opts.app_label}_{opts.model_name}_changelist"
        # An admin whose "add" is another page (the import's upload, tests/publishing) is left out.
        if (
            model_admin.has_add_permission.__func__ is admin.ModelAdmin.has_add_permission
            and type(model_admin).add_view is admin.ModelAdmin.add_view
        ):
            yield model, f"admin:{opts.app_label}_{opts.model_name}_add"


ADMIN_PAGES = sorted({(m._meta.label, name) for m, name in _admin_pages()})


@pytest.mark.parametrize(("label", "url_name"), ADMIN_PAGES)
def test_every_admin_page_speaks_german(course, admin_client, label, url_name):
    model = apps.get_model(label)
    response = admin_client.get(reverse(url_name), HTTP_ACCEPT_LANGUAGE="de")
    assert response.status_code == 200, url_name
    page = response.content.decode()
    texts = {
        re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", text))).strip().rstrip(":")
        for text in TEXT_OF.findall(page)
    }
    with translation.override("de"):
        german_name = str(model._meta.verbose_name)
        german_plural = str(model._meta.verbose_name_plural)
    if url_name.endswith("_changelist"):
        # "… zum Ansehen auswählen" where the admin may only look (e.g. learner progress).
        assert {
            f"{german_name} zur Änderung auswählen",
            f"{german_name} zum Ansehen auswählen",
        } & texts, texts
    else:
        assert f"{german_name} hinzufügen" in texts
    assert "Lernpfad · Kursverwaltung" in page
    if model._meta.app_label in OWN_APPS:
        assert german_plural in page
        english_only = {
            english
            for english, german in _labels("de").items()
            if english.lower() != german.lower() and english not in SAME_IN_BOTH
        }
        # Compared case-insensitively: Django capitalizes a column's first letter.
        english_lower = {name.lower() for name in english_only}
        assert sorted(t for t in texts if t.lower() in english_lower) == []


def test_an_english_admin_gets_english(course, admin_client):
    page = admin_client.get("/admin/courses/module/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Select module to change" in page
    assert "Lernpfad · Kursverwaltung" in page
    index = admin_client.get("/admin/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Kursinhalte" in index and "Geplante Aufgaben" in index
