"""Path converters shared by the apps' URL patterns (registered when this module is imported):
codes, ids and numbers that never reach the database unless its column can hold them."""

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


# The largest value of the columns an id or a number in a path names: BigAutoField (every primary
# key, DEFAULT_AUTO_FIELD) and PositiveIntegerField (a step's number). A larger value names
# nothing; PostgreSQL would refuse it with an error (a 500), so it never reaches a query.
ID_MAX = 2**63 - 1
NUMBER_MAX = 2**31 - 1


class _BoundedIntConverter:
    """A non-negative integer no larger than its column holds; a larger one does not match the
    route, a 404 like any other path that names nothing."""

    regex = "[0-9]+"
    max_value: int

    def to_python(self, value: str) -> int:
        number = int(value)  # a ValueError (over 4300 digits too) means: no match
        if number > self.max_value:
            raise ValueError(f"{value} is larger than {self.max_value}")
        return number

    def to_url(self, value: int) -> str:
        return str(value)


class IdConverter(_BoundedIntConverter):
    """``<id:attempt>``: a primary key (64-bit)."""

    max_value = ID_MAX


class NumberConverter(_BoundedIntConverter):
    """``<number:number>``: a step's number (32-bit). SPECTACULAR_SETTINGS states both ranges
    in the schema."""

    max_value = NUMBER_MAX


register_converter(IdConverter, "id")
register_converter(NumberConverter, "number")
