"""The platform's HTML pages: ``string.Template`` files in ``templates/``, values escaped here."""

from __future__ import annotations

import html
import string
from functools import cache
from pathlib import Path

TEMPLATES = Path(__file__).with_name("templates")


class Html(str):
    """Markup rendered from a template: inserted into another template as it is."""


@cache
def _template(name: str) -> string.Template:
    return string.Template((TEMPLATES / name).read_text())


def render(template: str, /, **values: object) -> Html:
    """The template file ``template`` with every value HTML-escaped, except rendered markup."""
    escaped = {
        key: value if isinstance(value, Html) else html.escape(str(value), quote=True)
        for key, value in values.items()
    }
    return Html(_template(template).substitute(escaped))


def static_text(name: str) -> str:
    """A static file from the templates folder (the platform storage script)."""
    return (TEMPLATES / name).read_text()
