"""Browser tests: Playwright drives Debian's Chromium against pytest-django's live server.

Playwright's own browser download does not work here, so the system Chromium is launched
(``LERNPFAD_CHROMIUM``, default /usr/bin/chromium). Playwright's sync API keeps an asyncio loop
running in the test thread, which Django's async-safety check mistakes for async code; the
test code's ORM calls are plain synchronous calls, so the check is switched off for these tests.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.conf import settings

from tests.conftest import _missing

CHROMIUM = os.environ.get("LERNPFAD_CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = Path(settings.BASE_DIR) / "test-artifacts" / "screenshots"


@pytest.fixture(scope="session", autouse=True)
def _allow_sync_orm_beside_playwright():
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    yield
    if previous is None:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
        ],
    }


@pytest.fixture
def chromium(request):
    """The launched browser; a missing Chromium is a skip (a failure under CI's service gate)."""
    if not Path(CHROMIUM).exists():
        _missing(f"needs Chromium at {CHROMIUM} (apt-get install chromium)")
    return request.getfixturevalue("browser")


@pytest.fixture
def screenshot_dir() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


def pytest_collection_modifyitems(config, items):
    """Run the browser tests last.

    pytest-playwright's session-wide Playwright keeps an asyncio loop running in the test thread
    from its first use to the end of the session; other tests then never see it.
    """
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)
