"""Every upload gets an answer, never a 500: a Windows-1252 document imports with a notice of its
conversion; an empty or binary file is refused by name with a German reason, nothing written."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from publishing.models import CourseImport, ImportDocument
from publishing.services import course_import_draft_create
from tests.conftest import SEED_DIR
from tests.publishing.edits import SEED_MODULE, broken_seed

pytestmark = pytest.mark.django_db

UPLOAD = "/admin/publishing/courseimport/upload/"
CARD = "000_f1ef75877a9e6e7d.txt"
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10" + bytes(range(256)) * 8


def _seed(**replace: bytes) -> list[SimpleUploadedFile]:
    return [
        SimpleUploadedFile(name, replace.get(name, (SEED_DIR / name).read_bytes()), "text/plain")
        for name in sorted(p.name for p in SEED_DIR.glob("*.txt"))
    ] + [
        SimpleUploadedFile(name, data, "text/plain")
        for name, data in replace.items()
        if not (SEED_DIR / name).exists()
    ]


def _upload(client, files):
    return client.post(UPLOAD, {"documents": files}, HTTP_ACCEPT_LANGUAGE="de")


def test_a_windows_1252_card_imports_with_a_notice(admin_client):
    text = (SEED_DIR / CARD).read_text(encoding="utf-8")
    assert any(ch in text for ch in "äöüß„“–")
    response = _upload(admin_client, _seed(**{CARD: text.encode("cp1252")}))
    assert response.status_code == 302
    document = ImportDocument.objects.get(name=CARD)
    assert document.text == text and document.source_encoding == "Windows-1252"
    assert ImportDocument.objects.exclude(name=CARD).filter(source_encoding="").count() == 3
    page = admin_client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert f"{CARD} war als Windows-1252 gespeichert, nicht als UTF-8" in page


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("bild.txt", PNG, "bild.txt:1: kein Textdokument (Byte 0x89"),
        ("leer.txt", b"", "leer.txt:1: die Datei ist leer"),
        ("leer2.txt", b"\xef\xbb\xbf\r\n  \n", "leer2.txt:1: die Datei ist leer"),
    ],
)
def test_a_binary_or_empty_file_is_refused_by_name_and_nothing_is_written(
    admin_client, name, data, reason
):
    response = _upload(admin_client, _seed(**{name: data}))
    assert response.status_code == 400
    page = response.content.decode()
    assert reason in page
    assert "Die Dokumente wurden nicht importiert" in page
    assert '<div class="errornote">' not in page  # named, not only "correct the errors"
    assert not CourseImport.objects.exists() and not ImportDocument.objects.exists()


def test_document_errors_name_file_and_line_in_german(admin_client):
    module = (SEED_DIR / SEED_MODULE).read_text(encoding="utf-8")
    response = _upload(admin_client, _seed(**{SEED_MODULE: broken_seed(module).encode()}))
    assert response.status_code == 400
    page = response.content.decode()
    assert f"{SEED_MODULE}:" in page
    assert "Schrittnummer außer der Reihe: erwartet wird Schritt 7, gefunden" in page
    assert not CourseImport.objects.exists()


def test_the_service_refuses_every_bad_file_at_once():
    from courses.api import DocumentErrors

    with pytest.raises(DocumentErrors) as failed:
        course_import_draft_create(
            documents=[("a.txt", b""), ("b.txt", PNG), ("c.txt", "Lernbegriff\nX — Y\n")],
            user_id=None,
        )
    assert [(e.path, e.line) for e in failed.value.errors] == [("a.txt", 1), ("b.txt", 1)]
    assert not CourseImport.objects.exists()
