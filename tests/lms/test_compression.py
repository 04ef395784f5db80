"""Compression of JSON responses (lms/compression.py): brotli or gzip as the client accepts,
Vary, weak ETags that still give 304s, and what is never compressed (BREACH)."""

import gzip

import brotli
import pytest

from lms.compression import accepted_encoding
from tests.factories import learner_create, learner_password

pytestmark = pytest.mark.django_db

BUNDLE = "/api/v1/modules/self-hosting-27/bundle/"


def raw(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


@pytest.mark.parametrize(
    "header, expected",
    [
        ("", None),
        ("identity", None),
        ("gzip", "gzip"),
        ("gzip, deflate, br", "br"),
        ("br;q=0.5, gzip", "gzip"),
        ("br;q=0, gzip;q=0.1", "gzip"),
        ("gzip;q=0", None),
        ("*", "br"),
        ("*;q=0.2, br;q=0", "gzip"),
        ("GZIP", "gzip"),
        ("br;q=x", None),
    ],
)
def test_the_encoding_follows_accept_encoding(header, expected):
    assert accepted_encoding(header) == expected


def test_no_accept_encoding_gets_the_plain_body_with_vary(course, client):
    response = client.get(BUNDLE)
    assert response.status_code == 200 and not response.has_header("Content-Encoding")
    assert "Accept-Encoding" in response["Vary"]
    assert response.json()["module"]["slug"] == "self-hosting-27"
    assert response["ETag"].startswith('W/"')


@pytest.mark.parametrize(
    "encoding, decompress",
    [("gzip", gzip.decompress), ("br", brotli.decompress)],
)
def test_gzip_and_brotli_bodies_decode_to_the_same_json(course, client, encoding, decompress):
    plain = client.get(BUNDLE).content
    response = client.get(BUNDLE, HTTP_ACCEPT_ENCODING=encoding)
    assert response["Content-Encoding"] == encoding
    assert "Accept-Encoding" in response["Vary"]
    body = raw(response)
    assert decompress(body) == plain
    assert int(response["Content-Length"]) == len(body) < len(plain) / 4
    # A compressed body is another representation of the same content: the ETag goes weak.
    assert response["ETag"].startswith('W/"')


@pytest.mark.parametrize("encoding", ["gzip", "br"])
def test_a_weak_etag_from_a_compressed_response_gives_a_304(course, client, encoding):
    for url in (BUNDLE, "/api/v1/modules/self-hosting-27/steps/3/"):
        etag = client.get(url, HTTP_ACCEPT_ENCODING=encoding)["ETag"]
        assert etag.startswith('W/"')
        again = client.get(url, HTTP_ACCEPT_ENCODING=encoding, HTTP_IF_NONE_MATCH=etag)
        assert again.status_code == 304 and not again.content
        # ... and so does the strong form without compression.
        assert client.get(url, HTTP_IF_NONE_MATCH=etag[2:]).status_code == 304


def test_small_json_stays_plain(course, client):
    response = client.get("/api/v1/modules/unknown/", HTTP_ACCEPT_ENCODING="br, gzip")
    assert response.status_code == 404 and len(response.content) < 200
    assert not response.has_header("Content-Encoding")
    assert response.json()["error"]["code"] == "module_not_found"


def test_html_pages_are_never_compressed(course, client):
    """Pages carry the CSRF token and reflect input (BREACH's two ingredients)."""
    response = client.get("/login/?next=/x", HTTP_ACCEPT_ENCODING="gzip, br")
    assert response.status_code == 200 and b"csrfmiddlewaretoken" in response.content
    assert not response.has_header("Content-Encoding")


def test_a_log_in_token_is_never_compressed(db, client):
    learner_create("lena")
    response = client.post(
        "/api/v1/auth/token/",
        {"username": "lena", "password": learner_password("lena"), "device_name": "Phone"},
        content_type="application/json",
        HTTP_ACCEPT_ENCODING="gzip, br",
    )
    assert response.status_code == 200 and response.json()["token"]
    assert not response.has_header("Content-Encoding")


def test_the_schema_is_compressed(client):
    response = client.get("/api/schema/", HTTP_ACCEPT_ENCODING="br")
    assert response.status_code == 200 and response["Content-Encoding"] == "br"
    assert b"openapi" in brotli.decompress(response.content)
