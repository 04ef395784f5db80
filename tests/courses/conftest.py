"""Fixtures of the courses tests."""

import pytest


@pytest.fixture(autouse=True)
def _cold_step_body_cache():
    """Each test starts without cached step bodies, so query counts do not depend on order."""
    from courses.rest.views import step_body_cache_clear

    step_body_cache_clear()
    yield
    step_body_cache_clear()
