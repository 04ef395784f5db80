"""What the browser tests do on every page: log in, take numbered screenshots, and save the
pictures the documentation shows."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Locator, Page, expect

from tests.factories import learner_password

# The guides' pictures (docs/assets/screens/<name>.png): only journeys write them, so a run of
# the browser tests refreshes them, and tests/lms/test_docs.py fails when a guide shows a picture
# no journey takes.
DOC_SCREENS = Path(__file__).resolve().parents[2] / "docs" / "assets" / "screens"


def log_in(page: Page, url: str, username: str, password: str | None = None) -> None:
    """Log ``username`` in on the log-in page at ``url`` (the site's /login/ or the admin's
    /admin/login/, in any language) with ``learner_password(username)`` unless a password is
    given, and wait until the browser has left that page."""
    page.goto(url)
    page.locator("input[name=username]").fill(username)
    page.locator("input[name=password]").fill(password or learner_password(username))
    page.locator("main [type=submit]").click()
    expect(page).not_to_have_url(url)


def doc_shot(page: Page, name: str, *, element: Locator | None = None) -> None:
    """Save the guides' picture ``docs/assets/screens/<name>.png``: the top of the page, one
    window high (wherever the journey has scrolled to; the guides show a page from its top), or
    only ``element`` when given. ``name`` is a literal or an f-string in the journey's source,
    which is where the docs test looks for it."""
    DOC_SCREENS.mkdir(parents=True, exist_ok=True)
    path = str(DOC_SCREENS / f"{name}.png")
    if element is not None:
        element.screenshot(path=path)
        return
    size = page.viewport_size
    top = {"x": 0, "y": 0, "width": size["width"], "height": size["height"]}
    page.screenshot(path=path, full_page=True, clip=top)


class Shots:
    """Numbered full-page screenshots of one scenario."""

    def __init__(self, page: Page, directory, prefix: str):
        self.page, self.directory, self.prefix, self.count = page, directory, prefix, 0

    def __call__(self, name: str, *, doc: str | None = None) -> None:
        """One numbered screenshot; ``doc`` also saves it for the guides (``doc_shot``)."""
        self.count += 1
        path = self.directory / f"{self.prefix}-{self.count:02d}-{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        if doc is not None:
            doc_shot(self.page, doc)
