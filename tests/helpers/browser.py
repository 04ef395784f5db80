"""What the browser tests do on every page: log in, take numbered screenshots."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.factories import learner_password


def log_in(page: Page, url: str, username: str, password: str | None = None) -> None:
    """Log ``username`` in on the log-in page at ``url`` (the site's /login/ or the admin's
    /admin/login/, in any language) with ``learner_password(username)`` unless a password is
    given, and wait until the browser has left that page."""
    page.goto(url)
    page.locator("input[name=username]").fill(username)
    page.locator("input[name=password]").fill(password or learner_password(username))
    page.locator("main [type=submit]").click()
    expect(page).not_to_have_url(url)


class Shots:
    """Numbered full-page screenshots of one scenario."""

    def __init__(self, page: Page, directory, prefix: str):
        self.page, self.directory, self.prefix, self.count = page, directory, prefix, 0

    def __call__(self, name: str) -> None:
        self.count += 1
        path = self.directory / f"{self.prefix}-{self.count:02d}-{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
