"""What the browser tests do on every page: log in, take numbered screenshots, and save the
pictures the documentation shows."""

from __future__ import annotations

from pathlib import Path

from PIL import Image
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
    else:
        _page_top_screenshot(page, path)
    _palette_shrink(path)


def _page_top_screenshot(page: Page, path: str) -> None:
    # Down to the end of the page's main content, so a short page leaves no empty window below.
    main_bottom = page.evaluate(
        "() => { const main = document.querySelector('main');"
        " return main ? main.getBoundingClientRect().bottom + window.scrollY : 0; }"
    )
    size = page.viewport_size
    height = min(size["height"], int(main_bottom) + 24) if main_bottom else size["height"]
    top = {"x": 0, "y": 0, "width": size["width"], "height": height}
    page.screenshot(path=path, full_page=True, clip=top)


def _palette_shrink(path: str) -> None:
    """256 colours, no dithering: the pages' flat colours and text look the same at about a
    third of the bytes, and the pictures are committed again whenever a page changes. (Pillow
    comes with fpdf2, the certificate PDF's library.)"""
    with Image.open(path) as picture:
        shrunk = picture.convert("RGB").quantize(
            colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
        )
    shrunk.save(path, optimize=True)


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
