"""Path converters shared by the apps' URL patterns (registered when this module is imported)."""

from django.urls import register_converter


class UrlSafeTokenConverter:
    """A code made by ``secrets.token_urlsafe`` (certificate codes): letters, digits, ``-`` and
    ``_``, at most 64. Anything else never reaches a view or the database (``<str:code>`` let
    ``%00`` through to PostgreSQL, a 500)."""

    regex = "[A-Za-z0-9_-]{1,64}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(UrlSafeTokenConverter, "token")
