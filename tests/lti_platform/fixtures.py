"""pytest fixtures for the LTI test platform.

Use in a test module: ``from tests.lti_platform.fixtures import lti_platform  # noqa: F401``, then
``def test_x(lti_platform): lti_platform.url, lti_platform.client.state()``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.lti_platform import RunningPlatform, running_platform


@pytest.fixture
def lti_platform(tmp_path) -> Iterator[RunningPlatform]:
    """A fresh platform process for one test; its state and log in ``tmp_path/lti-platform``."""
    with running_platform(tmp_path / "lti-platform") as platform:
        yield platform


@pytest.fixture(scope="module")
def lti_platform_module(tmp_path_factory) -> Iterator[RunningPlatform]:
    """One platform for a whole module (call ``client.reset()`` where tests must not share)."""
    with running_platform(tmp_path_factory.mktemp("lti-platform")) as platform:
        yield platform
