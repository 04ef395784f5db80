"""Request bodies take the JSON types their schema names. DRF reads a value of the wrong type
where it can (``3`` for a string field, ``"3"`` or ``3.0`` for an integer, ``"yes"`` for a
boolean, ``"1"`` for the choice ``1``): a generated client never sends that, so a client that
does has a bug, and the schema, which says "string" or "integer", would not be the whole rule.
``BodySerializer`` refuses it with a message per field; query parameters, which are always text,
keep DRF's reading (``lms.query``)."""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

_MESSAGES = {
    "string": _("Must be a string (in quotes)."),
    "integer": _("Must be a whole number, without quotes."),
    "number": _("Must be a number, without quotes."),
    "boolean": _("Must be true or false."),
}


def _expected(field: serializers.Field) -> str | None:
    """The JSON type ``field`` reads, or None where DRF already refuses every other type."""
    if isinstance(field, serializers.BooleanField):
        return "boolean"
    if isinstance(field, serializers.ChoiceField):
        keys = list(field.choices)
        if keys and all(isinstance(k, int) and not isinstance(k, bool) for k in keys):
            return "integer"
        return "string" if keys and all(isinstance(k, str) for k in keys) else None
    if isinstance(field, serializers.CharField):
        return "string"
    if isinstance(field, serializers.IntegerField):
        return "integer"
    if isinstance(field, serializers.FloatField):
        return "number"
    return None


def _type_errors(field: serializers.Field, value):
    """The errors of ``value`` for ``field`` (nested as DRF nests a list's), or None."""
    if value is None:
        return None  # allow_null is the field's own rule
    if isinstance(field, serializers.ListField) and isinstance(value, list):
        errors = {
            index: error
            for index, item in enumerate(value)
            if (error := _type_errors(field.child, item)) is not None
        }
        return errors or None
    expected = _expected(field)
    kinds = {
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, int | float) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
    }
    if expected is None or kinds[expected]:
        return None
    return [_MESSAGES[expected]]


# The serializer of a request body (or of an object inside one): each field's value must be of
# the JSON type the field reads. (A comment, not a docstring: the schema would describe every
# request component with it.)
class BodySerializer(serializers.Serializer):
    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            errors = {
                name: error
                for name, field in self.fields.items()
                if not field.read_only
                and name in data
                and (error := _type_errors(field, data[name])) is not None
            }
            if errors:
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)
