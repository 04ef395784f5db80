"""Query parameters given empty (``?include=``, ``?page=``) are refused: DRF reads an empty value
as a parameter left out, which the schema does not allow (an enum, an integer), so a client's bug
would go unnoticed."""

from __future__ import annotations

from django.utils.translation import gettext as _
from rest_framework import serializers


def blank_parameter_message(name: str) -> str:
    return _("Give %(name)s a value or leave the parameter out.") % {"name": name}


class QuerySerializer(serializers.Serializer):
    """Reads a view's query parameters; one given empty is a 400 unless its field allows blank."""

    def to_internal_value(self, data):
        blank = [
            name
            for name, field in self.fields.items()
            if data.get(name) == "" and not getattr(field, "allow_blank", False)
        ]
        if blank:
            raise serializers.ValidationError(
                {name: [blank_parameter_message(name)] for name in blank}
            )
        return super().to_internal_value(data)
