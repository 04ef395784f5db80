"""Fixtures of the web page tests: a learner (signed up through the accounts service)."""

from __future__ import annotations

import pytest

from tests.factories import exam_bank_approve, learner_password, learner_register, steps_complete

PASSWORD = learner_password("lena")


@pytest.fixture
def learner(db):
    # With the full name a certifying exam asks for before it starts.
    return learner_register("lena", display_name="Lena", full_name="Lena Lernende")


@pytest.fixture
def learner_client(client, learner):
    client.force_login(learner)
    return client


@pytest.fixture
def enrolled(course, learner):
    from progress.services.enrollment import enrollment_create

    enrollment_create(learner_id=learner.pk, module_slug=course.slug)
    return learner


@pytest.fixture
def studied(enrolled, course):
    """The enrolled learner with every step completed (the exam's completion gate is open) and
    the seed bank approved (the exam certifies)."""
    steps_complete(enrolled, course)
    exam_bank_approve(course)
    return enrolled
