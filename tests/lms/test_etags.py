"""The ETag of a 304 is the one the 200 for the same request carries (issue 30): weak, with or
without compression, for every resource the API versions."""

import pytest
from django.core.cache import cache

from tests.factories import api_client_for, enrollment_create, learner_create

pytestmark = pytest.mark.django_db

MODULE = "/api/v1/modules/self-hosting-27/"
VERSIONED = [MODULE, MODULE + "bundle/", MODULE + "term-cards/", MODULE + "steps/3/"]


@pytest.fixture
def learner_client(course):
    learner = learner_create("lena")
    enrollment_create(learner, course)
    return api_client_for(learner)


@pytest.mark.parametrize("encoding", ["identity", "gzip", "br"])
@pytest.mark.parametrize("path", [*VERSIONED, MODULE + "steps/2/notes/"])
def test_a_304_carries_the_etag_of_the_200(learner_client, path, encoding):
    cache.clear()
    first = learner_client.get(path, HTTP_ACCEPT_ENCODING=encoding)
    assert first.status_code == 200
    etag = first["ETag"]
    assert etag.startswith('W/"') and etag.endswith('"'), etag
    for sent in (etag, etag[2:]):  # the weak form it got, or a strong one it kept from before
        again = learner_client.get(path, HTTP_ACCEPT_ENCODING=encoding, HTTP_IF_NONE_MATCH=sent)
        if path.endswith("notes/"):
            # Notes are versioned for If-Match (writes), not for If-None-Match.
            assert again.status_code == 200
            assert again["ETag"] == etag
            continue
        assert again.status_code == 304, (path, sent)
        assert again["ETag"] == etag, (path, encoding, sent)


def test_a_stale_write_names_the_current_etag_as_the_read_does(learner_client):
    notes = MODULE + "steps/2/notes/"
    read = learner_client.get(notes)["ETag"]
    learner_client.put(notes, {"lernauftrag": "Eins."}, format="json")
    stale = learner_client.put(notes, {"lernauftrag": "Zwei."}, format="json", HTTP_IF_MATCH=read)
    assert stale.status_code == 412
    assert stale.json()["error"]["detail"]["etag"] == learner_client.get(notes)["ETag"]
