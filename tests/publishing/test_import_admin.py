"""The import workspace in the admin: upload, preview, publish, history, downloads; bad input is
a 4xx naming file and line with nothing written; query counts do not grow with the course."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from courses.models import Module, Section, Step
from progress.models import StepProgress
from publishing import forms as publishing_forms
from publishing.models import CourseImport
from tests.conftest import SEED_DIR
from tests.factories import learner_create
from tests.helpers.queries import assert_queries_constant
from tests.publishing.edits import ADDED_TERM, SEED_MODULE, broken_seed, edited_seed

pytestmark = pytest.mark.django_db

UPLOAD = "/admin/publishing/courseimport/upload/"
T = "2026-01-01T00:00Z"


def _files(edit=None):
    out = []
    for path in sorted(SEED_DIR.glob("*.txt")):
        data = path.read_bytes()
        if edit and path.name == SEED_MODULE:
            data = edit(data.decode()).encode()
        out.append(SimpleUploadedFile(path.name, data, content_type="text/plain"))
    return out


def _upload(client, files):
    # The workspace's messages are read in German, the admin's default language (tests/conftest's
    # admin_client asks for English).
    return client.post(UPLOAD, {"documents": files}, HTTP_ACCEPT_LANGUAGE="de")


def _publish(client, response):
    return _publish_at(client, response["Location"])


def _publish_at(client, preview_url: str):
    page = client.get(preview_url)
    fingerprint = re.search(r'name="fingerprint" value="([0-9a-f]+)"', page.content.decode())[1]
    return client.post(preview_url, {"fingerprint": fingerprint})


@pytest.fixture
def published(admin_client):
    _publish(admin_client, _upload(admin_client, _files()))
    return Module.objects.get(slug="self-hosting-27")


def test_module_pages_link_to_the_import_and_the_document(admin_client, published):
    page = admin_client.get("/admin/courses/module/").content.decode()
    assert UPLOAD in page and "/admin/publishing/courseimport/" in page
    change = admin_client.get(f"/admin/courses/module/{published.pk}/change/").content.decode()
    assert f"/admin/publishing/courseimport/module/{published.pk}/document/" in change


def test_upload_preview_publish(admin_client, published):
    response = _upload(admin_client, _files(edited_seed))
    assert response.status_code == 302
    page = admin_client.get(response["Location"]).content.decode()
    assert ADDED_TERM in page and "Hardwarefunktionen einer" in page
    assert 'data-kind="retired"' in page
    response = _publish(admin_client, response)
    assert response.status_code == 302
    assert Step.objects.active().filter(slug="gpu-partitionierung").exists()
    history = admin_client.get("/admin/publishing/courseimport/").content.decode()
    assert "self-hosting-27: +1 ~1 −1" in history


def test_broken_document_shows_file_and_line_and_writes_nothing(admin_client, published):
    before = (Step.objects.count(), Section.objects.count(), CourseImport.objects.count())
    response = _upload(admin_client, _files(broken_seed))
    assert response.status_code == 400
    assert f"{SEED_MODULE}:393:" in response.content.decode()
    after = (Step.objects.count(), Section.objects.count(), CourseImport.objects.count())
    assert after == before


def test_too_large_and_wrong_kind_are_a_clear_400(admin_client, monkeypatch):
    monkeypatch.setattr(publishing_forms, "DOCUMENT_MAX_BYTES", 1_000_000)
    big = SimpleUploadedFile("big.txt", b"x" * 1_000_001, content_type="text/plain")
    pdf = SimpleUploadedFile("kurs.pdf", b"%PDF-1.4", content_type="application/pdf")
    response = _upload(admin_client, [big, pdf])
    assert response.status_code == 400
    page = response.content.decode()
    # The admin speaks German by default (LANGUAGE_CODE).
    assert "big.txt ist größer als 1 MB." in page
    assert "kurs.pdf: Bitte ein .txt-Dokument wählen." in page
    assert CourseImport.objects.count() == 0


def test_a_stale_preview_is_refused_and_shown_again(admin_client, published):
    response = _upload(admin_client, _files(edited_seed))
    preview_url = response["Location"]
    page = admin_client.get(preview_url).content.decode()
    fingerprint = re.search(r'name="fingerprint" value="([0-9a-f]+)"', page)[1]
    Step.objects.filter(number=10, module=published).update(content_hash="edited")
    response = admin_client.post(preview_url, {"fingerprint": fingerprint})
    assert response.status_code == 409
    assert 'id="import-stale"' in response.content.decode()
    assert not Step.objects.filter(slug="gpu-partitionierung").exists()


def test_history_detail_downloads_and_publish_again(admin_client, published):
    first = CourseImport.objects.get()
    detail = admin_client.get(f"/admin/publishing/courseimport/{first.pk}/change/")
    assert detail.status_code == 200
    document = first.documents.get(name=SEED_MODULE)
    download = admin_client.get(
        f"/admin/publishing/courseimport/{first.pk}/document/{document.pk}/"
    )
    assert download.content == (SEED_DIR / SEED_MODULE).read_bytes()
    module_doc = admin_client.get(f"/admin/publishing/courseimport/module/{published.pk}/document/")
    assert module_doc.content == (SEED_DIR / SEED_MODULE).read_bytes()
    response = admin_client.post(f"/admin/publishing/courseimport/{first.pk}/again/")
    assert response.status_code == 302 and "/preview/" in response["Location"]
    again = CourseImport.objects.order_by("-pk").first()
    assert again.again_of_id == first.pk and again.origin == "again"


def test_a_staff_user_without_the_permissions_cannot_import(client, published):
    staff = learner_create("staff", is_staff=True)
    client.force_login(staff)
    assert client.get(UPLOAD).status_code == 403


def _course_with(learners: int, client) -> str:
    """The edited seed's preview URL with ``learners`` learners on each step."""
    users = [learner_create(f"l{learners}-{i}") for i in range(learners)]
    steps = list(Step.objects.all())
    StepProgress.objects.bulk_create(
        StepProgress(learner=u, step=s, status="completed", completed_at=T, updated_at=T)
        for u in users
        for s in steps
    )
    return _upload(client, _files(edited_seed))["Location"]


@pytest.mark.parametrize(
    ("url", "budget"),
    [
        ("preview", 20),
        ("/admin/publishing/courseimport/", 8),
        ("history", 10),
        ("module_document", 10),
        ("/admin/courses/module/", 8),
    ],
)
def test_admin_pages_query_count_is_constant(admin_client, published, url, budget):
    """The same queries with 1 or 8 learners' progress on every step."""

    def resolve(preview_url: str) -> str:
        first = CourseImport.objects.order_by("pk").first()
        return {
            "preview": preview_url,
            "history": f"/admin/publishing/courseimport/{first.pk}/change/",
            "module_document": f"/admin/publishing/courseimport/module/{published.pk}/document/",
        }.get(url, url)

    target = ""

    def course_with(learners: int) -> None:
        nonlocal target
        target = resolve(_course_with(learners, admin_client))
        admin_client.get(target)  # warm the content-type cache the admin fills on first use

    def page() -> None:
        assert admin_client.get(target).status_code == 200

    course_with(1)
    assert_queries_constant(page, grow=lambda: course_with(8), budget=budget)


def _module_upload(client, steps: int, level: str = "B2") -> str:
    from tests.conftest import module_document_text

    terms = tuple(f"Begriff {i}" for i in range(1, steps + 1))
    text = module_document_text(series="Homelab", number=steps, terms=terms, level=level)
    upload = SimpleUploadedFile(f"homelab-{steps}.txt", text.encode(), content_type="text/plain")
    return _upload(client, [upload])["Location"]


def _published_module(client, steps: int) -> str:
    """A module of ``steps`` steps, published once; its history page's URL."""
    preview_url = _module_upload(client, steps)
    _publish_at(client, preview_url)
    history = preview_url.replace("/preview/", "/change/")
    client.get(history)  # warm the content-type cache
    return history


def test_the_history_page_query_count_does_not_grow_with_the_steps(admin_client):
    history = _published_module(admin_client, 1)

    def grow() -> None:
        nonlocal history
        history = _published_module(admin_client, 40)

    def page() -> None:
        assert admin_client.get(history).status_code == 200

    assert_queries_constant(page, grow=grow, budget=10)


def test_a_preview_of_changed_steps_query_count_does_not_grow_with_the_steps(admin_client):
    """A published module again with every step's level changed: every step has a diff."""
    steps = 0
    preview_url = ""

    def module_of(count: int) -> None:
        nonlocal steps, preview_url
        _published_module(admin_client, count)
        steps, preview_url = count, _module_upload(admin_client, count, level="B1")

    def preview() -> None:
        page = admin_client.get(preview_url)
        assert page.status_code == 200
        assert page.content.decode().count('data-kind="changed"') == steps + 1  # + the count

    module_of(1)
    assert_queries_constant(preview, grow=lambda: module_of(40), budget=20)


def test_a_draft_that_no_longer_imports_shows_why_and_writes_nothing(admin_client, published):
    cards = [f for f in _files() if f.name != SEED_MODULE]
    preview_url = _upload(admin_client, cards)["Location"]
    page = admin_client.get(preview_url).content.decode()
    fingerprint = re.search(r'name="fingerprint" value="([0-9a-f]+)"', page)[1]
    Module.objects.filter(pk=published.pk).update(title="Umbenannt")
    response = admin_client.get(preview_url)
    assert response.status_code == 409
    assert "000_f1ef75877a9e6e7d.txt:2: no module titled" in response.content.decode()
    response = admin_client.post(preview_url, {"fingerprint": fingerprint})
    assert response.status_code == 409
    assert CourseImport.objects.filter(status="draft").count() == 1


def test_an_unstorable_file_name_is_a_400(admin_client):
    upload = SimpleUploadedFile("x" * 250 + ".txt", b"Lernbegriff\n", content_type="text/plain")
    response = _upload(admin_client, [upload])
    assert response.status_code == 400
    assert "Zeichen oder kein reiner Text" in response.content.decode()
