"""Fixtures of the web page tests: a learner (registered through the accounts service)."""

from __future__ import annotations

import pytest

PASSWORD = "a-long-and-unusual-passphrase-17"


@pytest.fixture
def learner(db):
    from accounts.services import user_register

    return user_register(
        username="lena", email="lena@example.org", password=PASSWORD, display_name="Lena"
    )


@pytest.fixture
def learner_client(client, learner):
    client.force_login(learner)
    return client


@pytest.fixture
def enrolled(course, learner):
    from progress.services.enrollment import enrollment_create

    enrollment_create(learner_id=learner.pk, module_slug=course.slug)
    return learner
